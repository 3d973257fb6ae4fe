//! Thin, checked wrappers over the Linux calls the benchmark and the
//! environment fingerprint need: CPU clocks, affinity, timer slack, parent
//! death signal, readiness polling, schedstat, rusage, the per-CPU counters
//! of `/proc/stat` and the kernel's name. Most go through `rustix`; what it
//! does not cover (getrusage, sysconf for the online CPU count and the
//! clock tick) calls `libc` here, and this is the only module of the crate
//! with `unsafe` code.

use std::io;
use std::num::NonZeroU64;
use std::os::fd::AsFd;
use std::time::Duration;

use rustix::thread::CpuSet;

/// CPU time consumed by the calling thread (CLOCK_THREAD_CPUTIME_ID), in ns.
pub fn thread_cpu_ns() -> u64 {
    let ts = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// CPU time consumed by the whole process (all its threads), in ns.
pub fn process_cpu_ns() -> u64 {
    let ts = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Sets the calling thread's timer slack (PR_SET_TIMERSLACK); 0 restores the
/// thread's default.
pub fn set_timer_slack(ns: u64) -> io::Result<()> {
    rustix::thread::set_current_timer_slack(NonZeroU64::new(ns)).map_err(io::Error::from)
}

/// The calling thread's timer slack in ns.
pub fn timer_slack() -> u64 {
    rustix::thread::current_timer_slack().unwrap_or(0)
}

/// Asks the kernel to kill this process when its parent thread exits, so a
/// worker never outlives the run that started it.
pub fn die_with_parent() {
    let _ = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL));
}

/// How a process group is asked to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// SIGTERM: finish up (a harness shuts its kernel down).
    Terminate,
    /// SIGKILL: now.
    Kill,
}

/// Signals every process of the process group `pgid`. A group that has no
/// process left is not an error: there is nothing to stop.
pub fn stop_process_group(pgid: u32, how: Stop) -> io::Result<()> {
    use rustix::process::{Pid, Signal, kill_process_group};
    let Some(pid) = i32::try_from(pgid).ok().and_then(Pid::from_raw) else {
        return Ok(());
    };
    let signal = match how {
        Stop::Terminate => Signal::TERM,
        Stop::Kill => Signal::KILL,
    };
    match kill_process_group(pid, signal) {
        Err(rustix::io::Errno::SRCH) => Ok(()),
        other => other.map_err(Into::into),
    }
}

/// The CPUs in the calling thread's affinity mask.
pub fn affinity() -> io::Result<Vec<usize>> {
    let set = rustix::thread::sched_getaffinity(None)?;
    Ok((0..CpuSet::MAX_CPU).filter(|&c| set.is_set(c)).collect())
}

/// Restricts the calling thread (and threads and processes it starts later) to
/// `cpus`.
pub fn set_affinity(cpus: &[usize]) -> io::Result<()> {
    let mut set = CpuSet::new();
    for &c in cpus {
        set.set(c);
    }
    rustix::thread::sched_setaffinity(None, &set).map_err(io::Error::from)
}

/// Waits up to `timeout` until one of `fds` can be read (or was closed);
/// returns its index, or None when none became ready (or a signal came).
pub fn first_readable<F: AsFd>(fds: &[F], timeout: Duration) -> io::Result<Option<usize>> {
    use rustix::event::{PollFd, PollFlags, Timespec};
    let mut polls: Vec<PollFd<'_>> = fds.iter().map(|f| PollFd::new(f, PollFlags::IN)).collect();
    let limit = Timespec {
        tv_sec: timeout.as_secs() as _,
        tv_nsec: timeout.subsec_nanos() as _,
    };
    match rustix::event::poll(&mut polls, Some(&limit)) {
        Ok(_) => Ok(polls.iter().position(|p| !p.revents().is_empty())),
        Err(rustix::io::Errno::INTR) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// A pipe, both ends closed on exec: (read end, write end).
pub fn pipe() -> io::Result<(std::fs::File, std::os::fd::OwnedFd)> {
    let (read, write) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
    Ok((std::fs::File::from(read), write))
}

/// Takes an exclusive lock on `file` (flock), waiting for it; other
/// processes that opened the same file wait in turn.
pub fn lock_exclusive(file: impl AsFd) -> io::Result<()> {
    loop {
        match rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive) {
            Err(rustix::io::Errno::INTR) => continue,
            other => return other.map_err(Into::into),
        }
    }
}

/// Releases a lock taken with [`lock_exclusive`].
pub fn unlock(file: impl AsFd) -> io::Result<()> {
    rustix::fs::flock(&file, rustix::fs::FlockOperation::Unlock).map_err(Into::into)
}

/// A shared-memory file with no name in any folder (memfd): it lives while a
/// descriptor to it is open, so a worker that dies leaks nothing.
pub fn shared_memory(name: &str) -> io::Result<std::fs::File> {
    let fd = rustix::fs::memfd_create(name, rustix::fs::MemfdFlags::CLOEXEC)?;
    Ok(std::fs::File::from(fd))
}

/// Sends one descriptor over a Unix socket (SCM_RIGHTS), with one byte.
pub fn send_fd(socket: impl AsFd, fd: impl AsFd) -> io::Result<()> {
    use rustix::net::{SendAncillaryBuffer, SendAncillaryMessage, SendFlags, sendmsg};
    let fds = [fd.as_fd()];
    let mut space = [std::mem::MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    if !control.push(SendAncillaryMessage::ScmRights(&fds)) {
        return Err(io::Error::other("no room for the descriptor"));
    }
    sendmsg(
        socket,
        &[io::IoSlice::new(&[1])],
        &mut control,
        SendFlags::empty(),
    )?;
    Ok(())
}

/// Receives one descriptor sent by [`send_fd`].
pub fn recv_fd(socket: impl AsFd) -> io::Result<std::os::fd::OwnedFd> {
    use rustix::net::{RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, recvmsg};
    let mut space = [std::mem::MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
    let mut control = RecvAncillaryBuffer::new(&mut space);
    let mut byte = [0u8; 1];
    let got = recvmsg(
        socket,
        &mut [io::IoSliceMut::new(&mut byte)],
        &mut control,
        RecvFlags::CMSG_CLOEXEC,
    )?;
    if got.bytes == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the sharer closed the socket before sending the descriptor",
        ));
    }
    for msg in control.drain() {
        if let RecvAncillaryMessage::ScmRights(mut fds) = msg
            && let Some(fd) = fds.next()
        {
            return Ok(fd);
        }
    }
    Err(io::Error::other("no descriptor came with the message"))
}

/// The kernel release (`uname -r`).
pub fn kernel_release() -> String {
    rustix::system::uname()
        .release()
        .to_string_lossy()
        .into_owned()
}

/// The host name (`uname -n`).
pub fn hostname() -> String {
    rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned()
}

/// CPUs online (sysconf(_SC_NPROCESSORS_ONLN)), whatever the affinity mask.
pub fn online_cpus() -> usize {
    // SAFETY: sysconf has no memory effects.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    n.max(1) as usize
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

/// `getrusage(who)`: user plus system CPU time, in ns.
fn rusage_cpu_ns(who: libc::c_int) -> u64 {
    // SAFETY: a zeroed rusage is valid to pass for writing.
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(who, &mut ru);
        ru
    };
    let ns = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000;
    ns(ru.ru_utime) + ns(ru.ru_stime)
}

/// CPU time of this process (every thread, RUSAGE_SELF) plus that of its
/// children once waited for (RUSAGE_CHILDREN), in ns: what a run used of
/// its own.
pub fn own_and_children_cpu_ns() -> u64 {
    rusage_cpu_ns(libc::RUSAGE_SELF) + rusage_cpu_ns(libc::RUSAGE_CHILDREN)
}

/// The text of `/proc/stat`, whose per-CPU lines count each CPU's busy and
/// idle time in clock ticks; None where it cannot be read.
pub fn proc_stat() -> Option<String> {
    std::fs::read_to_string("/proc/stat").ok()
}

/// The length of the clock tick `/proc/stat` counts in
/// (sysconf(_SC_CLK_TCK), USER_HZ: 100 a second on Linux), in ns.
pub fn clock_tick_ns() -> u64 {
    // SAFETY: sysconf has no memory effects.
    let per_s = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    1_000_000_000 / per_s.max(1) as u64
}

/// Burns CPU until the calling thread has used `d` of CPU time.
pub fn spin_cpu(d: Duration) {
    spin_cpu_with(d, || {});
}

/// As [`spin_cpu`], calling `between` between pieces of about a microsecond.
pub fn spin_cpu_with(d: Duration, between: impl FnMut()) {
    spin_cpu_since(thread_cpu_ns(), d, between);
}

/// Burns CPU until the calling thread has used `d` of CPU time since its
/// CPU clock read `start` ns (at once if it already has), calling `between`
/// between pieces of about a microsecond.
pub fn spin_cpu_since(start: u64, d: Duration, mut between: impl FnMut()) {
    let target = d.as_nanos() as u64;
    while thread_cpu_ns().saturating_sub(start) < target {
        busy_chunk();
        between();
    }
}

/// Burns CPU until the wall clock passes `d` from now, whether or not this
/// thread was running meanwhile.
pub fn spin_wall(d: Duration) {
    spin_wall_with(d, || {});
}

/// As [`spin_wall`], calling `between` between pieces of about a microsecond.
pub fn spin_wall_with(d: Duration, mut between: impl FnMut()) {
    let deadline = std::time::Instant::now() + d;
    while std::time::Instant::now() < deadline {
        busy_chunk();
        between();
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
    fn the_cpu_counters_and_the_runs_own_cpu_time_are_read() {
        let text = proc_stat().expect("/proc/stat");
        assert!(text.lines().any(|l| l.starts_with("cpu0 ")), "{text}");
        assert_eq!(clock_tick_ns(), 10_000_000, "USER_HZ is 100 on Linux");
        let before = own_and_children_cpu_ns();
        spin_cpu(Duration::from_millis(5));
        assert!(own_and_children_cpu_ns() >= before + 4_000_000);
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
