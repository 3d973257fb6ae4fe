//! The embedded pipeline benchmark that reproduces chapter 06's experiment: a
//! producer that sleeps or spins per sample, workers as threads or processes,
//! a consumer doing fixed CPU work, and measurements of where the loop waits.
//!
//! One file per job: `settings` (the knobs and their checks), `config` (one
//! producer-and-workers configuration), `calibration` (what the engine takes
//! from PyTorch 2.15 and CPython), `dataset` (the samples), `gil` (a Python
//! process's interpreter lock), `python_costs` (the Python CPU beyond the
//! hand-off, per step of a batch), `python_speed` (this machine's Python
//! against the figures' machine), `pool` (the workers, one file per part of
//! the DataLoader), `engine` (the consumer loop), `bound` (the ideal),
//! `stats` (rows and medians), `verdict` (where the time goes), `histogram`
//! (the codec), `run_file` (what `--out` writes), `run_check` (the bounds
//! a run read back must keep), `outside_load` (how much of the CPUs other
//! processes took), `rounds` (every configuration once a round, the
//! disturbed ones again), `suite` (a whole run),
//! `pytorch_harness` (the same run on the real DataLoader),
//! `harness_runner` (its Python run as a bounded child), `interrupt`
//! (Ctrl-C), `table_layout` (the chapter's columns and header line),
//! `metric_name` (how claims spell them), `window` (which steps ex/s is
//! taken over) and `export` (text, Markdown and CSV). Imports between them point one way: none of these files needs a
//! file that needs it.

pub mod bound;
pub mod calibration;
pub mod config;
pub mod dataset;
pub mod engine;
pub mod export;
pub mod gil;
pub mod harness_runner;
pub mod histogram;
pub mod interrupt;
pub mod metric_name;
pub mod outside_load;
pub mod pool;
pub mod python_costs;
pub mod python_speed;
pub mod pytorch_harness;
pub mod rounds;
pub mod run_check;
pub mod run_file;
pub mod settings;
pub mod stats;
pub mod suite;
pub mod table_layout;
pub mod verdict;
pub mod window;

pub use calibration::{
    CPYTHON_SWITCH_INTERVAL_MS, DEFAULT_RECEIVE_MS, DEFAULT_SEND_MS, FORK_COST_SCALE,
    PYTHON_COST_SCALE, PYTORCH_RECEIVE_MS, PYTORCH_SEND_MS, SETUP_COST_SCALE,
};
pub use config::{PipelineConfig, ProducerKind, ProducerSpec, Transport, WorkerKind};
pub use python_speed::{ModelledCosts, PythonSpeed};
pub use run_file::{
    BenchRun, ConfigResult, NO_TRAINING_STEP_EX_S, PythonPerBatch, PythonStart, RUN_SCHEMA,
    ReferenceEngine, RepeatResult, Row, SHORTEST_STEP_COMPARED_MS,
};
pub use settings::{DEFAULT_BATCHES, Knob, Settings, SettingsError};
pub use suite::{Decided, pinned, run_suite};
pub use table_layout::{Column, TableHeader};
pub use verdict::PipelineVerdict;
pub use window::{WindowKind, WindowPlan};
