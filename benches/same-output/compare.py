#!/usr/bin/env python3
"""Runs the same commands with two binaries of research_companion and says
whether their output is the same (see README.md beside this file).

    compare.py OLD_BINARY NEW_BINARY [OUT_DIR]

Each binary gets a scratch project of its own, made the same way from this
checkout's committed book-snapshots/, records/ and tests/fixtures/; both run
every line of commands.txt in order; each command's exit code, stdout,
stderr and the files it wrote are recorded with the masks below applied,
and the two records compared. Exit 0 when every command is identical, 1
when any differs (or a bad input did not fail as it must), 2 on misuse.
Standard library only.
"""

import datetime
import difflib
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
COMMANDS = os.environ.get("SAME_OUTPUT_COMMANDS", os.path.join(HERE, "commands.txt"))
# "Today" for `report`, the site and anything else that reads
# RESEARCH_COMPANION_NOW: fixed, so it needs no mask.
FIXED_NOW = "2026-12-01T12:00:00Z"
# Seconds one command may take before it is stopped (and recorded as such).
TIMEOUT = 600
# The record cache is a shortcut keyed to the binary that wrote it, not
# something either binary stores as evidence (the CLI tests skip it too).
SKIPPED_FILES = {".research-companion-cache"}
DIFF_LINES = 40


def parse_commands(path):
    """The lines of commands.txt: (kind, tags, text, line number), kind
    'setup' for `!` lines (run, not compared) and 'cmd' for the rest."""
    out = []
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("!"):
                out.append(("setup", set(), line[1:].strip(), number))
                continue
            tags = set()
            while line.startswith("@"):
                tag, _, line = line.partition(" ")
                tags.add(tag[1:])
                line = line.strip()
            unknown = tags - {"numbers", "load", "exit-only", "fail"}
            if unknown:
                sys.exit(f"{path}:{number}: unknown tag(s) {sorted(unknown)}")
            out.append(("cmd", tags, line, number))
    return out


def repo_root():
    top = subprocess.run(
        ["git", "-C", HERE, "rev-parse", "--show-toplevel"],
        capture_output=True, text=True, check=True,
    )
    return top.stdout.strip()


def make_side(root, name, binary, repo):
    """A scratch tree for one binary: project/ (book-snapshots/ and
    records/ as committed), in/ (tests/fixtures/ as committed), out/,
    home/, tmp/, and bin/research_companion, a link to the binary, so
    clap prints the same program name for both."""
    side = os.path.join(root, name)
    for sub in ("project", "in", "out", "home", "tmp", "bin"):
        os.makedirs(os.path.join(side, sub))
    archive = subprocess.run(
        ["git", "-C", repo, "archive", "HEAD", "book-snapshots", "records", "tests/fixtures"],
        capture_output=True, check=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", os.path.join(side, "project")], input=archive, check=True)
    os.rename(os.path.join(side, "project", "tests", "fixtures"), os.path.join(side, "in", "fixtures"))
    os.rmdir(os.path.join(side, "project", "tests"))
    os.symlink(os.path.abspath(binary), os.path.join(side, "bin", "research_companion"))
    return side


def environment(side):
    env = {
        "PATH": os.path.join(side, "bin") + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.path.join(side, "home"),
        "TMPDIR": os.path.join(side, "tmp"),
        "TZ": "UTC",
        "LC_ALL": "C.UTF-8",
        "NO_COLOR": "1",
        "COLUMNS": "100",
        "RESEARCH_COMPANION_ROOT": os.path.join(side, "project"),
        "RESEARCH_COMPANION_NOW": FIXED_NOW,
        "PROJECT": os.path.join(side, "project"),
        "IN": os.path.join(side, "in"),
        "OUT": os.path.join(side, "out"),
    }
    return env


def tree(side):
    """Every file under project/ and out/: relative path -> bytes' sha256
    is taken later, after masking; here path -> content."""
    files = {}
    for top in ("project", "out"):
        base = os.path.join(side, top)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_FILES)
            for name in filenames:
                if name in SKIPPED_FILES:
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, side)
                try:
                    if os.path.islink(path):
                        content = b"link -> " + os.readlink(path).encode()
                    elif os.path.isfile(path):
                        with open(path, "rb") as f:
                            content = f.read()
                    else:
                        content = b"<not a regular file>"
                except OSError as e:
                    content = f"<unreadable: {e.strerror}>".encode()
                files[rel] = content
    return files


def run_side(side, commands):
    """Runs every line in `side`; returns one raw result per command."""
    env = environment(side)
    results = []
    before = tree(side)
    for kind, tags, text, number in commands:
        script = "set -o pipefail; " + (text if kind == "setup" else "research_companion " + text)
        try:
            p = subprocess.run(
                ["bash", "-c", script], cwd=env["PROJECT"], env=env,
                stdin=subprocess.DEVNULL, capture_output=True, timeout=TIMEOUT,
            )
            code, stdout, stderr = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired as e:
            code, stdout, stderr = "timeout", e.stdout or b"", e.stderr or b""
        after = tree(side)
        if kind == "setup":
            before = after
            continue
        changed = {
            path: content for path, content in after.items() if before.get(path) != content
        }
        removed = sorted(set(before) - set(after))
        results.append({
            "line": number, "tags": tags, "text": text, "code": code,
            "stdout": stdout, "stderr": stderr, "changed": changed, "removed": removed,
        })
        before = after
    return results


# --- masks ---------------------------------------------------------------

def global_masks(side, dates):
    """What differs between two runs of one binary, for every command."""
    days = "|".join(sorted({d.strftime("%Y%m%d") for d in dates}))
    dashed = "|".join(sorted({d.strftime("%Y-%m-%d") for d in dates}))
    roots = {side, os.path.realpath(side)}
    return [
        # 1. The scratch tree's own path (each binary has its own).
        *[(re.compile(re.escape(r)), "<ROOT>") for r in sorted(roots, key=len, reverse=True)],
        # 2. Run ids the commands make now: `20261207T031522-1a2b3c4d5e6f`,
        #    in a record's id `...:06:20261207T031522:1a2b3c4d5e6f`; the
        #    hex is a hash over the time, so it goes too. Ids of other
        #    days (the committed records, the fixtures) stay.
        (re.compile(rf"\b(?:{days})T\d{{6}}([-:])[0-9a-f]{{12}}\b"), r"<NEW-RUN-ID\1>"),
        # 3. Times of now: `2026-12-07T03:15:22.123Z`, `2026-12-07 03:15 UTC`.
        (re.compile(
            rf"\b(?:{dashed})(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d| UTC)?)?"
        ), "<NOW>"),
        # 4. The environment's volatile readings, which every record and
        #    `env` keep beside the environment's identity: load average,
        #    memory available, CPU MHz (text, JSON and YAML forms).
        (re.compile(r"(?m)^(\s*(?:load average|mem available|CPU MHz)\s+).*$"), r"\1<VOLATILE>"),
        (re.compile(r'("load_average":\s*)\[[^\]]*\]'), r"\1<VOLATILE>"),
        (re.compile(r'("(?:memory_available_bytes|cpu_mhz)":\s*)[^,\n}]+'), r"\1<VOLATILE>"),
        (re.compile(r"(?m)^(\s*(?:load_average|memory_available_bytes|cpu_mhz):).*(?:\n\s+- .*)*"), r"\1 <VOLATILE>"),
        # 5. A record's nonce: 16 random hex digits, new with every record.
        (re.compile(r'(?m)^(\s*"?nonce"?:\s*"?)[0-9a-f]{16}\b'), r"\1<NONCE>"),
        # 6. The commit each binary was built from (`env`, a record's
        #    build): two builds of two commits differ there by definition.
        (re.compile(r'(\bcommit |\bgit_commit"?:\s*"?)(?:[0-9a-f]{7,40}|unknown)\b'), r"\1<COMMIT>"),
    ]


TAG_MASKS = {
    # Timings: every number (bench, reproduce, a notebook run's seconds).
    "numbers": [
        (re.compile(r"\d+(?:\.\d+)?(?:e[+-]?\d+)?"), "<N>"),
        (re.compile(r"[ \t]+"), " "),
    ],
    # The machine's load while a run measured: whether a configuration was
    # disturbed (its line, its `*` mark), is the machine's doing, not the binary's.
    "load": [
        (re.compile(r"(?m)^.*(?:disturbed|outside load|machine busy|undisturbed).*$"), "<LOAD LINE>"),
        (re.compile(r"<N>%?\*"), "<N>"),
    ],
}


def mask(data, masks):
    text = data.decode("utf-8", errors="surrogateescape") if isinstance(data, bytes) else data
    for pattern, replacement in masks:
        text = pattern.sub(replacement, text)
    return text


def render(result, masks):
    """One command's record as text: what the two binaries are compared on."""
    m = masks + [mk for tag in ("numbers", "load") if tag in result["tags"] for mk in TAG_MASKS[tag]]
    lines = [f"$ research_companion {result['text']}", f"exit: {result['code']}"]
    if "exit-only" in result["tags"]:
        lines.append("(exit-only: output and file contents not compared)")
    else:
        lines += ["--- stdout", mask(result["stdout"], m), "--- stderr", mask(result["stderr"], m)]
    written = []
    for path, content in result["changed"].items():
        digest = hashlib.sha256(mask(content, m).encode("utf-8", errors="surrogateescape")).hexdigest()[:16]
        written.append(f"  {mask(path, m)}  {'-' if 'exit-only' in result['tags'] else digest}")
    if written or result["removed"]:
        lines.append("--- files written (path, sha256 of the masked content)")
        lines += sorted(written)
        lines += [f"  removed {mask(p, m)}" for p in result["removed"]]
    return "\n".join(lines) + "\n"


def expectation(result):
    """A `@fail` line must exit 2 with exactly one line on stderr."""
    if "fail" not in result["tags"]:
        return None
    err = result["stderr"].decode("utf-8", errors="replace")
    if result["code"] == 2 and err.count("\n") == 1 and err.endswith("\n"):
        return None
    return f"exit {result['code']} with {err.count(chr(10))} stderr line(s), not exit 2 with one"


def main(argv):
    if len(argv) not in (3, 4) or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    old, new = argv[1], argv[2]
    for b in (old, new):
        if not (os.path.isfile(b) and os.access(b, os.X_OK)):
            print(f"compare: {b}: not an executable file", file=sys.stderr)
            return 2
    out = os.path.abspath(argv[3]) if len(argv) == 4 else tempfile.mkdtemp(prefix="same-output-")
    os.makedirs(out, exist_ok=True)
    if os.listdir(out):
        print(f"compare: {out}: not empty (give a new or empty folder)", file=sys.stderr)
        return 2
    commands = parse_commands(COMMANDS)
    repo = repo_root()
    started = time.monotonic()
    dates = [datetime.datetime.now(datetime.timezone.utc)]
    raw = {}
    for name, binary in (("old", old), ("new", new)):
        side = make_side(out, name, binary, repo)
        raw[name] = (side, run_side(side, commands))
    dates.append(datetime.datetime.now(datetime.timezone.utc))

    identical, differ, unmet = 0, [], []
    for name in ("old", "new"):
        os.makedirs(os.path.join(out, name, "records"))
    pairs = zip(raw["old"][1], raw["new"][1])
    for i, (a, b) in enumerate(pairs, 1):
        texts = {}
        for name, result in (("old", a), ("new", b)):
            side = raw[name][0]
            texts[name] = render(result, global_masks(side, dates))
            with open(os.path.join(out, name, "records", f"{i:03}.txt"), "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(texts[name])
            problem = expectation(result)
            if problem:
                unmet.append(f"line {result['line']} ({name}): {result['text']}: {problem}")
        if texts["old"] == texts["new"]:
            identical += 1
        else:
            differ.append((a, texts))

    total = identical + len(differ)
    print(f"{total} commands, {identical} identical, {len(differ)} differ")
    for result, texts in differ:
        print(f"\n### commands.txt line {result['line']}: {result['text']}")
        diff = list(difflib.unified_diff(
            texts["old"].splitlines(), texts["new"].splitlines(), "old", "new", lineterm="", n=2,
        ))
        print("\n".join(diff[:DIFF_LINES]))
        if len(diff) > DIFF_LINES:
            print(f"... {len(diff) - DIFF_LINES} more diff lines")
    for line in unmet:
        print(f"bad input not refused as it must be: {line}")
    print(f"\nrecords in {out}/old/records and {out}/new/records; {time.monotonic() - started:.0f} s")
    return 1 if differ or unmet else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
