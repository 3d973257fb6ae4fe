//! A Python process's global interpreter lock (the loop's or a worker's),
//! as CPython 3 runs it: one thread holds it while it runs Python code; a
//! thread that wants it waits on a condition for the switch interval
//! (`sys.getswitchinterval()`, 5 ms by default), and if the holder has not
//! let go by then it asks the holder to drop it. The holder checks for that
//! request between pieces of work, drops the lock, waits until the asker has
//! taken it, then queues for it again. So a helper thread of a worker whose
//! main thread is busy computing in Python gets to run its own Python code
//! only after up to one interval, plus however long the holder takes to be
//! scheduled and notice, unless the holder lets go in a blocking call or a
//! torch call first. The same holds for the loop's index feeders while the
//! loop runs a training step.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use super::config::{ProducerSpec, Transport};

/// The lock and its drop request.
#[derive(Debug)]
pub struct Gil {
    state: Mutex<LockState>,
    changed: Condvar,
    drop_request: AtomicBool,
    interval: Duration,
}

/// Who holds the lock, and how often it changed hands.
#[derive(Debug, Default)]
struct LockState {
    held: bool,
    /// How many times the lock has changed hands.
    switches: u64,
}

impl Gil {
    pub fn new(interval: Duration) -> Self {
        Gil {
            state: Mutex::default(),
            changed: Condvar::new(),
            drop_request: AtomicBool::new(false),
            interval,
        }
    }

    fn lock(&self) -> MutexGuard<'_, LockState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for the lock as CPython's `take_gil` does.
    pub fn take(&self) {
        let mut s = self.lock();
        while s.held {
            let seen = s.switches;
            let (guard, waited) = self
                .changed
                .wait_timeout(s, self.interval)
                .unwrap_or_else(|e| e.into_inner());
            s = guard;
            if waited.timed_out() && s.held && s.switches == seen {
                self.drop_request.store(true, Ordering::Release);
            }
        }
        s.held = true;
        s.switches += 1;
        self.drop_request.store(false, Ordering::Release);
        self.changed.notify_all();
    }

    /// Lets go of the lock (a blocking call, a sleep, the thread's end).
    pub fn release(&self) {
        let mut s = self.lock();
        s.held = false;
        self.changed.notify_all();
    }

    /// Called by the holder between pieces of work: when another thread
    /// has asked for the lock, hands it over, waits until it has been
    /// taken, then queues for it again. Says whether it handed it over.
    pub fn yield_if_asked(&self) -> bool {
        if !self.drop_request.load(Ordering::Acquire) {
            return false;
        }
        let mut s = self.lock();
        s.held = false;
        let handed = s.switches;
        self.changed.notify_all();
        while s.switches == handed {
            s = self.changed.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        drop(s);
        self.take();
        true
    }

    /// Runs `call` with the lock let go, as CPython does around a system
    /// call or a C call that releases it (a torch function does), and
    /// waits to hold it again after; a thread waiting for the lock may take
    /// it meanwhile.
    pub fn outside<T>(&self, call: impl FnOnce() -> T) -> T {
        self.release();
        let out = call();
        self.take();
        out
    }

    /// Runs `f` holding the lock.
    pub fn with<T>(&self, f: impl FnOnce() -> T) -> T {
        self.take();
        let out = f();
        self.release();
        out
    }
}

/// The interpreter lock a process of this run has, loop or worker: one
/// when its workers hand batches to helper threads, as CPython processes
/// with a switch interval; none with `pipe` (no helpers to contend for it)
/// or an interval of 0.
pub fn interpreter_lock(spec: &ProducerSpec) -> Option<Arc<Gil>> {
    (spec.transport != Transport::Pipe && spec.switch_interval_ns > 0)
        .then(|| Arc::new(Gil::new(Duration::from_nanos(spec.switch_interval_ns))))
}

/// Runs a thread's Python work: under `gil` when there is one.
pub fn python<T>(gil: Option<&Gil>, work: impl FnOnce() -> T) -> T {
    match gil {
        Some(g) => g.with(work),
        None => work(),
    }
}

/// Runs a blocking call: with `gil` let go when there is one.
pub fn blocking<T>(gil: Option<&Gil>, call: impl FnOnce() -> T) -> T {
    match gil {
        Some(g) => g.outside(call),
        None => call(),
    }
}

/// Spends `d` of the calling thread's CPU time in Python code: under `gil`
/// when there is one, handing it over whenever another thread has asked.
pub fn compute(d: Duration, gil: Option<&Gil>) {
    if d.is_zero() {
        return;
    }
    match gil {
        Some(g) => crate::sys::spin_cpu_with(d, || {
            g.yield_if_asked();
        }),
        None => crate::sys::spin_cpu(d),
    }
}

/// Runs `work`, the engine's own part of a step of Python code, then
/// spends what is left of `d` of the calling thread's CPU time as
/// [`compute`] does: the step costs `d` in all, or what `work` took if that
/// was more. With `d` zero, `work` alone.
pub fn compute_around<T>(d: Duration, gil: Option<&Gil>, work: impl FnOnce() -> T) -> T {
    if d.is_zero() {
        return work();
    }
    let start = crate::sys::thread_cpu_ns();
    let out = work();
    match gil {
        Some(g) => crate::sys::spin_cpu_since(start, d, || {
            g.yield_if_asked();
        }),
        None => crate::sys::spin_cpu_since(start, d, || {}),
    }
    out
}

/// As [`compute_around`] for a call that runs with `gil` let go (a torch
/// call): `work` and the rest of `d` run outside the lock.
pub fn torch_call<T>(d: Duration, gil: Option<&Gil>, work: impl FnOnce() -> T) -> T {
    if d.is_zero() {
        return work();
    }
    blocking(gil, || compute_around(d, None, work))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn a_busy_holder_hands_the_lock_over_only_when_asked_after_an_interval() {
        let interval = Duration::from_millis(20);
        let gil = Arc::new(Gil::new(interval));
        gil.take();
        let waiter = {
            let gil = Arc::clone(&gil);
            std::thread::spawn(move || {
                let asked = Instant::now();
                gil.with(|| asked.elapsed())
            })
        };
        // The holder computes, checking for a request between pieces, and
        // never lets go on its own.
        let mut handed = false;
        let start = Instant::now();
        while !waiter.is_finished() && start.elapsed() < Duration::from_secs(30) {
            handed |= gil.yield_if_asked();
            std::hint::spin_loop();
        }
        let waited = waiter.join().unwrap();
        gil.release();
        assert!(handed, "the waiter got the lock without asking the holder");
        assert!(waited >= interval, "{waited:?}");
    }

    #[test]
    fn a_torch_call_lets_a_waiting_thread_in_without_being_asked() {
        // An interval no test waits out: the waiter never asks.
        waiter_gets_in_unasked(|gil| {
            gil.outside(|| crate::sys::spin_cpu(Duration::from_micros(50)))
        });
    }

    /// Holds a lock whose interval no test waits out, so a thread waiting
    /// for it never asks, and repeats `step` until that thread got in
    /// (within 30 s); then checks nobody asked.
    fn waiter_gets_in_unasked(step: impl Fn(&Gil)) {
        let gil = Arc::new(Gil::new(Duration::from_secs(3600)));
        gil.take();
        let waiter = {
            let gil = Arc::clone(&gil);
            std::thread::spawn(move || gil.with(|| ()))
        };
        let start = Instant::now();
        while !waiter.is_finished() && start.elapsed() < Duration::from_secs(30) {
            step(&gil);
        }
        assert!(waiter.is_finished(), "the waiter never got in");
        waiter.join().unwrap();
        assert!(!gil.drop_request.load(Ordering::Acquire));
        gil.release();
    }

    #[test]
    fn a_free_lock_is_taken_without_asking_anyone() {
        let gil = Gil::new(Duration::from_secs(5));
        gil.with(|| ());
        gil.with(|| ());
        assert!(!gil.drop_request.load(Ordering::Acquire));
        assert_eq!(gil.lock().switches, 2);
        assert!(!gil.lock().held);
    }

    #[test]
    fn the_engines_own_work_counts_inside_a_modelled_step() {
        let ms = Duration::from_millis;
        let cpu = |f: &dyn Fn()| {
            let start = crate::sys::thread_cpu_ns();
            f();
            Duration::from_nanos(crate::sys::thread_cpu_ns() - start)
        };
        // 4 ms of work in a 10 ms step: the step costs 10 ms, not 14.
        let step = cpu(&|| compute_around(ms(10), None, || crate::sys::spin_cpu(ms(4))));
        assert!(step >= ms(10) && step < ms(13), "{step:?}");
        // Work longer than the step: the work is what it costs.
        let step = cpu(&|| compute_around(ms(2), None, || crate::sys::spin_cpu(ms(5))));
        assert!(step >= ms(5) && step < ms(6), "{step:?}");
        // A torch call spends its step with the lock let go: a thread that
        // never asks gets in meanwhile.
        waiter_gets_in_unasked(|gil| torch_call(ms(2), Some(gil), || ()));
    }
}
