//! The one integration-test binary: every subcommand through the real
//! executable, in a throwaway project built from tests/fixtures/.

mod architecture;
mod bench;
mod books;
mod bounds;
mod busy_machine;
mod chapters;
mod diff;
mod fetch;
mod hardening_evidence;
mod hardening_inputs;
mod hardening_notebook_scale;
mod hardening_quoting;
mod hardening_refusals;
mod hardening_report_bounds;
mod hardening_secrets;
mod helpers;
mod hostile;
mod notebook;
mod outputs;
mod own_fixtures;
mod portable_records;
mod prompt_and_report;
mod publish;
mod pytorch_reference;
mod records;
mod records_cache;
mod reliable_records;
mod research_record;
mod site;
mod store_inputs;
mod trust;
