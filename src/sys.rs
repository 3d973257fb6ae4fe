//! Thin, checked wrappers over the Linux calls the benchmark and the
//! environment fingerprint need: CPU clocks, affinity, timer slack, parent
//! death signal, readiness polling, schedstat, rusage, the per-CPU counters
//! of `/proc/stat` and the kernel's name. Most go through `rustix`; what it
//! does not cover (getrusage, sysconf for the online CPU count and the
//! clock tick) calls `libc` here. And the crate's allocator, which lets a
//! computation (a template, a claim's metric) run under a memory limit.
//! This is the only module of the crate with `unsafe` code.

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

/// Makes `cmd` start its process with PR_SET_PDEATHSIG set to SIGKILL, so
/// a child this thread starts (the PyTorch harness) dies with it, even when
/// this process is killed outright. (The kernel sends the signal when the
/// thread that started the child exits: start it from one that lives as
/// long as the run.)
pub fn die_with_this_thread(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    let parent = rustix::process::getpid();
    // SAFETY: between fork and exec the closure makes two system calls and
    // allocates nothing, as a pre_exec hook must.
    unsafe {
        cmd.pre_exec(move || {
            rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))?;
            // The parent may have gone before the signal was asked for.
            if rustix::process::getppid() != Some(parent) {
                return Err(io::Error::from(rustix::io::Errno::SRCH));
            }
            Ok(())
        });
    }
}

/// Opens `path` for reading with O_NONBLOCK, so opening a FIFO with no
/// writer (or a device that would wait) returns at once instead of
/// waiting for one; [`set_blocking`] turns it back off once the caller
/// has seen what it opened.
pub fn open_read_nonblocking(path: &std::path::Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

/// Clears O_NONBLOCK on an open file, so reads wait as usual.
pub fn set_blocking(file: &std::fs::File) -> io::Result<()> {
    let flags = rustix::fs::fcntl_getfl(file)?;
    rustix::fs::fcntl_setfl(file, flags - rustix::fs::OFlags::NONBLOCK)?;
    Ok(())
}

/// Whether any process of the group `pgid` is left (zombies included).
pub fn group_alive(pgid: u32) -> bool {
    i32::try_from(pgid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
        .is_some_and(|pid| rustix::process::test_kill_process_group(pid).is_ok())
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

/// Sends SIGKILL to the process `pid`. One that is gone is not an error.
pub fn kill_process(pid: u32) -> io::Result<()> {
    use rustix::process::{Pid, Signal, kill_process};
    let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) else {
        return Ok(());
    };
    match kill_process(pid, Signal::KILL) {
        Err(rustix::io::Errno::SRCH) => Ok(()),
        other => other.map_err(Into::into),
    }
}

/// The effective user id of this process.
pub fn own_uid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// Takes an exclusive lock on `file` (flock) if no other open file holds
/// one: Ok(false) when another does (in this process or another), without
/// waiting.
pub fn try_lock_exclusive(file: impl AsFd) -> io::Result<bool> {
    loop {
        match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => return Ok(true),
            Err(rustix::io::Errno::WOULDBLOCK) => return Ok(false),
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
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

/// The allocator of every binary of the crate (declared in `lib.rs`): the
/// system's, counting what a thread under [`with_memory_limit`] holds.
pub struct LimitedAlloc;

thread_local! {
    /// Whether this thread runs under a memory limit.
    static LIMITED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Bytes this thread may still allocate (what it frees comes back).
    static LEFT: std::cell::Cell<isize> = const { std::cell::Cell::new(0) };
    /// Where to say that the limit was reached.
    static TRIPWIRE: std::cell::Cell<*const Tripwire> =
        const { std::cell::Cell::new(std::ptr::null()) };
}

/// How a thread under a limit ended: 0 running, 1 done, 2 stopped at its
/// limit. Changing it and waking the waiter allocates nothing.
struct Tripwire {
    state: std::sync::Mutex<u8>,
    changed: std::sync::Condvar,
}

impl Tripwire {
    fn set(&self, state: u8) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        *s = state;
        self.changed.notify_all();
    }
}

/// Charges `n` bytes to a limited thread; past its limit the thread says
/// so and stops here for good (see [`with_memory_limit`]).
fn charge(n: usize) {
    // A panic prints (and may symbolize a backtrace) under a lock the rest
    // of the process needs: it is never stopped half way.
    if !LIMITED.with(|l| l.get()) || std::thread::panicking() {
        return;
    }
    let left = LEFT.with(|l| l.get()).saturating_sub(n as isize);
    if left >= 0 {
        LEFT.with(|l| l.set(left));
        return;
    }
    LIMITED.with(|l| l.set(false));
    let wire = TRIPWIRE.with(|t| t.get());
    // SAFETY: with_memory_limit keeps the tripwire alive for as long as
    // the thread that points at it runs, and this thread never returns.
    unsafe { (*wire).set(2) };
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

fn refund(n: usize) {
    if LIMITED.with(|l| l.get()) {
        LEFT.with(|l| l.set(l.get().saturating_add(n as isize)));
    }
}

// SAFETY: every call goes to the system allocator with its arguments
// unchanged; the counting around it touches only this thread's cells.
unsafe impl std::alloc::GlobalAlloc for LimitedAlloc {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        charge(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { std::alloc::System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        charge(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { std::alloc::System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        refund(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new: usize) -> *mut u8 {
        match new.checked_sub(layout.size()) {
            Some(grow) => charge(grow),
            None => refund(layout.size() - new),
        }
        // SAFETY: the caller's contract, passed on.
        unsafe { std::alloc::System.realloc(ptr, layout, new) }
    }
}

/// Why a computation under a memory limit gave no result.
#[derive(Debug, thiserror::Error)]
pub enum LimitedRunError {
    /// It reached its limit and was stopped there.
    #[error("it needed more than its memory limit ({limit} bytes, {} MiB) and was stopped", limit >> 20)]
    LimitReached { limit: usize },
    /// No thread could be started for it.
    #[error("cannot start a thread for it: {0}")]
    NoThread(#[source] io::Error),
}

/// Runs `f` on a thread of its own that may hold at most `limit` bytes
/// more than it has freed. An allocation past the limit never happens: the
/// thread stops inside it and is left asleep, holding what it had, until
/// the process exits, and this returns [`LimitedRunError::LimitReached`]. (Rust cannot
/// fail an allocation without aborting the process, and a thread cannot be
/// stopped from outside; so the computation must not hold a lock anyone
/// else will need, and the caller must not rely on what it shared with it.)
pub fn with_memory_limit<T: Send + 'static>(
    limit: usize,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, LimitedRunError> {
    let wire = std::sync::Arc::new(Tripwire {
        state: std::sync::Mutex::new(0),
        changed: std::sync::Condvar::new(),
    });
    let slot = std::sync::Arc::new(std::sync::Mutex::new(None));
    let (thread_wire, thread_slot) = (wire.clone(), slot.clone());
    let spawned = std::thread::Builder::new()
        .name("memory-limited".into())
        .spawn(move || {
            TRIPWIRE.with(|t| t.set(std::sync::Arc::as_ptr(&thread_wire)));
            LEFT.with(|l| l.set(isize::try_from(limit).unwrap_or(isize::MAX)));
            LIMITED.with(|l| l.set(true));
            let value = f();
            LIMITED.with(|l| l.set(false));
            *thread_slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(value);
            thread_wire.set(1);
        });
    let handle = spawned.map_err(LimitedRunError::NoThread)?;
    let mut state = wire.state.lock().unwrap_or_else(|e| e.into_inner());
    while *state == 0 {
        if handle.is_finished() {
            break;
        }
        state = wire
            .changed
            .wait_timeout(state, Duration::from_millis(50))
            .unwrap_or_else(|e| e.into_inner())
            .0;
    }
    let tripped = *state == 2;
    drop(state);
    if tripped {
        return Err(LimitedRunError::LimitReached { limit });
    }
    let value = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
    match value {
        Some(v) => {
            let _ = handle.join();
            Ok(v)
        }
        // The computation panicked: let its panic go on here.
        None => match handle.join() {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(()) => unreachable!("a thread that returned filled its slot"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_computation_past_its_memory_limit_is_stopped_before_it_allocates() {
        let limit = 8 << 20;
        // Within the limit: the value comes back, memory freed in between
        // is counted back.
        let n = with_memory_limit(limit, move || {
            (0..100).map(|_| vec![1u8; 1 << 20].len()).sum::<usize>()
        });
        assert_eq!(n.unwrap(), 100 << 20);
        // One allocation past it never happens.
        let big = with_memory_limit(limit, || vec![0u8; 1 << 40].len());
        assert!(matches!(big, Err(LimitedRunError::LimitReached { limit: l }) if l == limit));
        // Nor does growth by doubling past it.
        let grown = with_memory_limit(limit, || "x".repeat(64 << 20).len());
        assert!(grown.is_err());
        // Other threads are not limited.
        assert_eq!(vec![0u8; 32 << 20].len(), 32 << 20);
    }

    #[test]
    fn a_panic_under_a_memory_limit_reaches_the_caller() {
        let caught = std::panic::catch_unwind(|| {
            let _ = with_memory_limit(1 << 20, || panic!("inside"));
        });
        assert!(caught.is_err());
    }

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
