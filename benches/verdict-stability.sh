#!/usr/bin/env bash
# Measures the targets of docs/verdicts.md that no test may assert (tests
# never time anything), and prints what it found; it asserts nothing.
#
#   1. five back-to-back default `reproduce` runs of chapter 06: each one's
#      verdicts and flags, wall time and rounds; whether all five agree;
#   2. a CPU-bound process pinned to the run's CPU for the whole run: the
#      verdicts (no NOT_REPRODUCED expected), the record's mark, and what
#      `publish` lists as contradictory or negative;
#   3. a hog that stops partway (after HOG_SECONDS, default 20): the runs made
#      again, and whether the verdicts match the first quiet run's;
#   4. what measuring the outside load costs, against the shortest
#      configuration.
#
# Usage, from the project root, on a quiet machine (load average under 1):
#   benches/verdict-stability.sh            # refuses a busy machine
#   benches/verdict-stability.sh --anyway   # measures anyway, and says so
# Environment: BIN (the binary; default target/release/research_companion,
# built if missing), RUNS (default 5), HOG_SECONDS (default 20),
# REPRODUCE_ARGS (added to every reproduce, for a short trial of the script
# itself: REPRODUCE_ARGS="--batches 2 --rounds 2 --budget 5"; the targets are
# about the defaults, so leave it empty to measure them).
# It works in a temporary project made from tests/fixtures/, so the
# working tree's records are never touched; the hog is killed on every exit.
set -euo pipefail

cd "$(dirname "$0")/.."
BIN=${BIN:-target/release/research_companion}
RUNS=${RUNS:-5}
read -r -a EXTRA <<<"${REPRODUCE_ARGS:-}"
HOG_SECONDS=${HOG_SECONDS:-20}

load=$(cut -d' ' -f1 /proc/loadavg)
if awk -v l="$load" 'BEGIN { exit !(l >= 1) }'; then
    if [[ "${1:-}" != "--anyway" ]]; then
        echo "load average $load: not a quiet machine; the numbers would say more about the load than about the tool." >&2
        echo "Run it again when the load average is under 1, or pass --anyway." >&2
        exit 0
    fi
    echo "NOTE: load average $load at the start: not a quiet machine."
fi
[[ -x "$BIN" ]] || cargo build --release --locked
BIN=$(realpath "$BIN")

work=$(mktemp -d)
hog=""
stopper=""
cleanup() {
    [[ -n "$stopper" ]] && kill "$stopper" 2>/dev/null || true
    [[ -n "$hog" ]] && kill "$hog" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

project() { # a fresh project in $work/$1
    mkdir -p "$work/$1"
    cp -r tests/fixtures/book-snapshots "$work/$1/"
    echo "$work/$1"
}

# The CPU a `--cpus 1` run uses: the first of this shell's affinity mask.
cpu=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')

# One reproduce in project $1, run file $2; prints its wall time in s.
reproduce() {
    local root=$1 out=$2 t0 t1
    t0=$(date +%s.%N)
    "$BIN" --root "$root" reproduce 06 "${EXTRA[@]}" --out "$out" --format json >"$out.json" 2>"$out.err" || true
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }'
}

# Verdicts and flags of a reproduce's JSON, one line: `id=CLASS[+flag...]`.
verdicts() {
    python3 - "$1" <<'EOF'
import json, sys
v = json.load(open(sys.argv[1]))
out = []
for c in v["chapters"][0]["comparison"]["claims"]:
    flags = []
    if c.get("magnitude_differs") is not None: flags.append("magnitude-differs")
    if c.get("magnitude_uncertain") is not None: flags.append("magnitude-uncertain")
    if c.get("model_limit") is not None: flags.append("model-limit")
    if not c.get("quote_found", True): flags.append("quote-missing")
    out.append(c["id"] + "=" + "+".join([c["verdict"]] + flags))
print(" ".join(out))
EOF
}

# Rounds, runs disturbed, re-runs, highest outside share, and the
# measuring cost against the shortest configuration, of a run file.
describe() {
    python3 - "$1" <<'EOF'
import sys, yaml
r = yaml.safe_load(open(sys.argv[1]))
runs = [x for c in r["results"] for x in c["repeats"]]
rounds = max((x.get("round", 1) for x in runs), default=1)
disturbed = sum(1 for x in runs if x["row"].get("disturbed"))
reruns = len(runs) - rounds * len(r["results"]) * r["settings"]["repeat"]
outside = max((x["row"].get("outside", 0) for x in runs), default=0)
cost = r.get("outside_load_cost_ns") or 0
shortest = min(x["row"]["window_ms"] for x in runs)
print(f"{rounds} rounds, {len(runs)} configuration runs ({reruns} re-runs), "
      f"{disturbed} disturbed, outside up to {outside:.1%}; measuring cost "
      f"{cost / 1e3:.0f} us per configuration = {cost / 1e6 / shortest:.4%} of the shortest ({shortest:.0f} ms)")
EOF
}

start_hog() {
    taskset -c "$cpu" sh -c 'while :; do :; done' &
    hog=$!
}

stop_hog() {
    [[ -n "$hog" ]] && kill "$hog" 2>/dev/null || true
    wait "$hog" 2>/dev/null || true
    hog=""
}

echo "== 1. $RUNS back-to-back default reproduce runs (CPU $cpu, load $load)"
quiet=$(project quiet)
first=""
same=yes
for i in $(seq 1 "$RUNS"); do
    wall=$(reproduce "$quiet" "$work/quiet-$i.run.yaml")
    v=$(verdicts "$work/quiet-$i.run.yaml.json")
    [[ -z "$first" ]] && first=$v
    [[ "$v" == "$first" ]] || same=no
    echo "run $i: ${wall} s wall; $(describe "$work/quiet-$i.run.yaml")"
    echo "       $v"
done
echo "verdicts and flags equal in all $RUNS runs: $same"

echo
echo "== 2. a hog pinned to CPU $cpu for the whole run"
busy=$(project busy)
start_hog
wall=$(reproduce "$busy" "$work/busy.run.yaml")
stop_hog
echo "${wall} s wall; $(describe "$work/busy.run.yaml")"
echo "       $(verdicts "$work/busy.run.yaml.json")"
echo "NOT_REPRODUCED claims: $(verdicts "$work/busy.run.yaml.json" | tr ' ' '\n' | grep -c '=NOT_REPRODUCED' || true)"
"$BIN" --root "$busy" history 06 | grep -o 'disturbed: [^]]*' | head -1 || echo "no disturbed mark in history"
# The site data lists evidence once a chapter is researched: record the
# fixtures' review, then count what the busy run's own items say.
"$BIN" --root "$busy" record 06 --report tests/fixtures/reports/review-06.md >/dev/null
"$BIN" --root "$busy" publish pytorch-from-first-principles/06 >"$work/busy.site.yaml"
python3 - "$work/busy.site.yaml" <<'EOF'
import sys, yaml
v = yaml.safe_load(open(sys.argv[1]))
groups = v['sections']['existing_evidence']
def experiment(items):
    return [i for i in items if i['evidence']['tier'] == 'EXPERIMENT']
decided = sum(len(experiment(groups[g])) for g in ('supporting', 'qualifying', 'contradictory'))
print(f"publish (after the fixtures' review): {len(experiment(groups['contradictory']))} contradictory "
      f"and {decided} decided items from the run, "
      f"{len(experiment(groups['unresolved']))} unresolved; "
      f"{sum('experiment' in n['paper']['title'] for n in v['negative_findings'])} negative findings from it")
EOF

echo
echo "== 3. a hog that stops after $HOG_SECONDS s"
partway=$(project partway)
start_hog
( sleep "$HOG_SECONDS"; kill "$hog" 2>/dev/null ) &
stopper=$!
wall=$(reproduce "$partway" "$work/partway.run.yaml")
stop_hog
wait "$stopper" 2>/dev/null || true
stopper=""
v=$(verdicts "$work/partway.run.yaml.json")
echo "${wall} s wall; $(describe "$work/partway.run.yaml")"
echo "       $v"
if [[ "$v" == "$first" ]]; then
    echo "verdicts and flags match the first quiet run's: yes"
else
    echo "verdicts and flags match the first quiet run's: no"
fi

echo
echo "== 4. the outside load's cost: in each line above ('measuring cost')"
