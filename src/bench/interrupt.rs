//! The Ctrl-C flag: set from the signal handler the command line installs,
//! read by the engine between steps so a run stops cleanly, reaps its
//! workers and writes nothing.

use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Marks the run as interrupted (called from the Ctrl-C handler).
pub fn interrupt() {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Whether Ctrl-C was pressed.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}
