//! How this machine's Python stands against the machine the engine's
//! figures were measured on. Every figure in `calibration.rs` is CPU time
//! on one machine; machines of the same kind have run PyTorch's Python up
//! to a third faster (docs/engine.md, "One machine's Python against
//! another's"). The PyTorch harness measures what starting the workers
//! costs on every run ([`PythonStart`]); set against the same figures on
//! the figures' machine, that gives one factor for the machine, the one
//! `--python-cost-scale` multiplies the modelled costs by.

use serde::Serialize;

use super::calibration::{FIGURES_FORK_MS, FIGURES_SETUP_MS, PYTORCH_RECEIVE_MS, PYTORCH_SEND_MS};
use super::config::Transport;
use super::run_file::{BenchRun, PythonStart};
use super::settings::Settings;

/// An engine scale this close to the machine's factor (as a ratio) models
/// the machine.
const MODELLED_WITHIN: f64 = 0.10;

/// This machine's Python against the figures' machine.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PythonSpeed {
    /// What PyTorch spent starting its workers here.
    pub measured: PythonStart,
    /// The same on the figures' machine.
    pub figures_fork_ms: f64,
    pub figures_setup_ms: f64,
    /// The geometric mean of the two ratios, to two places: what
    /// `--python-cost-scale` would be to model this machine.
    pub factor: f64,
}

impl PythonSpeed {
    /// A PyTorch run's, from the start its harness measured; None for a
    /// run of the embedded engine or one without a start.
    pub fn of_run(run: &BenchRun) -> Option<Self> {
        Self::of(run.reference.as_ref()?.start?)
    }

    /// None when a figure is not a positive number (no start was measured).
    pub fn of(measured: PythonStart) -> Option<Self> {
        let fork = measured.fork_ms / FIGURES_FORK_MS;
        let setup = measured.setup_ms / FIGURES_SETUP_MS;
        let factor = (fork * setup).sqrt();
        (factor.is_finite() && factor > 0.0).then(|| PythonSpeed {
            measured,
            figures_fork_ms: FIGURES_FORK_MS,
            figures_setup_ms: FIGURES_SETUP_MS,
            factor: two_places(factor),
        })
    }

    /// Whether an engine run at `scale` models this machine's Python.
    pub fn modelled_by(&self, scale: f64) -> bool {
        scale > 0.0 && (scale / self.factor - 1.0).abs() <= MODELLED_WITHIN
    }

    /// The hand-off's receive and send costs (Python's too) at the factor,
    /// in ms to two places: what `--receive-ms` and `--send-ms` would be.
    pub fn hand_off_ms(&self) -> (f64, f64) {
        (
            two_places(PYTORCH_RECEIVE_MS * self.factor),
            two_places(PYTORCH_SEND_MS * self.factor),
        )
    }

    /// `settings` with the Python costs and the hand-off's at the factor
    /// (the send cost only where the hand-off has sending threads to spend
    /// it).
    pub fn scale(&self, settings: &mut Settings) {
        let (receive, send) = self.hand_off_ms();
        settings.python_cost_scale = self.factor;
        settings.receive_ms = receive;
        if settings.transport != Transport::Pipe {
            settings.send_ms = send;
        }
    }

    /// One sentence: what PyTorch's start cost here against the figures.
    pub fn measured_text(&self) -> String {
        format!(
            "PyTorch's loop spent {:.1} ms of CPU forking each worker and a worker {:.1} ms setting itself up \
             (medians of {} workers), x{:.2} of the {} and {} ms the engine's figures were measured at",
            self.measured.fork_ms,
            self.measured.setup_ms,
            self.measured.workers,
            self.factor,
            crate::text::setting(self.figures_fork_ms),
            crate::text::setting(self.figures_setup_ms),
        )
    }
}

/// `x` rounded to two decimal places, as the factor and the flags print.
fn two_places(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(fork_ms: f64, setup_ms: f64) -> PythonStart {
        PythonStart {
            fork_ms,
            setup_ms,
            workers: 8,
        }
    }

    #[test]
    fn the_factor_is_this_machines_start_against_the_figures() {
        let same = PythonSpeed::of(start(FIGURES_FORK_MS, FIGURES_SETUP_MS)).unwrap();
        assert_eq!(same.factor, 1.0);
        assert!(same.modelled_by(1.0));
        // The machine of 2026-12-02: 12.0 and 16.5 ms.
        let faster = PythonSpeed::of(start(12.0, 16.5)).unwrap();
        assert_eq!(faster.factor, 0.68);
        assert!(!faster.modelled_by(1.0) && faster.modelled_by(0.7));
        assert!(!faster.modelled_by(0.0), "scale 0 models no Python at all");
        assert_eq!(faster.hand_off_ms(), (0.29, 0.24));
        let mut s = Settings::chapter_defaults();
        faster.scale(&mut s);
        assert_eq!(
            (s.python_cost_scale, s.receive_ms, s.send_ms),
            (0.68, 0.29, 0.24)
        );
        // The pipe has no sending threads: its send cost stays as it was.
        let mut s = Settings::chapter_defaults();
        s.transport = Transport::Pipe;
        let send = s.send_ms;
        faster.scale(&mut s);
        assert_eq!(s.send_ms, send);
        assert!(PythonSpeed::of(start(0.0, 16.5)).is_none());
        assert!(PythonSpeed::of(start(f64::NAN, 16.5)).is_none());
    }
}
