#!/usr/bin/env bash
# MPI latency under tracing (issue 20 item 2): bench/mpi/mpi_latency untraced and under
# `grainscope record`, alternating, ROUNDS times each, blocking and persistent. Prints one JSON
# line per mode and size with the median latencies (us) and traced / untraced, then a summary line
# for the persistent ping-pong's total time (its target: within 1.5x of untraced).
# Usage: bench/mpi/mpi_latency.sh BUILD_BIN_DIR [ROUNDS=5] [ITERATIONS=10000]
set -euo pipefail
bin=${1:?usage: mpi_latency.sh BUILD_BIN_DIR [ROUNDS] [ITERATIONS]}
rounds=${2:-5}
iterations=${3:-10000}
mpirun=$(command -v mpirun) || { echo '{"bench": "mpi_latency", "skipped": "mpirun not found"}'; exit 0; }
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A machine where mpirun cannot start two ranks (a container without the launcher's needs) skips.
if ! "$mpirun" "${root[@]}" --oversubscribe -np 2 "$bin/mpi_latency" blocking 1 >/dev/null 2>"$work/probe.log"; then
  echo "{\"bench\": \"mpi_latency\", \"skipped\": \"mpirun cannot start 2 ranks: $(head -c 200 "$work/probe.log" | tr -d '\"\n')\"}"
  exit 77
fi
for ((r = 0; r < rounds; r++)); do
  for mode in blocking persistent; do
    "$mpirun" "${root[@]}" --oversubscribe -np 2 "$bin/mpi_latency" "$mode" "$iterations" >>"$work/untraced.jsonl"
    rm -rf "$work/trace"
    "$bin/grainscope" record -n 2 --trace "$work/trace" -- "$bin/mpi_latency" "$mode" "$iterations" \
      2>/dev/null | grep '^{' >>"$work/traced.jsonl"
  done
done
python3 - "$work/untraced.jsonl" "$work/traced.jsonl" <<'PY'
import json, statistics, sys
def load(path):
    out = {}
    for line in open(path):
        j = json.loads(line)
        out.setdefault((j["mode"], j["bytes"]), []).append(j["latency_us"])
    return out
plain, traced = load(sys.argv[1]), load(sys.argv[2])
totals = {"blocking": [0.0, 0.0], "persistent": [0.0, 0.0]}
for key in sorted(plain):
    p, t = statistics.median(plain[key]), statistics.median(traced.get(key, [float("nan")]))
    totals[key[0]][0] += p
    totals[key[0]][1] += t
    print(json.dumps({"bench": "mpi_latency", "mode": key[0], "bytes": key[1], "untraced_us": p, "traced_us": t,
                      "ratio": round(t / p, 3) if p > 0 else None, "rounds": len(plain[key])}))
for mode, (p, t) in totals.items():
    ratio = t / p if p > 0 else float("inf")
    summary = {"bench": "mpi_latency_total", "mode": mode, "untraced_us": round(p, 3), "traced_us": round(t, 3),
               "ratio": round(ratio, 3)}
    if mode == "persistent":
        summary["within_1_5x"] = ratio <= 1.5
    print(json.dumps(summary))
PY
