//! How this machine's Python stands against the machine the engine's
//! figures were measured on. Every figure in `calibration.rs` is CPU time
//! on one machine; machines of the same kind have run PyTorch's Python up
//! to a third faster (docs/log/2026-12-02-machines-and-the-factor.md, "One
//! machine's Python against another's"). The PyTorch harness measures what starting the workers
//! costs on every run ([`PythonStart`]); set against the same figures on
//! the figures' machine, that gives one factor for the machine, the one
//! `--python-cost-scale` multiplies the modelled costs by. Its harness also
//! probes the per-batch path hot on every run ([`PythonPerBatch`]); where
//! a run has that probe, the per-batch costs take its factor and the start
//! keeps its own two ratios, for the two need not move together (on an AMD
//! machine of 2026-12-04 the start read x0.55 and the per-batch path about
//! x0.30: loop and worker 181 + 254 µs against the figures' 631 + 824 at
//! batch 4; docs/log/2026-12-04-intel-grid-start-and-no-step.md, "The
//! per-batch path, probed").

use serde::Serialize;

use super::calibration::{
    FIGURES_FORK_MS, FIGURES_LOOP_PER_BATCH_US, FIGURES_SETUP_MS, FIGURES_WORKER_PER_BATCH_US,
    PYTORCH_RECEIVE_MS, PYTORCH_SEND_MS, per_batch_figure,
};
use super::config::Transport;
use super::outside_load;
use super::run_file::{BenchRun, PythonPerBatch, PythonStart};
use super::settings::{MAX_PYTHON_COST_SCALE, Settings};

/// An engine cost this close to the machine's (as a ratio) models the
/// machine.
const MODELLED_WITHIN: f64 = 0.10;

/// The smallest factor a setting models: below it, the hand-off's costs at
/// the two places the flags take round to 0 ms (no such cost at all), and
/// a run with them would still not be this machine.
pub const LEAST_FACTOR: f64 = 0.05;

/// This machine's Python against the figures' machine.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PythonSpeed {
    /// What PyTorch spent starting its workers here.
    pub measured: PythonStart,
    /// The same on the figures' machine.
    pub figures_fork_ms: f64,
    pub figures_setup_ms: f64,
    /// Each measured figure over the figures' machine's, to two places:
    /// the factor can hide two ratios far apart.
    pub fork_ratio: f64,
    pub setup_ratio: f64,
    /// The geometric mean of the two ratios, to two places.
    pub start_factor: f64,
    /// The per-batch probe against the figures, where the run has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_batch: Option<PerBatchSpeed>,
    /// What `--python-cost-scale` would be to model this machine: the
    /// per-batch probe's ratio where the run has one, else the start's.
    pub factor: f64,
    /// The higher share other processes took while PyTorch ran: of its own
    /// CPUs (the median over its configurations) or of the CPUs it did not
    /// use; None where neither was measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub busy: Option<f64>,
    /// Whether `busy` is the share of the CPUs the run did not use.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub busy_elsewhere: bool,
    /// The engine settings that model this machine: what
    /// `--calibrate-to-pytorch` runs; None when the factor is outside what
    /// the engine can run at (`LEAST_FACTOR` to the scale's limit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub models_it: Option<ModelledCosts>,
}

/// PyTorch's per-batch path here against the figures' machine.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PerBatchSpeed {
    pub measured: PythonPerBatch,
    /// The same on the figures' machine, at the probe's batch size.
    pub figures_loop_us: f64,
    pub figures_worker_us: f64,
    /// Each measured figure over the figures' machine's, to two places.
    pub loop_ratio: f64,
    pub worker_ratio: f64,
    /// The loop's and the worker's CPU together over the figures'
    /// together, to two places: what a batch costs the machine's CPUs.
    pub ratio: f64,
}

impl PerBatchSpeed {
    /// None when a figure is not a positive number.
    pub fn of(measured: PythonPerBatch) -> Option<(Self, f64)> {
        let figures_loop_us = per_batch_figure(FIGURES_LOOP_PER_BATCH_US, measured.batch_size);
        let figures_worker_us = per_batch_figure(FIGURES_WORKER_PER_BATCH_US, measured.batch_size);
        let raw = (measured.loop_us + measured.worker_us) / (figures_loop_us + figures_worker_us);
        let positive = |x: f64| x.is_finite() && x > 0.0;
        if !(positive(measured.loop_us) && positive(measured.worker_us) && positive(raw)) {
            return None;
        }
        Some((
            PerBatchSpeed {
                measured,
                figures_loop_us,
                figures_worker_us,
                loop_ratio: two_places(measured.loop_us / figures_loop_us),
                worker_ratio: two_places(measured.worker_us / figures_worker_us),
                ratio: two_places(raw),
            },
            raw,
        ))
    }

    /// One clause: what the per-batch path cost here against the figures.
    fn measured_text(&self) -> String {
        let m = &self.measured;
        format!(
            "per batch of {}, hot, its loop spent {:.0} µs and one worker {:.0} µs \
             ({} of {:.0} µs and {} of {:.0} µs), medians of {} probe{}: {} together",
            m.batch_size,
            m.loop_us,
            m.worker_us,
            ratio_text(self.loop_ratio),
            self.figures_loop_us,
            ratio_text(self.worker_ratio),
            self.figures_worker_us,
            m.probes,
            if m.probes == 1 { "" } else { "s" },
            ratio_text(self.ratio),
        )
    }
}

/// The engine's Python costs and hand-off costs at a machine's factor.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ModelledCosts {
    pub python_cost_scale: f64,
    /// The workers' start: the loop's fork and a worker's set-up (with its
    /// first batches), each at its own ratio.
    pub fork_cost_scale: f64,
    pub setup_cost_scale: f64,
    pub receive_ms: f64,
    /// None for the pipe, whose workers have no sending threads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub send_ms: Option<f64>,
}

impl ModelledCosts {
    /// What a run of `settings` ran with.
    pub fn ran(settings: &Settings) -> Self {
        ModelledCosts::new(
            settings.python_cost_scale,
            settings.start_scales(),
            settings.receive_ms,
            settings.send_ms,
            settings.transport,
        )
    }

    /// Whether the workers' start ran at scales of its own.
    pub fn start_apart(&self) -> bool {
        self.fork_cost_scale != self.python_cost_scale
            || self.setup_cost_scale != self.python_cost_scale
    }

    /// The workers' start where it ran at scales of its own, in words:
    /// `x0.3 for the fork and x0.54 for the set-up`.
    pub fn start_text(&self) -> Option<String> {
        self.start_apart().then(|| {
            format!(
                "x{} for the fork and x{} for the set-up",
                crate::text::format::setting(self.fork_cost_scale),
                crate::text::format::setting(self.setup_cost_scale)
            )
        })
    }

    /// The costs `python_cost_scale`, the start's `fork_cost_scale` and
    /// `setup_cost_scale`, `receive_ms` and `send_ms` as a run over
    /// `transport` uses them: the send cost only where the hand-off has
    /// sending threads (not the pipe).
    pub fn new(
        python_cost_scale: f64,
        (fork_cost_scale, setup_cost_scale): (f64, f64),
        receive_ms: f64,
        send_ms: f64,
        transport: Transport,
    ) -> Self {
        ModelledCosts {
            python_cost_scale,
            fork_cost_scale,
            setup_cost_scale,
            receive_ms,
            send_ms: (transport != Transport::Pipe).then_some(send_ms),
        }
    }
}

impl PythonSpeed {
    /// A PyTorch run's, from the start its harness measured, beside the
    /// engine settings `engine` (the run to model it in); None for a run
    /// of the embedded engine or one without a start.
    pub fn of_run(run: &BenchRun, engine: &Settings) -> Option<Self> {
        let reference = run.reference.as_ref()?;
        let mut speed = Self::of(reference.start?, reference.per_batch, engine.transport)?;
        // The start is a median over the configurations, so one busy
        // configuration moves it little; the load most of them ran under
        // does.
        let own: Vec<f64> = run
            .results
            .iter()
            .filter_map(|c| c.summary.outside)
            .collect();
        let own = (!own.is_empty()).then(|| super::stats::median(&own));
        speed.busy_elsewhere = match (own, reference.elsewhere_busy) {
            (Some(own), Some(elsewhere)) => elsewhere > own,
            (None, Some(_)) => true,
            _ => false,
        };
        speed.busy = own
            .into_iter()
            .chain(reference.elsewhere_busy)
            .reduce(f64::max)
            .map(two_places);
        Some(speed)
    }

    /// None when a figure of the start is not a positive number (no start
    /// was measured); a per-batch probe that is not is left out.
    pub fn of(
        measured: PythonStart,
        per_batch: Option<PythonPerBatch>,
        transport: Transport,
    ) -> Option<Self> {
        let fork = measured.fork_ms / FIGURES_FORK_MS;
        let setup = measured.setup_ms / FIGURES_SETUP_MS;
        let start_factor = (fork * setup).sqrt();
        if !(start_factor.is_finite() && start_factor > 0.0) {
            return None;
        }
        let per_batch = per_batch.and_then(PerBatchSpeed::of);
        let raw = per_batch.map_or(start_factor, |(_, raw)| raw);
        let per_batch = per_batch.map(|(speed, _)| speed);
        let factor = two_places(raw);
        let start_runs = |r: f64| r > 0.0 && two_places(r) <= MAX_PYTHON_COST_SCALE;
        let models_it = ((LEAST_FACTOR..=MAX_PYTHON_COST_SCALE).contains(&raw)
            && start_runs(fork)
            && start_runs(setup))
        .then(|| {
            ModelledCosts::new(
                factor,
                (two_places(fork), two_places(setup)),
                two_places(PYTORCH_RECEIVE_MS * factor),
                two_places(PYTORCH_SEND_MS * factor),
                transport,
            )
        });
        Some(PythonSpeed {
            measured,
            figures_fork_ms: FIGURES_FORK_MS,
            figures_setup_ms: FIGURES_SETUP_MS,
            fork_ratio: two_places(fork),
            setup_ratio: two_places(setup),
            start_factor: two_places(start_factor),
            per_batch,
            factor,
            busy: None,
            busy_elsewhere: false,
            models_it,
        })
    }

    /// Whether other processes took enough of the machine while PyTorch
    /// ran to move the factor: a loaded machine, even on CPUs the run did
    /// not use, slows Python's start (a build on the other CPU of this
    /// machine kind has read x1.0 to x1.3 where the quiet machine read
    /// x0.7 to x0.8).
    pub fn read_busy(&self) -> bool {
        self.busy.is_some_and(outside_load::is_disturbed)
    }

    /// Who took how much while PyTorch ran, in words, when it was enough to
    /// move the factor: `other processes took 99% of the CPUs the run did
    /// not use`.
    pub fn busy_text(&self) -> Option<String> {
        let busy = self.busy.filter(|_| self.read_busy())?;
        Some(format!(
            "other processes took {:.0}% of {} while PyTorch ran",
            busy * 100.0,
            if self.busy_elsewhere {
                "the CPUs the run did not use"
            } else {
                "the run's own CPUs"
            }
        ))
    }

    /// Whether engine settings model this machine's Python: the scale and
    /// the hand-off's costs each within 10% of the machine's.
    pub fn modelled_by(&self, settings: &Settings) -> bool {
        let Some(m) = self.models_it else {
            return false;
        };
        let near =
            |ran: f64, machine: f64| ran > 0.0 && (ran / machine - 1.0).abs() <= MODELLED_WITHIN;
        let ran = ModelledCosts::ran(settings);
        near(ran.python_cost_scale, m.python_cost_scale)
            && near(ran.fork_cost_scale, m.fork_cost_scale)
            && near(ran.setup_cost_scale, m.setup_cost_scale)
            && near(ran.receive_ms, m.receive_ms)
            && m.send_ms.is_none_or(|send| near(settings.send_ms, send))
    }

    /// `settings` with the Python costs and the hand-off's at the factor
    /// (the send cost only where the hand-off has sending threads to spend
    /// it); None when the factor is outside what the engine can run at.
    pub fn scaled(&self, settings: &Settings) -> Option<Settings> {
        let m = self.models_it?;
        let mut s = settings.clone();
        s.python_cost_scale = m.python_cost_scale;
        s.fork_cost_scale = Some(m.fork_cost_scale);
        s.setup_cost_scale = Some(m.setup_cost_scale);
        s.receive_ms = m.receive_ms;
        if let Some(send) = m.send_ms {
            s.send_ms = send;
        }
        Some(s)
    }

    /// One sentence: what PyTorch's start cost here against the figures,
    /// and its per-batch path where the run probed it.
    pub fn measured_text(&self) -> String {
        let per_batch = self
            .per_batch
            .map(|p| format!("; {}, the factor of the per-batch costs", p.measured_text()))
            .unwrap_or_default();
        format!(
            "PyTorch's loop spent {} ms of CPU forking each worker ({} of the engine's figure, {} ms) \
             and a worker {} ms setting itself up ({} of {} ms), medians of {} worker starts: {} together{per_batch}",
            ms_text(self.measured.fork_ms),
            ratio_text(self.fork_ratio),
            crate::text::format::setting(self.figures_fork_ms),
            ms_text(self.measured.setup_ms),
            ratio_text(self.setup_ratio),
            crate::text::format::setting(self.figures_setup_ms),
            self.measured.workers,
            ratio_text(self.start_factor),
        )
    }
}

/// `x` rounded to two decimal places, as the factor and the flags print;
/// below 0.01, to two significant digits, so that a tiny factor does not
/// read as none.
fn two_places(x: f64) -> f64 {
    if x > 0.0 && x < 0.01 {
        let scale = 10f64.powi(1 - x.log10().floor() as i32);
        return (x * scale).round() / scale;
    }
    (x * 100.0).round() / 100.0
}

/// A CPU time as the line prints it: one place, or the value when smaller.
fn ms_text(ms: f64) -> String {
    if ms > 0.0 && ms < 0.05 {
        crate::text::format::setting(ms)
    } else {
        format!("{ms:.1}")
    }
}

/// A ratio as the line prints it: `x0.68`, or `x0.00042` when tiny.
fn ratio_text(x: f64) -> String {
    if x > 0.0 && x < 0.01 {
        format!("x{}", crate::text::format::setting(x))
    } else {
        format!("x{x:.2}")
    }
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

    fn speed(fork_ms: f64, setup_ms: f64, transport: Transport) -> Option<PythonSpeed> {
        PythonSpeed::of(start(fork_ms, setup_ms), None, transport)
    }

    #[test]
    fn the_factor_is_this_machines_start_against_the_figures() {
        // The figures as measured: the Python costs at x1, the start at
        // the Python scale.
        let defaults = Settings {
            python_cost_scale: 1.0,
            fork_cost_scale: None,
            setup_cost_scale: None,
            receive_ms: PYTORCH_RECEIVE_MS,
            send_ms: PYTORCH_SEND_MS,
            ..Settings::chapter_defaults()
        };
        let same = speed(FIGURES_FORK_MS, FIGURES_SETUP_MS, defaults.transport).unwrap();
        assert_eq!(
            (same.fork_ratio, same.setup_ratio, same.factor),
            (1.0, 1.0, 1.0)
        );
        assert!(same.modelled_by(&defaults));
        // The machine of 2026-12-02: 12.0 and 16.5 ms.
        let faster = speed(12.0, 16.5, defaults.transport).unwrap();
        assert_eq!(
            (faster.fork_ratio, faster.setup_ratio, faster.factor),
            (0.67, 0.69, 0.68)
        );
        assert!(!faster.modelled_by(&defaults));
        let s = faster.scaled(&defaults).unwrap();
        assert_eq!(
            (s.python_cost_scale, s.receive_ms, s.send_ms),
            (0.68, 0.29, 0.24)
        );
        assert!(faster.modelled_by(&s));
        let mut none = s.clone();
        none.python_cost_scale = 0.0;
        assert!(
            !faster.modelled_by(&none),
            "scale 0 models no Python at all"
        );
        let mut receive_off = s.clone();
        receive_off.receive_ms = defaults.receive_ms;
        assert!(
            !faster.modelled_by(&receive_off),
            "the hand-off's costs count as well as the scale"
        );
        assert!(speed(0.0, 16.5, defaults.transport).is_none());
        assert!(speed(f64::NAN, 16.5, defaults.transport).is_none());
    }

    #[test]
    fn the_start_is_calibrated_by_its_own_two_ratios() {
        let defaults = Settings::chapter_defaults();
        // The Intel machine of 2026-12-04: a cheap fork, a dear set-up.
        let intel = speed(5.4, 13.2, defaults.transport).unwrap();
        assert_eq!(
            (intel.fork_ratio, intel.setup_ratio, intel.factor),
            (0.3, 0.55, 0.41)
        );
        let s = intel.scaled(&defaults).unwrap();
        assert_eq!(s.python_cost_scale, 0.41);
        assert_eq!(
            (s.fork_cost_scale, s.setup_cost_scale),
            (Some(0.3), Some(0.55))
        );
        assert!(intel.modelled_by(&s));
        // The factor alone, on the start too, is not this machine.
        let mut one_factor = s.clone();
        one_factor.fork_cost_scale = None;
        one_factor.setup_cost_scale = None;
        assert!(!intel.modelled_by(&one_factor));
        let ran = ModelledCosts::ran(&one_factor);
        assert_eq!((ran.fork_cost_scale, ran.setup_cost_scale), (0.41, 0.41));
        assert!(!ran.start_apart() && ModelledCosts::ran(&s).start_apart());
    }

    fn probe(batch_size: usize, loop_us: f64, worker_us: f64) -> PythonPerBatch {
        PythonPerBatch {
            batch_size,
            loop_us,
            worker_us,
            probes: 6,
        }
    }

    #[test]
    fn a_per_batch_probe_sets_the_per_batch_costs_and_the_start_keeps_its_ratios() {
        let defaults = Settings::chapter_defaults();
        // The AMD machine of 2026-12-04: its start at about x0.55, its
        // per-batch path at batch 4 nearer x0.4 (the figures: 631 µs of
        // the loop and 824 µs of a worker).
        let amd = PythonSpeed::of(
            start(0.56 * FIGURES_FORK_MS, 0.54 * FIGURES_SETUP_MS),
            Some(probe(4, 240.0, 340.0)),
            defaults.transport,
        )
        .unwrap();
        let p = amd.per_batch.unwrap();
        assert_eq!((p.figures_loop_us, p.figures_worker_us), (630.6, 824.4));
        assert_eq!((p.loop_ratio, p.worker_ratio, p.ratio), (0.38, 0.41, 0.4));
        assert_eq!((amd.start_factor, amd.factor), (0.55, 0.4));
        let s = amd.scaled(&defaults).unwrap();
        assert_eq!(
            (s.python_cost_scale, s.receive_ms, s.send_ms),
            (0.4, 0.17, 0.14)
        );
        assert_eq!(
            (s.fork_cost_scale, s.setup_cost_scale),
            (Some(0.56), Some(0.54))
        );
        assert!(amd.modelled_by(&s));
        // At the start's factor the per-batch costs are not this machine.
        let mut at_start = s.clone();
        at_start.python_cost_scale = 0.55;
        assert!(!amd.modelled_by(&at_start));
        let text = amd.measured_text();
        assert!(
            text.contains(
                "x0.55 together; per batch of 4, hot, its loop spent 240 µs and one worker 340 µs \
                 (x0.38 of 631 µs and x0.41 of 824 µs), medians of 6 probes: x0.40 together, \
                 the factor of the per-batch costs"
            ),
            "{text}"
        );
        // A probe the load swamped measures nothing: the start's factor.
        let swamped = PythonSpeed::of(
            start(0.56 * FIGURES_FORK_MS, 0.54 * FIGURES_SETUP_MS),
            Some(probe(4, 0.0, 340.0)),
            defaults.transport,
        )
        .unwrap();
        assert_eq!((swamped.per_batch, swamped.factor), (None, 0.55));
    }

    #[test]
    fn the_pipe_keeps_its_send_cost_for_it_has_no_sending_threads() {
        let mut pipe = Settings::chapter_defaults();
        pipe.transport = Transport::Pipe;
        pipe.send_ms = 0.0;
        let faster = speed(12.0, 16.5, Transport::Pipe).unwrap();
        assert_eq!(faster.models_it.unwrap().send_ms, None);
        let s = faster.scaled(&pipe).unwrap();
        assert_eq!(s.send_ms, 0.0);
        assert!(faster.modelled_by(&s));
    }

    #[test]
    fn a_factor_the_engine_cannot_run_at_models_nothing() {
        let defaults = Settings::chapter_defaults();
        // Too small for the hand-off's costs to print as more than 0 ms,
        // and past the scale's limit.
        for (fork, setup) in [(0.00001, 0.00001), (0.1, 0.1), (1e6, 1e6)] {
            let s = speed(fork, setup, defaults.transport).unwrap();
            assert_eq!(s.models_it, None, "{fork} ms");
            assert_eq!(s.scaled(&defaults), None);
            assert!(!s.modelled_by(&defaults));
        }
    }

    #[test]
    fn a_tiny_factor_reads_as_tiny_not_as_none() {
        let s = speed(0.00001, 0.00001, Transport::SharedFd).unwrap();
        assert!(s.factor > 0.0 && s.factor < 0.001, "{}", s.factor);
        let text = s.measured_text();
        assert!(text.contains("x0.00000048 together"), "{text}");
        // The least factor that models the machine still has costs to set.
        let least = speed(
            LEAST_FACTOR * FIGURES_FORK_MS,
            LEAST_FACTOR * FIGURES_SETUP_MS,
            Transport::SharedFd,
        )
        .unwrap();
        let m = least.models_it.unwrap();
        assert!(m.receive_ms > 0.0 && m.send_ms.unwrap() > 0.0, "{m:?}");
    }

    #[test]
    fn a_machine_busier_than_five_percent_reads_busy() {
        let mut s = speed(12.0, 16.5, Transport::SharedFd).unwrap();
        assert!(!s.read_busy(), "not measured");
        s.busy = Some(0.03);
        assert!(!s.read_busy());
        s.busy = Some(0.4);
        assert!(s.read_busy());
        s.busy_elsewhere = true;
        assert_eq!(
            s.busy_text().unwrap(),
            "other processes took 40% of the CPUs the run did not use while PyTorch ran"
        );
    }

    #[test]
    fn one_ratio_far_from_the_other_shows_beside_a_factor_of_one() {
        let s = speed(
            0.7 * FIGURES_FORK_MS,
            1.43 * FIGURES_SETUP_MS,
            Transport::SharedFd,
        )
        .unwrap();
        assert_eq!((s.fork_ratio, s.setup_ratio, s.factor), (0.7, 1.43, 1.0));
        let text = s.measured_text();
        assert!(text.contains("x0.70") && text.contains("x1.43"), "{text}");
    }
}
