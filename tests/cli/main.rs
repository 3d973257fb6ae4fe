//! The one integration-test binary: every subcommand through the real
//! executable, in a throwaway copy of the project's data.

mod architecture;
mod bench;
mod books;
mod chapters;
mod diff;
mod fetch;
mod helpers;
mod hostile;
mod outputs;
mod own_fixtures;
mod records;
mod reference;
mod render;
mod site;
mod site_data;
mod travel;
