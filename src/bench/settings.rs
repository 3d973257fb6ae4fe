//! The settings of a whole benchmark (every producer against every worker
//! count), their defaults, and the checks every knob passes before anything
//! runs. A failed check is a typed [`SettingsError`] naming the knob (defined
//! with the other errors in `error.rs`); only the command line turns a knob
//! into a flag name.

use serde::{Deserialize, Serialize};

use super::calibration::{
    CPYTHON_SWITCH_INTERVAL_MS, DEFAULT_RECEIVE_MS, DEFAULT_SEND_MS, FORK_COST_SCALE,
    PYTHON_COST_SCALE, SETUP_COST_SCALE,
};
use super::config::{self, PipelineConfig, ProducerKind, ProducerSpec, WorkerKind};
use super::window::{WindowKind, WindowPlan};
pub use crate::error::{Knob, SettingsError};

/// Measured batches per configuration by default: the whole default run
/// (ten configurations on one CPU) then takes about 50 s.
pub const DEFAULT_BATCHES: u64 = 90;

/// Upper bound on a worker count, so a typo cannot start a run of days.
pub const MAX_WORKERS: usize = 256;

/// Upper bound on a per-sample or per-batch cost, in ms.
pub const MAX_COST_MS: f64 = 60_000.0;
/// Upper bound on samples per batch.
pub const MAX_BATCH_SIZE: usize = 65_536;
/// Upper bound on floats per sample.
pub const MAX_SAMPLE_FLOATS: usize = 1 << 20;
/// Upper bound on the floats of one batch (batch size x floats per sample):
/// 64 MiB of data.
pub const MAX_BATCH_FLOATS: usize = 1 << 24;
/// Upper bound on measured (and on warm-up) batches per configuration.
pub const MAX_BATCHES: u64 = 1_000_000;
/// Upper bound on runs per configuration.
pub const MAX_REPEAT: usize = 100;
/// Upper bound on rounds (every configuration once per round).
pub const MAX_ROUNDS: usize = 100;
/// How long the rounds of a run may take by default before no re-run,
/// wait for a quiet machine or extra round starts, in s: about twice what
/// chapter 06's default `reproduce` takes on a quiet 2-core machine.
pub const DEFAULT_BUDGET_S: f64 = 180.0;
/// Upper bound on the budget, in s (a day).
pub const MAX_BUDGET_S: f64 = 86_400.0;
/// Upper bound on batches each worker may have outstanding.
pub const MAX_PREFETCH: usize = 64;
/// Upper bound on the CPUs a run is restricted to.
pub const MAX_CPUS: usize = 4096;
/// Upper bound on the timer slack, in ns (one second).
pub const MAX_TIMER_SLACK_NS: u64 = 1_000_000_000;
/// Why a timer slack of 0 is refused, wherever it is given.
pub const ZERO_TIMER_SLACK: &str = "0 gives the thread the kernel's default slack (50000 ns) while the run would record 0: give 1 or more";
/// The knobs of the embedded engine's model, by their names in a run file:
/// the hand-off, its costs, the interpreter locks, the Python costs, the
/// samples' seed.
pub const MODEL_KNOBS: [&str; 8] = [
    "transport",
    "receive_ms",
    "send_ms",
    "switch_interval_ms",
    "python_cost_scale",
    "fork_cost_scale",
    "setup_cost_scale",
    "seed",
];
/// Upper bound on the scale of the modelled Python costs.
pub const MAX_PYTHON_COST_SCALE: f64 = 100.0;

/// A whole benchmark: every producer against every worker count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub producers: Vec<ProducerKind>,
    /// Per-sample producer cost.
    pub cost_ms: f64,
    pub batch_size: usize,
    /// Consumer's CPU work per batch.
    pub consumer_ms: f64,
    pub workers: Vec<usize>,
    /// Measured batches per configuration.
    pub batches: u64,
    /// Batches run before measuring: with a steady-state window, the least
    /// warm-up (each configuration's plan may take more, see
    /// [`WindowPlan::of`]); with a whole-run window, 0.
    pub warmup_batches: u64,
    /// What ex/s is taken over (run files written before windows: the
    /// whole run).
    #[serde(default = "super::window::whole_run_before_windows")]
    pub window: WindowKind,
    /// With a steady-state window: a configuration whose steady step is
    /// short measures `batches` times [`super::window::short_step_scale`]
    /// steps, so its window lasts about as long as the slowest one's
    /// (`reproduce` sets it; run files written before it had none).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub more_steps_when_short: bool,
    /// Runs per configuration in each round, back to back.
    pub repeat: usize,
    /// Rounds at least: every configuration once per round, in the same
    /// order (run files written before rounds had one).
    #[serde(default = "one_round")]
    pub rounds: usize,
    /// Wall time in s after which no re-run of a disturbed configuration,
    /// wait for a quiet machine or extra round starts (None: none of them
    /// is made; run files written before rounds had none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_s: Option<f64>,
    /// Batches each worker may have outstanding.
    pub prefetch_factor: usize,
    /// CPUs the run was restricted to (None: whatever the process had).
    pub cpus: Option<usize>,
    pub worker_kind: WorkerKind,
    /// Deliver batches in index order (else the first ready).
    pub in_order: bool,
    /// Seed of the samples' contents.
    pub seed: u64,
    /// Floats per sample tensor.
    pub sample_floats: usize,
    /// Timer slack for the run, in ns.
    pub timer_slack_ns: u64,
    /// Test aid: (batch index, extra ms) to slow one batch down.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_batch: Option<(u64, u64)>,
    /// Watchdog limit in ms (None: the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watchdog_ms: Option<u64>,
    /// How process workers hand batches over (run files written before this
    /// knob existed used the pipe).
    #[serde(default = "pipe_before_transports")]
    pub transport: super::config::Transport,
    /// Loop CPU per batch taken in from a worker process, in ms (run files
    /// written before this knob existed had none).
    #[serde(default)]
    pub receive_ms: f64,
    /// Worker CPU per batch for handing it off through helper threads, in
    /// ms (run files written before this knob existed had none).
    #[serde(default)]
    pub send_ms: f64,
    /// The switch interval of the modelled interpreter lock of the loop's
    /// process and of each worker process, in ms; 0 for none (run files
    /// written before this knob existed had none).
    #[serde(default)]
    pub switch_interval_ms: f64,
    /// Scale of the modelled Python CPU beyond the hand-off (each sample's
    /// call and tensor, collating, the index queues, the loop's
    /// bookkeeping; see `python_costs.rs`): 1 as measured on PyTorch 2.15,
    /// 0 for none (run files written before this knob existed had none).
    #[serde(default)]
    pub python_cost_scale: f64,
    /// Scale of the loop's CPU forking each worker, where it is not
    /// `python_cost_scale`: `--calibrate-to-pytorch` sets it to the ratio
    /// PyTorch's start measured for the fork (None: `python_cost_scale`,
    /// as in run files written before this knob existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fork_cost_scale: Option<f64>,
    /// Scale of a worker's set-up and of its first batches' extra CPU,
    /// where it is not `python_cost_scale`: `--calibrate-to-pytorch` sets
    /// it to the ratio PyTorch's start measured for the set-up (None:
    /// `python_cost_scale`, as in run files written before this knob
    /// existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup_cost_scale: Option<f64>,
}

/// The first item `items` holds more than once.
fn twice<T: PartialEq>(items: &[T]) -> Option<&T> {
    items
        .iter()
        .enumerate()
        .find(|(i, x)| items[..*i].contains(x))
        .map(|(_, x)| x)
}

/// Run files written before rounds: one.
fn one_round() -> usize {
    1
}

/// Run files written before `transport` existed: their workers used the pipe.
fn pipe_before_transports() -> super::config::Transport {
    super::config::Transport::Pipe
}

impl Settings {
    /// The model's knobs (of [`MODEL_KNOBS`]) these settings record but do
    /// not run: thread workers have no hand-off, interpreter locks or
    /// Python costs; the pipe has no sending threads or interpreter lock.
    pub fn model_knobs_not_run(&self) -> &'static [&'static str] {
        if self.worker_kind == super::WorkerKind::Thread {
            &MODEL_KNOBS[..7]
        } else if self.transport == super::Transport::Pipe {
            &MODEL_KNOBS[2..4]
        } else {
            &[]
        }
    }

    /// These settings as the real DataLoader runs them: the knobs of the
    /// embedded engine's model (the hand-off, its costs, the interpreter
    /// lock, the Python costs, the samples' seed) at their defaults, since
    /// PyTorch has its own; what it does use (the experiment, the rounds,
    /// the CPUs, the timer slack) as given.
    pub fn as_pytorch_runs_them(&self) -> Settings {
        let d = Settings::chapter_defaults();
        Settings {
            transport: d.transport,
            receive_ms: d.receive_ms,
            send_ms: d.send_ms,
            switch_interval_ms: d.switch_interval_ms,
            python_cost_scale: d.python_cost_scale,
            fork_cost_scale: d.fork_cost_scale,
            setup_cost_scale: d.setup_cost_scale,
            seed: d.seed,
            ..self.clone()
        }
    }

    /// The chapter's experiment as published: sleep and spin, 2.0 ms/sample,
    /// batch 32, consumer 8 ms/batch, workers 0,1,2,4,8, on 1 CPU.
    pub fn chapter_defaults() -> Self {
        Settings {
            producers: vec![ProducerKind::Sleep, ProducerKind::Spin],
            cost_ms: 2.0,
            batch_size: 32,
            consumer_ms: 8.0,
            workers: vec![0, 1, 2, 4, 8],
            batches: DEFAULT_BATCHES,
            warmup_batches: 0,
            window: WindowKind::SteadyState,
            more_steps_when_short: false,
            repeat: 1,
            rounds: 1,
            budget_s: Some(DEFAULT_BUDGET_S),
            prefetch_factor: 2,
            cpus: Some(1),
            worker_kind: WorkerKind::Process,
            in_order: true,
            seed: 0,
            sample_floats: 64,
            timer_slack_ns: 1,
            delay_batch: None,
            watchdog_ms: None,
            // PyTorch's own hand-off on Linux, since the chapter is about it.
            transport: super::config::Transport::SharedFd,
            receive_ms: DEFAULT_RECEIVE_MS,
            send_ms: DEFAULT_SEND_MS,
            switch_interval_ms: CPYTHON_SWITCH_INTERVAL_MS,
            python_cost_scale: PYTHON_COST_SCALE,
            fork_cost_scale: Some(FORK_COST_SCALE),
            setup_cost_scale: Some(SETUP_COST_SCALE),
        }
    }

    /// Checks every knob before anything runs; the error names the first
    /// knob that cannot run and its value.
    pub fn check(&self) -> Result<(), SettingsError> {
        use Knob::*;
        for (knob, ms) in [
            (CostMs, self.cost_ms),
            (ConsumerMs, self.consumer_ms),
            (ReceiveMs, self.receive_ms),
            (SendMs, self.send_ms),
            (SwitchIntervalMs, self.switch_interval_ms),
        ] {
            if !ms.is_finite() || ms < 0.0 {
                return Err(SettingsError::new(
                    knob,
                    format!("must be a finite number >= 0, got {ms}"),
                ));
            }
            if ms > MAX_COST_MS {
                return Err(SettingsError::new(
                    knob,
                    format!("must be at most {MAX_COST_MS}, got {ms}"),
                ));
            }
        }
        let scale = self.python_cost_scale;
        if !scale.is_finite() || !(0.0..=MAX_PYTHON_COST_SCALE).contains(&scale) {
            return Err(SettingsError::new(
                PythonCostScale,
                format!("must be a number from 0 to {MAX_PYTHON_COST_SCALE}, got {scale}"),
            ));
        }
        for (knob, scale) in [
            (ForkCostScale, self.fork_cost_scale),
            (SetupCostScale, self.setup_cost_scale),
        ] {
            if scale.is_some() && self.python_cost_scale == 0.0 {
                return Err(SettingsError::new(
                    knob,
                    "scales a Python cost, and a Python cost scale of 0 runs none: drop it, or give a Python cost scale above 0",
                ));
            }
            if let Some(s) = scale
                && !(s.is_finite() && s > 0.0 && s <= MAX_PYTHON_COST_SCALE)
            {
                return Err(SettingsError::new(
                    knob,
                    format!("must be a number above 0, up to {MAX_PYTHON_COST_SCALE}, got {s}"),
                ));
            }
        }
        if let Some(s) = self.budget_s
            && !(s.is_finite() && (0.0..=MAX_BUDGET_S).contains(&s))
        {
            return Err(SettingsError::new(
                Budget,
                format!("must be a number of seconds from 0 to {MAX_BUDGET_S}, got {s}"),
            ));
        }
        let ranges: [(Knob, u64, u64, u64); 8] = [
            (BatchSize, self.batch_size as u64, 1, MAX_BATCH_SIZE as u64),
            (
                PrefetchFactor,
                self.prefetch_factor as u64,
                1,
                MAX_PREFETCH as u64,
            ),
            (Batches, self.batches, 1, MAX_BATCHES),
            (WarmupBatches, self.warmup_batches, 0, MAX_BATCHES),
            (Repeat, self.repeat as u64, 1, MAX_REPEAT as u64),
            (Rounds, self.rounds as u64, 1, MAX_ROUNDS as u64),
            (
                SampleFloats,
                self.sample_floats as u64,
                1,
                MAX_SAMPLE_FLOATS as u64,
            ),
            (TimerSlackNs, self.timer_slack_ns, 1, MAX_TIMER_SLACK_NS),
        ];
        if self.timer_slack_ns == 0 {
            // The kernel reads 0 as "back to this thread's default" (50 µs),
            // so the run would not have the slack it records.
            return Err(SettingsError::new(TimerSlackNs, ZERO_TIMER_SLACK));
        }
        for (knob, value, lo, hi) in ranges {
            if value < lo {
                return Err(SettingsError::new(
                    knob,
                    format!("must be at least {lo}, got {value}"),
                ));
            }
            if value > hi {
                return Err(SettingsError::new(
                    knob,
                    format!("must be at most {hi}, got {value}"),
                ));
            }
        }
        let floats = self.batch_size * self.sample_floats;
        if floats > MAX_BATCH_FLOATS {
            return Err(SettingsError::new(
                SampleFloats,
                format!(
                    "times the batch size must be at most {MAX_BATCH_FLOATS} floats per batch, got {} x {}",
                    self.sample_floats, self.batch_size
                ),
            ));
        }
        if self.window == WindowKind::WholeRun && self.warmup_batches > 0 {
            return Err(SettingsError::new(
                WarmupBatches,
                format!(
                    "{}: a whole-run window starts at the loader's creation, so it has no warm-up; give a steady-state window for one",
                    self.warmup_batches
                ),
            ));
        }
        if self.workers.is_empty() {
            return Err(SettingsError::new(
                Workers,
                "needs at least one worker count",
            ));
        }
        if let Some(w) = self.workers.iter().find(|w| **w > MAX_WORKERS) {
            return Err(SettingsError::new(
                Workers,
                format!("must be at most {MAX_WORKERS}, got {w}"),
            ));
        }
        if self.producers.is_empty() {
            return Err(SettingsError::new(Producers, "needs at least one producer"));
        }
        // A configuration listed twice would run twice under one name, and
        // its rows could not be told apart.
        if let Some(w) = twice(&self.workers) {
            return Err(SettingsError::new(Workers, format!("lists {w} twice")));
        }
        if let Some(p) = twice(&self.producers) {
            return Err(SettingsError::new(Producers, format!("lists {p} twice")));
        }
        if self.cpus == Some(0) {
            return Err(SettingsError::new(Cpus, "must be at least 1, got 0"));
        }
        if let Some(n) = self.cpus.filter(|n| *n > MAX_CPUS) {
            return Err(SettingsError::new(
                Cpus,
                format!("must be at most {MAX_CPUS}, got {n}"),
            ));
        }
        Ok(())
    }

    /// The error for a CPU count this process cannot have.
    pub fn too_many_cpus(requested: usize, available: &[usize]) -> SettingsError {
        SettingsError::new(
            Knob::Cpus,
            format!(
                "{requested}: this process may use {} CPU(s) ({})",
                available.len(),
                crate::text::format::list(available)
            ),
        )
    }

    /// The scales the workers' start runs at, (the fork, the set-up): each
    /// its own where given, else the Python cost scale.
    pub fn start_scales(&self) -> (f64, f64) {
        (
            self.fork_cost_scale.unwrap_or(self.python_cost_scale),
            self.setup_cost_scale.unwrap_or(self.python_cost_scale),
        )
    }

    /// The steps of one configuration.
    pub fn window_plan(&self, producer: ProducerKind, workers: usize) -> WindowPlan {
        let scale = if self.more_steps_when_short && self.window == WindowKind::SteadyState {
            super::window::short_step_scale(
                self.batch_size as f64 * self.cost_ms + self.consumer_ms,
                self.steady_step_ms(producer, workers),
            )
        } else {
            1
        };
        WindowPlan::of(
            self.window,
            workers,
            self.prefetch_factor,
            self.warmup_batches,
            self.batches.saturating_mul(scale).min(MAX_BATCHES),
        )
    }

    /// The step a configuration's schedule reaches in a steady state, in ms,
    /// with no overheads: a worker's batch over the workers, or the
    /// consumer, whichever is slower; for a producer that needs the CPU,
    /// no faster than all the CPU work of a step spread over the run's CPUs
    /// (when it fixes them).
    pub fn steady_step_ms(&self, producer: ProducerKind, workers: usize) -> f64 {
        let p = self.batch_size as f64 * self.cost_ms;
        let c = self.consumer_ms;
        if workers == 0 {
            return p + c;
        }
        let step = (p / workers as f64).max(c);
        match self.cpus {
            Some(n) if producer.needs_cpu() => step.max((p + c) / n as f64),
            _ => step,
        }
    }

    /// The configuration for one producer and worker count.
    pub fn pipeline(&self, producer: ProducerKind, workers: usize) -> PipelineConfig {
        let (fork_scale, setup_scale) = self.start_scales();
        let plan = self.window_plan(producer, workers);
        PipelineConfig {
            spec: ProducerSpec {
                producer,
                cost_ns: config::ms_to_ns(self.cost_ms),
                batch_size: self.batch_size,
                sample_floats: self.sample_floats,
                seed: self.seed,
                timer_slack_ns: self.timer_slack_ns,
                delay_batch: self.delay_batch,
                transport: self.transport,
                send_ns: config::ms_to_ns(self.send_ms),
                switch_interval_ns: config::ms_to_ns(self.switch_interval_ms),
                python_scale: self.python_cost_scale,
                fork_scale,
                setup_scale,
                socket_dir: None,
            },
            consumer_ns: config::ms_to_ns(self.consumer_ms),
            receive_ns: config::ms_to_ns(self.receive_ms),
            workers,
            prefetch_factor: self.prefetch_factor,
            worker_kind: self.worker_kind,
            in_order: self.in_order,
            batches: plan.measured,
            warmup_batches: plan.warmup,
            tail_batches: plan.tail,
            window: plan.kind,
            watchdog_ms: self.watchdog_ms,
        }
    }

    /// The planned steps in words, before a run: `a steady-state window of
    /// 20 to 160 measured steps a configuration after a warm-up of 4 to
    /// 20`, or `a whole-run window of 20 batches a configuration`.
    pub fn window_plan_text(&self) -> String {
        let plans: Vec<WindowPlan> = self
            .configurations()
            .into_iter()
            .map(|(p, w)| self.window_plan(p, w))
            .collect();
        let range = |f: fn(&WindowPlan) -> u64| {
            super::window::span(plans.iter().map(f)).unwrap_or_else(|| "0".into())
        };
        match self.window {
            WindowKind::SteadyState => format!(
                "a steady-state window of {} measured steps a configuration after a warm-up of {}",
                range(|p| p.measured),
                range(|p| p.warmup)
            ),
            WindowKind::WholeRun => format!(
                "a whole-run window of {} batches a configuration",
                self.batches
            ),
        }
    }

    /// Steps the loop takes in one round, every configuration over its
    /// repeats.
    pub fn steps_per_round(&self) -> u64 {
        let per: u64 = self
            .configurations()
            .into_iter()
            .map(|(p, w)| self.window_plan(p, w).taken())
            .sum();
        per * self.repeat as u64
    }

    /// Batches of the rounds asked for, over all repeats (re-runs and extra
    /// rounds come on top).
    pub fn total_steps(&self) -> u64 {
        self.steps_per_round() * self.rounds as u64
    }

    /// The configurations of one round, in the order they run.
    pub fn configurations(&self) -> Vec<(ProducerKind, usize)> {
        self.producers
            .iter()
            .flat_map(|&p| self.workers.iter().map(move |&w| (p, w)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chapter_defaults_pass_the_checks() {
        assert_eq!(Settings::chapter_defaults().check(), Ok(()));
    }

    #[test]
    fn settings_written_before_transports_and_hand_off_costs_read_as_what_ran() {
        let mut old = serde_json::to_value(Settings::chapter_defaults()).unwrap();
        let fields = old.as_object_mut().unwrap();
        fields.remove("transport");
        fields.remove("receive_ms");
        fields.remove("send_ms");
        fields.remove("switch_interval_ms");
        fields.remove("python_cost_scale");
        fields.remove("rounds");
        fields.remove("budget_s");
        let read: Settings = serde_json::from_value(old).unwrap();
        assert_eq!(read.rounds, 1, "one round");
        assert_eq!(read.budget_s, None);
        assert_eq!(read.transport, super::super::config::Transport::Pipe);
        assert_eq!(read.receive_ms, 0.0);
        assert_eq!(read.send_ms, 0.0);
        assert_eq!(read.switch_interval_ms, 0.0);
        assert_eq!(read.python_cost_scale, 0.0);
    }

    #[test]
    fn the_start_runs_at_the_python_scale_unless_given_its_own() {
        let mut s = Settings {
            python_cost_scale: 0.4,
            fork_cost_scale: None,
            setup_cost_scale: None,
            ..Settings::chapter_defaults()
        };
        let spec = |s: &Settings| s.pipeline(ProducerKind::Sleep, 8).spec;
        assert_eq!((spec(&s).fork_scale, spec(&s).setup_scale), (0.4, 0.4));
        s.fork_cost_scale = Some(0.3);
        s.setup_cost_scale = Some(0.55);
        assert_eq!(s.check(), Ok(()));
        assert_eq!((spec(&s).fork_scale, spec(&s).setup_scale), (0.3, 0.55));
        assert_eq!(spec(&s).python_scale, 0.4, "the rest keeps its scale");
        // A run file written before these knobs has neither: its start ran
        // at the Python scale.
        let mut old = serde_json::to_value(&s).unwrap();
        let fields = old.as_object_mut().unwrap();
        fields.remove("fork_cost_scale");
        fields.remove("setup_cost_scale");
        let read: Settings = serde_json::from_value(old).unwrap();
        assert_eq!((read.fork_cost_scale, read.setup_cost_scale), (None, None));
        // Not given, they are not written; the defaults give their own.
        s.fork_cost_scale = None;
        let plain = serde_json::to_value(&s).unwrap();
        assert!(plain.get("fork_cost_scale").is_none());
        let defaults = Settings::chapter_defaults();
        assert_eq!(
            (defaults.fork_cost_scale, defaults.setup_cost_scale),
            (Some(0.55), Some(0.8))
        );
    }

    #[test]
    fn each_bad_knob_is_named_with_its_value() {
        let base = Settings::chapter_defaults;
        let cases: Vec<(Settings, &str)> = vec![
            (
                Settings {
                    cost_ms: -1.0,
                    ..base()
                },
                "cost_ms must be a finite number >= 0, got -1",
            ),
            (
                Settings {
                    consumer_ms: f64::NAN,
                    ..base()
                },
                "consumer_ms must be a finite number >= 0, got NaN",
            ),
            (
                Settings {
                    cost_ms: 60_001.0,
                    ..base()
                },
                "cost_ms must be at most 60000, got 60001",
            ),
            (
                Settings {
                    python_cost_scale: -0.5,
                    ..base()
                },
                "python_cost_scale must be a number from 0 to 100, got -0.5",
            ),
            (
                Settings {
                    python_cost_scale: f64::INFINITY,
                    ..base()
                },
                "python_cost_scale must be a number from 0 to 100, got inf",
            ),
            (
                Settings {
                    fork_cost_scale: Some(0.0),
                    ..base()
                },
                "fork_cost_scale must be a number above 0, up to 100, got 0",
            ),
            (
                Settings {
                    setup_cost_scale: Some(f64::NAN),
                    ..base()
                },
                "setup_cost_scale must be a number above 0, up to 100, got NaN",
            ),
            (
                Settings {
                    setup_cost_scale: Some(101.0),
                    ..base()
                },
                "setup_cost_scale must be a number above 0, up to 100, got 101",
            ),
            (
                Settings {
                    python_cost_scale: 0.0,
                    fork_cost_scale: Some(0.3),
                    ..base()
                },
                "fork_cost_scale scales a Python cost, and a Python cost scale of 0 runs none: drop it, or give a Python cost scale above 0",
            ),
            (
                Settings {
                    workers: vec![0, 2, 0],
                    ..base()
                },
                "workers lists 0 twice",
            ),
            (
                Settings {
                    producers: vec![ProducerKind::Sleep, ProducerKind::Sleep],
                    ..base()
                },
                "producers lists sleep twice",
            ),
            (
                Settings {
                    batch_size: 0,
                    ..base()
                },
                "batch_size must be at least 1, got 0",
            ),
            (
                Settings {
                    workers: vec![0, 300],
                    ..base()
                },
                "workers must be at most 256, got 300",
            ),
            (
                Settings {
                    workers: vec![],
                    ..base()
                },
                "workers needs at least one worker count",
            ),
            (
                Settings {
                    prefetch_factor: 0,
                    ..base()
                },
                "prefetch_factor must be at least 1",
            ),
            (
                Settings {
                    batches: 0,
                    ..base()
                },
                "batches must be at least 1",
            ),
            (
                Settings {
                    repeat: 0,
                    ..base()
                },
                "repeat must be at least 1",
            ),
            (
                Settings {
                    sample_floats: 0,
                    ..base()
                },
                "sample_floats must be at least 1",
            ),
            (
                Settings {
                    rounds: 0,
                    ..base()
                },
                "rounds must be at least 1",
            ),
            (
                Settings {
                    budget_s: Some(-1.0),
                    ..base()
                },
                "budget must be a number of seconds from 0 to 86400, got -1",
            ),
            (
                Settings {
                    producers: vec![],
                    ..base()
                },
                "producers needs at least one producer",
            ),
            (
                Settings {
                    cpus: Some(0),
                    ..base()
                },
                "cpus must be at least 1",
            ),
        ];
        for (s, msg) in cases {
            let err = s.check().unwrap_err().to_string();
            assert!(err.starts_with(msg), "{msg}: {err}");
        }
        assert_eq!(
            Settings::too_many_cpus(4096, &[0, 1]).to_string(),
            "cpus 4096: this process may use 2 CPU(s) (0, 1)"
        );
    }
}
