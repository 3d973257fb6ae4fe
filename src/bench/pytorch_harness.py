# The reference engine of research_companion: the chapter's experiment on the
# real torch.utils.data.DataLoader. research_companion writes this file to a
# temporary folder and runs it with the Python it was given; the CPU affinity
# is set by the caller and inherited. Argument 1 is a JSON object:
#   producers, cost_ns, batch_size, consumer_ns, workers, repeat,
#   prefetch_factor, sample_floats, and windows:
#   for each configuration ("sleep/8") [warm-up, measured, tail]
# It prints one JSON object on stdout (see `emit` below) and nothing else.
# Version 4 adds, per configuration with workers, what starting them cost:
# the loop thread's CPU in iter() and each worker's process CPU at
# worker_init_fn (a forked child's process CPU starts at 0). Version 5 adds
# `per_batch`: what the loop and one worker spend per batch, hot, at the
# run's batch size (the probe below), after the configurations. Version 6
# takes each configuration's steps from `windows`: the dataset holds `tail`
# batches more than the loop takes, so the workers still have batches to
# make while the last measured steps run (the window ends with the
# pipeline full, as a steady state does), and the loop never takes them.
# Exit status 3: torch cannot be imported; 2: bad argument.

import functools
import json
import multiprocessing
import os
import platform
import resource
import sys
import time

try:
    config = json.loads(sys.argv[1])
except (IndexError, ValueError) as e:
    print(f"harness: argument 1 must be the run's JSON settings ({e})", file=sys.stderr)
    sys.exit(2)

try:
    import torch
    import torch.multiprocessing
    from torch.utils.data import DataLoader, Dataset
except ImportError as e:
    print(f"harness: cannot import torch: {e}", file=sys.stderr)
    sys.exit(3)


def burn_cpu(ns):
    """Busy until this thread has used `ns` of CPU time."""
    end = time.thread_time_ns() + ns
    while time.thread_time_ns() < end:
        pass


def burn_wall(ns):
    """Busy until `ns` of wall-clock time has passed (the chapter's pitfall)."""
    end = time.perf_counter_ns() + ns
    while time.perf_counter_ns() < end:
        pass


class Samples(Dataset):
    """Each sample costs the producer's time, then is a small float tensor."""

    def __init__(self, producer, cost_ns, floats, length):
        self.producer = producer
        self.cost_ns = cost_ns
        self.floats = floats
        self.length = length

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        if self.producer == "sleep":
            time.sleep(self.cost_ns / 1e9)
        elif self.producer == "spin":
            burn_cpu(self.cost_ns)
        else:
            burn_wall(self.cost_ns)
        return torch.full((self.floats,), float(index))


def schedstat():
    """(on-CPU ns, run-queue delay ns) of this thread."""
    try:
        with open("/proc/thread-self/schedstat") as f:
            on_cpu, delay, _ = f.read().split()
        return int(on_cpu), int(delay)
    except OSError:
        return 0, 0


def involuntary_switches():
    return resource.getrusage(resource.RUSAGE_THREAD).ru_nivcsw


def cpu_counters():
    """The per-CPU lines of /proc/stat ("" where it cannot be read)."""
    try:
        with open("/proc/stat") as f:
            return "".join(line for line in f if line.startswith("cpu"))
    except OSError:
        return ""


def own_cpu_ns():
    """This process's CPU time, every thread, and its waited-for children's."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime
    return round(seconds * 1e9)


def note_setup(setups, worker_id):
    """worker_init_fn: this worker's CPU since its fork, its set-up."""
    setups[worker_id] = time.process_time_ns()


def one_run(producer, workers):
    batch = config["batch_size"]
    warmup, measured, tail = config["windows"][f"{producer}/{workers}"]
    total = 1 + warmup + measured
    data = Samples(
        producer, config["cost_ns"], config["sample_floats"], (total + tail) * batch
    )
    options = {}
    setups = None
    if workers > 0:
        # Shared memory the forked workers inherit: no pickling, no lock.
        setups = multiprocessing.get_context("fork").RawArray("q", workers)
        options = {
            "prefetch_factor": config["prefetch_factor"],
            "multiprocessing_context": "fork",
            "worker_init_fn": functools.partial(note_setup, setups),
        }
    # The outside load: the counters before the workers start and after
    # they were waited for, and what this process and its workers used.
    stat_before = cpu_counters()
    own_before = own_cpu_ns()
    load_start = time.perf_counter_ns()
    children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    loader = DataLoader(data, batch_size=batch, num_workers=workers, **options)
    waits, works = [], []
    # The measured window, as the engine measures it: from creating the
    # iterator when there is no warm-up (startup included), else from the
    # end of the last warm-up step; to the end of the last measured step,
    # with the tail still to make.
    sched_start = schedstat()
    switches_start = involuntary_switches()
    created = time.perf_counter_ns()
    start_cpu = time.thread_time_ns()
    batches = iter(loader)
    start_cpu = time.thread_time_ns() - start_cpu
    startup = 0
    window_start = created
    for k in range(total):
        if warmup > 0 and k == 1 + warmup:
            window_start = time.perf_counter_ns()
            sched_start = schedstat()
            switches_start = involuntary_switches()
        asked = time.perf_counter_ns()
        next(batches)
        got = time.perf_counter_ns()
        if k == 0:
            startup = got - created
        burn_cpu(config["consumer_ns"])
        done = time.perf_counter_ns()
        if k >= 1 + warmup:
            waits.append(got - asked)
            works.append(done - got)
    window_end = time.perf_counter_ns()
    sched_end = schedstat()
    switches = involuntary_switches() - switches_start
    del batches  # shuts the workers down (and waits for them)
    children_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    load_wall = time.perf_counter_ns() - load_start
    own_used = own_cpu_ns() - own_before
    stat_after = cpu_counters()
    workers_cpu_s = (children_after.ru_utime + children_after.ru_stime) - (
        children_before.ru_utime + children_before.ru_stime
    )
    return {
        "producer": producer,
        "workers": workers,
        "startup_ns": startup,
        "window_ns": window_end - window_start,
        "waits_ns": waits,
        "works_ns": works,
        "on_cpu_ns": sched_end[0] - sched_start[0],
        "run_delay_ns": sched_end[1] - sched_start[1],
        "involuntary_switches": switches,
        # Every worker process of this configuration, all its threads, from
        # start to shutdown: the rusage of the children waited for.
        "workers_cpu_ns": round(workers_cpu_s * 1e9),
        # Starting the workers: the loop's thread CPU in iter(), which forks
        # them, and each worker's CPU at worker_init_fn (0: it never got there).
        "start_cpu_ns": start_cpu,
        "worker_setup_ns": list(setups) if setups is not None else [],
        "load": {
            "stat_before": stat_before,
            "stat_after": stat_after,
            "wall_ns": load_wall,
            "own_cpu_ns": own_used,
        },
    }


# The probe's samples: the floats the engine's per-batch figures were
# measured with, so that the probe reads the machine, not the sample size.
PROBE_FLOATS = 64
# Its two runs: the difference of a long and a short one leaves out the
# start and the shutdown.
PROBE_SHORT, PROBE_LONG = 60, 300


def children_cpu_ns():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return round((r.ru_utime + r.ru_stime) * 1e9)


def probe_run(batches):
    """(worker CPU, loop thread CPU) of one worker, cost 0, no consumer."""
    batch = config["batch_size"]
    data = Samples("spin", 0, PROBE_FLOATS, (batches + 1) * batch)
    loader = DataLoader(
        data,
        batch_size=batch,
        num_workers=1,
        prefetch_factor=2,
        multiprocessing_context="fork",
    )
    children = children_cpu_ns()
    thread = time.thread_time_ns()
    it = iter(loader)
    for _ in range(batches + 1):
        next(it)
    loop = time.thread_time_ns() - thread
    del it  # shuts the worker down (and waits for it)
    return children_cpu_ns() - children, loop


def per_batch_probe():
    """The CPU per batch of PyTorch's per-batch path on this machine: the
    differences of a long and a short run, over the batches between (the
    measurement the engine's per-batch figures came from)."""
    short, long = probe_run(PROBE_SHORT), probe_run(PROBE_LONG)
    n = PROBE_LONG - PROBE_SHORT
    return {
        "batch_size": config["batch_size"],
        "sample_floats": PROBE_FLOATS,
        "batches": n,
        "worker_ns": (long[0] - short[0]) // n,
        "loop_ns": (long[1] - short[1]) // n,
    }


def emit():
    results = []
    for producer in config["producers"]:
        for workers in config["workers"]:
            for _ in range(config["repeat"]):
                results.append(one_run(producer, workers))
    per_batch = per_batch_probe()
    json.dump(
        {
            "harness": 6,
            "python": platform.python_version(),
            "torch": torch.__version__,
            "sharing_strategy": torch.multiprocessing.get_sharing_strategy(),
            "start_method": "fork",
            "cpus": sorted(os.sched_getaffinity(0)),
            "results": results,
            "per_batch": per_batch,
        },
        sys.stdout,
    )
    sys.stdout.write("\n")


emit()
