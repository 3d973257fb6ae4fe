//! Which steps a run's ex/s, wait and work are taken over: its window.
//!
//! A published table whose every row has
//! `ex/s = 1000 x batch / (wait_mean + work)` took its throughput over the same training steps as its wait
//! and work columns: the loop's steady state, with the workers' start, the
//! pipeline's fill and its drain outside (chapter 06's tables are of this
//! kind). A steady-state window therefore starts after a warm-up that
//! covers the start and the fill, and ends while the pipeline is still full:
//! the dataset holds `tail` more batches, handed out while the measured
//! steps run and never measured. A whole-run window starts at the loader's
//! creation and ends with the last batch; it is how runs made before
//! windows were measured (docs/engine.md, "The window").

use serde::{Deserialize, Serialize};

/// What a run's (or a published table's) ex/s is taken over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WindowKind {
    /// The measured steps only, after a warm-up and before the pipeline
    /// drains: ex/s = batch / (wait_mean + work), step by step.
    SteadyState,
    /// From the loader's creation to the last batch: the workers' start,
    /// the fill and the drain inside.
    WholeRun,
}

impl WindowKind {
    /// In words, after "ex/s over": `the measured steps (a steady-state
    /// window)`.
    pub fn in_words(self) -> &'static str {
        match self {
            WindowKind::SteadyState => "the measured steps: a steady-state window",
            WindowKind::WholeRun => {
                "the whole run, from the loader's creation: the workers' start in the window"
            }
        }
    }

    /// A short label: `steady-state window`.
    pub fn label(self) -> &'static str {
        match self {
            WindowKind::SteadyState => "steady-state window",
            WindowKind::WholeRun => "whole-run window",
        }
    }
}

impl std::fmt::Display for WindowKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            WindowKind::SteadyState => "steady-state",
            WindowKind::WholeRun => "whole-run",
        })
    }
}

/// Run files written before windows: their ex/s was taken from the
/// loader's creation (or, with a warm-up, up to a drained pipeline's end),
/// never over a steady state.
pub fn whole_run_before_windows() -> WindowKind {
    WindowKind::WholeRun
}

/// Warm-up steps a steady-state window waits at least, beyond the fill:
/// enough for the first batches (cold caches, a worker's first Python) to
/// be behind it and the step time to have settled (measured in
/// docs/engine.md, "The window").
pub const SETTLE_BATCHES: u64 = 4;

/// The most a configuration's measured steps are multiplied by where its
/// steady step is short (see [`short_step_scale`]).
pub const MAX_SHORT_STEP_SCALE: u64 = 8;

/// How many times `batches` a configuration measures so that its window
/// lasts about as long as one whose step is the slowest: the step with no
/// workers (`slowest_ms`, batch x cost + consumer) over the step its
/// schedule reaches in a steady state (`steady_ms`), whole, from 1 to
/// [`MAX_SHORT_STEP_SCALE`].
pub fn short_step_scale(slowest_ms: f64, steady_ms: f64) -> u64 {
    if !(steady_ms > 0.0 && slowest_ms.is_finite()) {
        return if slowest_ms > 0.0 {
            MAX_SHORT_STEP_SCALE
        } else {
            1
        };
    }
    ((slowest_ms / steady_ms).floor() as u64).clamp(1, MAX_SHORT_STEP_SCALE)
}

/// Counts in words, as the footers give them: `20`, or `20 to 160` for
/// the least and the most; None for no count.
pub fn span(counts: impl IntoIterator<Item = u64>) -> Option<String> {
    let (lo, hi) = counts
        .into_iter()
        .fold(None, |acc: Option<(u64, u64)>, n| match acc {
            None => Some((n, n)),
            Some((lo, hi)) => Some((lo.min(n), hi.max(n))),
        })?;
    Some(if lo == hi {
        lo.to_string()
    } else {
        format!("{lo} to {hi}")
    })
}

/// The steps of one configuration's run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowPlan {
    pub kind: WindowKind,
    /// Steps after the first and before the measured ones.
    pub warmup: u64,
    /// Measured steps.
    pub measured: u64,
    /// Batches the dataset holds after the measured ones, handed out while
    /// they run, never taken by the loop.
    pub tail: u64,
}

impl WindowPlan {
    /// The plan for `workers` workers with `prefetch_factor`: with a
    /// steady-state window, a warm-up of the fill (`prefetch_factor x
    /// workers` batches, all handed out as the workers start) and
    /// [`SETTLE_BATCHES`], and at least `min_warmup`; a tail of the fill, so
    /// the pipeline is as full at the window's end as at its start; and
    /// measured steps rounded up to a whole number of turns of the workers
    /// (a multiple of `workers`). Batches go to the workers round robin, so
    /// a steady state repeats itself every `workers` steps: a window of
    /// whole turns ends in the phase it started in, and holds no more and
    /// no less of the workers' work than its steps took (on one CPU, eight
    /// spinning workers finish their batches together; a window that
    /// started with four of a wave delivered and ended with none would
    /// count four batches the CPU made before it). With a whole-run window,
    /// none of this.
    pub fn of(
        kind: WindowKind,
        workers: usize,
        prefetch_factor: usize,
        min_warmup: u64,
        measured: u64,
    ) -> WindowPlan {
        match kind {
            WindowKind::WholeRun => WindowPlan {
                kind,
                warmup: min_warmup,
                measured,
                tail: 0,
            },
            WindowKind::SteadyState => {
                let fill = (prefetch_factor * workers) as u64;
                let turn = (workers as u64).max(1);
                WindowPlan {
                    kind,
                    warmup: min_warmup.max(fill + SETTLE_BATCHES),
                    measured: measured.div_ceil(turn).saturating_mul(turn),
                    tail: fill,
                }
            }
        }
    }

    /// Steps the loop takes: the first, the warm-up, the measured.
    pub fn taken(&self) -> u64 {
        1 + self.warmup + self.measured
    }

    /// Batches the dataset holds: those taken and the tail.
    pub fn dataset(&self) -> u64 {
        self.taken() + self.tail
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_steady_window_covers_the_fill_and_keeps_the_pipeline_full() {
        let p = WindowPlan::of(WindowKind::SteadyState, 8, 2, 0, 100);
        assert_eq!(p.warmup, 16 + SETTLE_BATCHES);
        assert_eq!(p.tail, 16);
        assert_eq!(p.measured, 104, "whole turns of the 8 workers");
        assert_eq!(p.taken(), 1 + p.warmup + 104);
        assert_eq!(p.dataset(), p.taken() + 16);
        let p = WindowPlan::of(WindowKind::SteadyState, 3, 2, 0, 20);
        assert_eq!(p.measured, 21);
        // A larger warm-up asked for is kept; no workers, no tail.
        let p = WindowPlan::of(WindowKind::SteadyState, 0, 2, 50, 20);
        assert_eq!((p.warmup, p.tail), (50, 0));
        let p = WindowPlan::of(WindowKind::SteadyState, 0, 2, 0, 20);
        assert_eq!(p.warmup, SETTLE_BATCHES);
    }

    #[test]
    fn short_steps_measure_more_of_them_up_to_the_bound() {
        // Chapter 06: 72 ms with no workers; 8 sleeping workers reach a step
        // of 8 ms (the consumer), 2 reach 32.
        assert_eq!(short_step_scale(72.0, 72.0), 1);
        assert_eq!(short_step_scale(72.0, 32.0), 2);
        assert_eq!(short_step_scale(72.0, 16.0), 4);
        assert_eq!(short_step_scale(72.0, 8.0), MAX_SHORT_STEP_SCALE);
        assert_eq!(short_step_scale(72.0, 0.0), MAX_SHORT_STEP_SCALE);
        assert_eq!(short_step_scale(0.0, 0.0), 1);
        assert_eq!(short_step_scale(72.0, 100.0), 1, "never fewer");
    }

    #[test]
    fn a_span_is_one_count_or_the_least_to_the_most() {
        assert_eq!(span([20, 160, 40]).as_deref(), Some("20 to 160"));
        assert_eq!(span([20, 20]).as_deref(), Some("20"));
        assert_eq!(span([]), None);
    }

    #[test]
    fn a_whole_run_window_has_no_tail() {
        let p = WindowPlan::of(WindowKind::WholeRun, 8, 2, 0, 20);
        assert_eq!((p.warmup, p.measured, p.tail), (0, 20, 0));
    }
}
