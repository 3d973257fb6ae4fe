# The notebook harness of research_companion: runs one notebook in a fresh
# Jupyter kernel with nbclient, cell by cell, and reports what each code cell
# did. research_companion writes this file to a temporary folder and runs it
# with the Python it was given, in an empty temporary working folder, in a
# process group of its own, killed if research_companion dies (Linux's
# parent death signal). The kernel it starts is killed in turn if this
# harness dies, however it dies (a cell may kill it). Argument 1 is a JSON
# object:
#   notebook      path of the .ipynb to run (read, never written)
#   workdir       the kernel's working folder (empty, made for this run)
#   cell_timeout  seconds a code cell may run (an integer, as nbclient takes it)
#   kernel        the kernel's name (a kernelspec, e.g. python3)
#   max_chars     characters of output kept per cell (the rest is counted)
#   pid_file      where to write the kernel's process id once it started
#   kernel_log    where the kernel's own stdout and stderr go (so that a
#                 kernel never holds this harness's pipes open)
# It prints one JSON object on stdout (see `answer` below) and nothing else;
# on stderr, one line `cell <index>` as each code cell ends (for progress).
# Exit status 3: nbformat, nbclient or ipykernel cannot be imported (the
# message names which); 4: the kernel could not be started; 2: bad argument.
# Local paths, user and host names are left as they are: research_companion
# replaces them itself, so that rule is tested in one place.

import json
import os
import re
import platform
import signal
import sys
import time

try:
    config = json.loads(sys.argv[1])
except (IndexError, ValueError) as e:
    print(f"harness: argument 1 must be the run's JSON settings ({e})", file=sys.stderr)
    sys.exit(2)

missing = []
try:
    import nbformat
except ImportError:
    missing.append("nbformat")
try:
    import nbclient
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
except ImportError:
    missing.append("nbclient")
try:
    import ipykernel
except ImportError:
    missing.append("ipykernel")
if missing:
    print(f"harness: cannot import {', '.join(missing)}", file=sys.stderr)
    sys.exit(3)


def version_of(name):
    """A package's version without importing it (torch takes seconds)."""
    try:
        from importlib.metadata import version

        return version(name)
    except Exception:
        return None


def stop(signum, frame):
    # Raised into the cell loop, so the `with` below shuts the kernel down.
    raise SystemExit(128 + signum)


signal.signal(signal.SIGTERM, stop)


def die_with_this_harness():
    """A preexec_fn for the kernel's process: PR_SET_PDEATHSIG to SIGKILL,
    so the kernel is killed when the thread that starts it ends (this
    harness's main thread, which runs nbclient's event loop: the harness
    itself); and if the harness is already gone, the kernel does not start.
    None off Linux, where there is no such call."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    prctl = ctypes.CDLL(None, use_errno=True).prctl
    harness = os.getpid()
    pr_set_pdeathsig = 1
    kill = int(signal.SIGKILL)

    def preexec():
        if prctl(pr_set_pdeathsig, kill, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
        if os.getppid() != harness:
            os._exit(1)

    return preexec


def output_text(output):
    """One output as text: streams as printed, results and displays by their
    text/plain form (else the kinds of data they hold), errors as their
    traceback."""
    kind = output.get("output_type")
    if kind == "stream":
        return output.get("text", "")
    if kind in ("execute_result", "display_data"):
        data = output.get("data", {})
        if "text/plain" in data:
            text = data["text/plain"]
            return (text if isinstance(text, str) else "".join(text)) + "\n"
        return "[" + ", ".join(sorted(data)) + "]\n"
    if kind == "error":
        return "\n".join(output.get("traceback", [])) + "\n"
    return ""


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# IPython names a cell's frame `Cell In[3], line 4`; older ones mark the
# line `----> 4`.
CELL_FRAME = re.compile(r"Cell In\[(\d+)\], line (\d+)")
ARROW = re.compile(r"^-+>\s*(\d+)", re.M)


def failed_line(cell, count):
    """The line of the cell that raised, from its traceback: the frame of
    this cell (`Cell In[count], line N`; the first frame is the cell's own
    when the count is not found), else the first `---->` marker; with the
    line's text from the cell's source. None when the traceback names no
    line of the cell."""
    for output in cell.get("outputs", []):
        if output.get("output_type") != "error":
            continue
        traceback = ANSI.sub("", "\n".join(output.get("traceback", [])))
        frames = CELL_FRAME.findall(traceback)
        own = [int(n) for k, n in frames if k == str(count)]
        if own:
            line = own[0]
        elif frames:
            line = int(frames[0][1])
        else:
            arrow = ARROW.search(traceback)
            if arrow is None:
                return None
            line = int(arrow.group(1))
        lines = cell.source.splitlines()
        if 1 <= line <= len(lines):
            return {"line": line, "text": lines[line - 1].strip()}
        return None
    return None


def first_line(source):
    for line in source.splitlines():
        if line.strip():
            return line.strip()
    return ""


def cell_result(index, cell, outcome, seconds, ename=None, evalue=None, count=None):
    limit = config["max_chars"]
    text = "".join(output_text(o) for o in cell.get("outputs", []))
    return {
        "index": index,
        "id": cell.get("id"),
        "first_line": first_line(cell.source),
        "outcome": outcome,
        "ename": ename,
        "evalue": evalue,
        "seconds": seconds,
        # The start and the end (where a traceback says what failed).
        "output": text if len(text) <= limit else text[: limit // 2] + "\n[...]\n" + text[-(limit // 2) :],
        "output_chars": len(text),
        "failed_line": failed_line(cell, count) if outcome == "error" else None,
    }


def run_cells(client, nb, results):
    """Each code cell in order until one fails; the rest are not reached."""
    stopped = False
    count = 0
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if stopped:
            results.append(cell_result(index, cell, "not_reached", 0.0))
            continue
        t0 = time.perf_counter()
        try:
            count += 1
            client.execute_cell(cell, index, execution_count=count)
            outcome, ename, evalue = "ok", None, None
        except CellTimeoutError:
            outcome, ename, evalue = "timeout", None, None
            stopped = True
        except CellExecutionError as e:
            outcome, ename, evalue = "error", e.ename, e.evalue
            stopped = True
        except DeadKernelError as e:
            outcome, ename, evalue = "error", "DeadKernelError", str(e)
            stopped = True
        seconds = time.perf_counter() - t0
        results.append(cell_result(index, cell, outcome, seconds, ename, evalue, count))
        print(f"cell {index}", file=sys.stderr, flush=True)


def run():
    started = time.perf_counter()
    nb = nbformat.read(config["notebook"], as_version=4)
    client = NotebookClient(
        nb,
        timeout=config["cell_timeout"],
        kernel_name=config["kernel"],
        allow_errors=False,
        shutdown_kernel="immediate",
        resources={"metadata": {"path": config["workdir"]}},
    )
    results = []
    language = {}
    kernel_seconds = None
    client_started = time.perf_counter()
    kernel_up = False
    try:
        log = open(config["kernel_log"], "ab")
        with client.setup_kernel(stdout=log, stderr=log, preexec_fn=die_with_this_harness()):
            kernel_up = True
            kernel_seconds = time.perf_counter() - client_started
            pid = getattr(client.km.provisioner, "pid", None)
            if pid is not None:
                with open(config["pid_file"], "w") as f:
                    f.write(str(pid))
            info = client.wait_for_reply(client.kc.kernel_info())
            if info is not None:
                language = info["content"].get("language_info", {})
            run_cells(client, nb, results)
    except Exception as e:
        if kernel_up:
            raise
        print(f"harness: cannot start kernel {config['kernel']}: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(4)
    client_seconds = time.perf_counter() - client_started
    prefixes = sorted({sys.prefix, sys.base_prefix, sys.exec_prefix})
    json.dump(
        {
            "harness": 1,
            "python": platform.python_version(),
            "python_prefixes": prefixes,
            "nbclient": nbclient.__version__,
            "nbformat": nbformat.__version__,
            "ipykernel": ipykernel.__version__,
            "jupyter_client": version_of("jupyter_client"),
            "torch": version_of("torch"),
            "kernel": config["kernel"],
            "kernel_language": language.get("name"),
            "kernel_language_version": language.get("version"),
            "user": user_name(),
            "host": platform.node(),
            "kernel_start_seconds": kernel_seconds,
            "client_seconds": client_seconds,
            "harness_seconds": time.perf_counter() - started,
            "cells": results,
        },
        sys.stdout,
    )
    sys.stdout.write("\n")


def user_name():
    try:
        import getpass

        return getpass.getuser()
    except Exception:
        return None


run()
