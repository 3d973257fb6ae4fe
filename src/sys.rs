//! Thin, checked wrappers over the Linux calls the benchmark and the
//! environment fingerprint need: CPU clocks, affinity, timer slack, schedstat
//! and rusage. Everything unsafe in the crate lives here.

use std::io;
use std::time::Duration;

/// CPU time consumed by the calling thread (CLOCK_THREAD_CPUTIME_ID), in ns.
pub fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    debug_assert_eq!(rc, 0);
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Sets the calling thread's timer slack (PR_SET_TIMERSLACK).
pub fn set_timer_slack(ns: u64) -> io::Result<()> {
    // SAFETY: prctl with PR_SET_TIMERSLACK takes one unsigned long argument.
    let rc = unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, ns as libc::c_ulong, 0, 0, 0) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// The calling thread's timer slack in ns.
pub fn timer_slack() -> u64 {
    // SAFETY: PR_GET_TIMERSLACK takes no pointer arguments.
    let rc = unsafe { libc::prctl(libc::PR_GET_TIMERSLACK, 0, 0, 0, 0) };
    rc.max(0) as u64
}

/// Asks the kernel to kill this process when its parent thread exits, so a
/// worker never outlives the run that started it.
pub fn die_with_parent() {
    // SAFETY: PR_SET_PDEATHSIG takes a signal number.
    unsafe {
        libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        );
    }
}

/// The CPUs in the calling thread's affinity mask.
pub fn affinity() -> io::Result<Vec<usize>> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; the size matches.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok((0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect())
    }
}

/// Restricts the calling thread (and threads and processes it starts later) to
/// `cpus`.
pub fn set_affinity(cpus: &[usize]) -> io::Result<()> {
    // SAFETY: as above; CPU_SET only writes inside the set.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus {
            libc::CPU_SET(c, &mut set);
        }
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The calling thread's scheduler counters from /proc/thread-self/schedstat.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SchedStat {
    /// Time spent on a CPU.
    pub on_cpu_ns: u64,
    /// Time spent runnable but waiting on a run queue.
    pub run_delay_ns: u64,
    /// Timeslices run.
    pub timeslices: u64,
}

/// Reads the calling thread's schedstat; zeros when the kernel lacks it.
pub fn schedstat() -> SchedStat {
    let Ok(text) = std::fs::read_to_string("/proc/thread-self/schedstat") else {
        return SchedStat::default();
    };
    let mut it = text
        .split_whitespace()
        .map(|f| f.parse::<u64>().unwrap_or(0));
    SchedStat {
        on_cpu_ns: it.next().unwrap_or(0),
        run_delay_ns: it.next().unwrap_or(0),
        timeslices: it.next().unwrap_or(0),
    }
}

/// CPU time and context switches of the calling thread (RUSAGE_THREAD).
#[derive(Debug, Clone, Copy, Default)]
pub struct ThreadUsage {
    pub cpu: Duration,
    pub voluntary_switches: u64,
    pub involuntary_switches: u64,
}

/// getrusage(RUSAGE_THREAD).
pub fn thread_usage() -> ThreadUsage {
    // SAFETY: a zeroed rusage is valid to pass for writing.
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_THREAD, &mut ru);
        ru
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    ThreadUsage {
        cpu: tv(ru.ru_utime) + tv(ru.ru_stime),
        voluntary_switches: ru.ru_nvcsw as u64,
        involuntary_switches: ru.ru_nivcsw as u64,
    }
}

/// Burns CPU until the calling thread has used `d` of CPU time.
pub fn spin_cpu(d: Duration) {
    let target = d.as_nanos() as u64;
    let start = thread_cpu_ns();
    while thread_cpu_ns().saturating_sub(start) < target {
        busy_chunk();
    }
}

/// Burns CPU until the wall clock passes `d` from now, whether or not this
/// thread was running meanwhile.
pub fn spin_wall(d: Duration) {
    let deadline = std::time::Instant::now() + d;
    while std::time::Instant::now() < deadline {
        busy_chunk();
    }
}

/// About a microsecond of arithmetic the optimizer cannot remove.
#[inline(never)]
fn busy_chunk() {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in 0..300u64 {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i);
    }
    std::hint::black_box(x);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spin_cpu_consumes_cpu_time() {
        let before = thread_cpu_ns();
        spin_cpu(Duration::from_millis(5));
        let used = thread_cpu_ns() - before;
        assert!(used >= 5_000_000, "{used}");
    }

    #[test]
    fn affinity_round_trips() {
        let cpus = affinity().unwrap();
        assert!(!cpus.is_empty());
        std::thread::spawn(move || {
            set_affinity(&cpus[..1]).unwrap();
            assert_eq!(affinity().unwrap(), cpus[..1].to_vec());
        })
        .join()
        .unwrap();
    }
}
