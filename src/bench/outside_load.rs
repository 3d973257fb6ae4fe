//! How much of a run's CPUs other processes took while one configuration
//! ran: the arithmetic, on the text of `/proc/stat` read at both ends of the
//! configuration (the reading itself is `sys::proc_stat`).
//!
//! The kernel counts each CPU's time in ticks of USER_HZ (1/100 s):
//! busy (user, nice, system, irq, softirq, steal) and not busy (idle,
//! iowait); `guest` is already inside `user`. Over a configuration, the
//! busy time of the CPUs the run is restricted to, less the CPU time of the
//! run's own processes (the tool's every thread, `RUSAGE_SELF`, and its
//! worker processes once waited for, `RUSAGE_CHILDREN`), over wall time x
//! CPUs, is the share other processes took. A counter delta is off by up to
//! a tick per CPU (each reading is rounded down to a tick), so the share
//! counts only what is beyond one tick per CPU: a configuration of W
//! seconds cannot show a share below 0.01 / W, and rounding alone never
//! marks a quiet one disturbed.
//!
//! Where the pipeline has a single runnable thread (no workers), every
//! moment that thread waited on a run queue was taken by something else,
//! so its run-queue delay over wall time is a second, exact, reading of
//! the same share; the larger of the two is the configuration's.

use std::collections::BTreeMap;

/// A configuration is disturbed when other processes took more than this
/// share of its CPUs. A CPU-bound configuration slowed by a share s of its
/// CPU runs about s slower, and the tightest criterion of chapter 06 (the
/// spinning producer's flat ex/s, `between 0.95 and 1.05`) allows 5% either
/// way: beyond 5%, load from outside alone could decide it.
pub const DISTURBED_ABOVE: f64 = 0.05;

/// Whether an outside share makes a configuration disturbed.
pub fn is_disturbed(share: f64) -> bool {
    share > DISTURBED_ABOVE
}

/// One CPU's counters, in ticks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuTicks {
    /// user + nice + system + irq + softirq + steal.
    pub busy: u64,
    /// idle + iowait.
    pub idle: u64,
}

/// The per-CPU lines (`cpu0 ...`) of `/proc/stat`, by CPU number; the
/// summary line (`cpu ...`) and every other line are skipped. A line with
/// fewer than the four counters every kernel has is left out.
pub fn parse_proc_stat(text: &str) -> BTreeMap<usize, CpuTicks> {
    let mut cpus = BTreeMap::new();
    for line in text.lines() {
        let mut fields = line.split_ascii_whitespace();
        let Some(cpu) = fields
            .next()
            .and_then(|name| name.strip_prefix("cpu"))
            .and_then(|n| n.parse::<usize>().ok())
        else {
            continue;
        };
        let counters: Vec<u64> = fields.map_while(|f| f.parse().ok()).collect();
        if counters.len() < 4 {
            continue;
        }
        // user nice system idle iowait irq softirq steal guest guest_nice
        let at = |i: usize| counters.get(i).copied().unwrap_or(0);
        cpus.insert(
            cpu,
            CpuTicks {
                busy: at(0) + at(1) + at(2) + at(5) + at(6) + at(7),
                idle: at(3) + at(4),
            },
        );
    }
    cpus
}

/// What was read around one configuration.
#[derive(Debug, Clone, Copy)]
pub struct LoadWindow<'a> {
    /// `/proc/stat` before the workers started (None: it could not be read).
    pub before: Option<&'a str>,
    /// `/proc/stat` after they stopped and were waited for.
    pub after: Option<&'a str>,
    /// Wall time between the two readings.
    pub wall_ns: u64,
    /// The run's own CPU time over the window: its process, every thread,
    /// and its waited-for children.
    pub own_cpu_ns: u64,
    /// With a single runnable thread: its run-queue delay over the window.
    pub single_thread_run_delay_ns: Option<u64>,
}

/// The share of `cpus` (0 to 1) that other processes took over `window`,
/// with ticks of `tick_ns`; None when nothing could measure it.
pub fn outside_share(window: &LoadWindow<'_>, cpus: &[usize], tick_ns: u64) -> Option<f64> {
    if window.wall_ns == 0 || cpus.is_empty() {
        return None;
    }
    let from_counters = match (window.before, window.after) {
        (Some(before), Some(after)) => counters_share(
            &parse_proc_stat(before),
            &parse_proc_stat(after),
            cpus,
            window,
            tick_ns,
        ),
        _ => None,
    };
    let from_delay = window
        .single_thread_run_delay_ns
        .map(|d| (d as f64 / window.wall_ns as f64).clamp(0.0, 1.0));
    match (from_counters, from_delay) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// The counters' reading of the share: busy ticks less one tick per CPU
/// (their rounding) less the run's own CPU time, over wall time x CPUs.
fn counters_share(
    before: &BTreeMap<usize, CpuTicks>,
    after: &BTreeMap<usize, CpuTicks>,
    cpus: &[usize],
    window: &LoadWindow<'_>,
    tick_ns: u64,
) -> Option<f64> {
    let mut busy_ticks: u64 = 0;
    for cpu in cpus {
        let (b, a) = (before.get(cpu)?, after.get(cpu)?);
        busy_ticks += a.busy.saturating_sub(b.busy);
    }
    let n = cpus.len() as f64;
    let busy_ns = busy_ticks as f64 * tick_ns as f64;
    let rounding_ns = n * tick_ns as f64;
    let others = busy_ns - rounding_ns - window.own_cpu_ns as f64;
    Some((others / (window.wall_ns as f64 * n)).clamp(0.0, 1.0))
}

/// The share of `cpus` busy between two readings taken while the run did
/// nothing of its own but `own_cpu_ns` (waiting for a quiet machine).
pub fn busy_share(
    before: &str,
    after: &str,
    cpus: &[usize],
    wall_ns: u64,
    own_cpu_ns: u64,
    tick_ns: u64,
) -> Option<f64> {
    let window = LoadWindow {
        before: Some(before),
        after: Some(after),
        wall_ns,
        own_cpu_ns,
        single_thread_run_delay_ns: None,
    };
    outside_share(&window, cpus, tick_ns)
}

/// The CPUs a share is about, in words: `CPU 0`, `CPUs 0, 1`.
pub fn cpus_in_words(cpus: &[usize]) -> String {
    match cpus {
        [one] => format!("CPU {one}"),
        many => format!("CPUs {}", crate::text::format::list(many)),
    }
}

/// How many configurations a run left disturbed, in words: `some` with a
/// round that has no undisturbed run, `throughout` of them with no
/// undisturbed run at all (their rows are of disturbed runs).
pub fn left_disturbed_in_words(some: usize, throughout: usize) -> String {
    let configurations = |n: usize| {
        if n == 1 {
            "1 configuration".to_string()
        } else {
            format!("{n} configurations")
        }
    };
    match throughout {
        0 => format!("{} left disturbed in some round", configurations(some)),
        t if t == some => format!(
            "{} disturbed in every run (their rows are of disturbed runs)",
            configurations(some)
        ),
        t => format!(
            "{} left disturbed in some round, {t} of them in every run (their rows are of disturbed runs)",
            configurations(some)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// USER_HZ's tick: 10 ms.
    const TICK: u64 = 10_000_000;

    /// /proc/stat as a 2-CPU machine printed it (kernel 6.18), one second
    /// apart: CPU 0 ran the benchmark's single thread and a CPU-bound
    /// process of another user; CPU 1 was idle.
    const BEFORE: &str = "\
cpu  539660 0 121740 339115 5687 0 960 1949 0 0
cpu0 254745 0 62780 184019 1761 0 82 954 0 0
cpu1 284915 0 58960 155095 3925 0 877 995 0 0
intr 3839695 0 0 0 0 0 0 0
ctxt 4932330
btime 1764480000
processes 31704
procs_running 3
procs_blocked 0
softirq 112 0 0 0 0 0 0 0 0 0 0
";
    const AFTER: &str = "\
cpu  539760 0 121741 339215 5687 0 960 1949 0 0
cpu0 254844 0 62781 184019 1761 0 82 954 0 0
cpu1 284916 0 58960 155194 3925 0 877 995 0 0
intr 3841695 0 0 0 0 0 0 0
ctxt 4934330
";

    fn window<'a>(own_ms: u64, delay_ms: Option<u64>) -> LoadWindow<'a> {
        LoadWindow {
            before: Some(BEFORE),
            after: Some(AFTER),
            wall_ns: 1_000_000_000,
            own_cpu_ns: own_ms * 1_000_000,
            single_thread_run_delay_ns: delay_ms.map(|d| d * 1_000_000),
        }
    }

    #[test]
    fn the_per_cpu_lines_are_read_and_everything_else_skipped() {
        let cpus = parse_proc_stat(BEFORE);
        assert_eq!(cpus.len(), 2, "the summary `cpu` line is not a CPU");
        assert_eq!(
            cpus[&0],
            CpuTicks {
                busy: 254745 + 62780 + 82 + 954,
                idle: 184019 + 1761
            }
        );
        // An old kernel's four counters, and a line cut short, still read;
        // a line of fewer counters does not.
        let old = parse_proc_stat("cpu3 10 20 30 40\ncpu4 1 2\ncpu 9 9 9 9\n");
        assert_eq!(old.len(), 1);
        assert_eq!(old[&3], CpuTicks { busy: 60, idle: 40 });
        assert!(parse_proc_stat("").is_empty());
    }

    #[test]
    fn what_the_run_did_not_use_of_its_cpu_was_taken_by_others() {
        // CPU 0: 100 busy ticks (1 s) in 1 s. The run used 500 ms of it, so
        // others took 500 ms, less one tick for the rounding: 49%.
        let share = outside_share(&window(500, None), &[0], TICK).unwrap();
        assert!((share - 0.49).abs() < 1e-9, "{share}");
        assert!(is_disturbed(share));
        // The run used all of it: nobody else did.
        assert_eq!(outside_share(&window(1000, None), &[0], TICK), Some(0.0));
        // More than the counters saw (rounding, a thread elsewhere): 0, not less.
        assert_eq!(outside_share(&window(1200, None), &[0], TICK), Some(0.0));
    }

    #[test]
    fn a_share_is_over_all_the_cpus_of_the_run() {
        // CPU 1 was idle: 1 busy tick, within the rounding. Over both CPUs
        // the others' 500 ms are a quarter, less one tick per CPU.
        let share = outside_share(&window(500, None), &[0, 1], TICK).unwrap();
        let expected = (1010.0 - 20.0 - 500.0) / 2000.0;
        assert!((share - expected).abs() < 1e-9, "{share}");
        // An idle CPU alone: nothing beyond the rounding.
        assert_eq!(outside_share(&window(0, None), &[1], TICK), Some(0.0));
    }

    #[test]
    fn one_tick_of_rounding_never_makes_a_quiet_configuration_disturbed() {
        // A 250 ms configuration whose own 200 ms the counters rounded up to
        // 21 ticks.
        let before = "cpu0 100 0 0 900 0 0 0 0 0 0\n";
        let after = "cpu0 121 0 0 904 0 0 0 0 0 0\n";
        let w = LoadWindow {
            before: Some(before),
            after: Some(after),
            wall_ns: 250_000_000,
            own_cpu_ns: 200_000_000,
            single_thread_run_delay_ns: None,
        };
        assert_eq!(outside_share(&w, &[0], TICK), Some(0.0));
    }

    #[test]
    fn a_single_threads_run_queue_delay_reads_the_same_share_exactly() {
        // The counters see 49%; the loop, alone, waited 600 ms of the
        // second: the larger is the configuration's.
        let share = outside_share(&window(500, Some(600)), &[0], TICK).unwrap();
        assert!((share - 0.6).abs() < 1e-9, "{share}");
        let share = outside_share(&window(500, Some(100)), &[0], TICK).unwrap();
        assert!((share - 0.49).abs() < 1e-9, "{share}");
        // Without the counters, the delay alone.
        let w = LoadWindow {
            before: None,
            ..window(500, Some(30))
        };
        assert!((outside_share(&w, &[0], TICK).unwrap() - 0.03).abs() < 1e-9);
    }

    #[test]
    fn without_counters_for_the_runs_cpus_nothing_is_measured() {
        let w = LoadWindow {
            after: None,
            ..window(500, None)
        };
        assert_eq!(outside_share(&w, &[0], TICK), None);
        assert_eq!(outside_share(&window(500, None), &[7], TICK), None);
        assert_eq!(outside_share(&window(500, None), &[], TICK), None);
        let zero_wall = LoadWindow {
            wall_ns: 0,
            ..window(500, None)
        };
        assert_eq!(outside_share(&zero_wall, &[0], TICK), None);
    }

    #[test]
    fn waiting_for_quiet_reads_the_busy_share_with_nothing_of_the_runs() {
        let share = busy_share(BEFORE, AFTER, &[0], 1_000_000_000, 0, TICK).unwrap();
        assert!((share - 0.99).abs() < 1e-9, "{share}");
        let share = busy_share(BEFORE, AFTER, &[1], 1_000_000_000, 0, TICK).unwrap();
        assert_eq!(share, 0.0);
    }

    #[test]
    fn the_threshold_is_five_percent_and_cpus_read_as_words() {
        assert!(!is_disturbed(0.05));
        assert!(is_disturbed(0.051));
        assert_eq!(cpus_in_words(&[0]), "CPU 0");
        assert_eq!(cpus_in_words(&[0, 1]), "CPUs 0, 1");
    }
}
