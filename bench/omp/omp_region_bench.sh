#!/usr/bin/env bash
# libgrainscope-omp's cost per OpenMP construct (issue 21): bench/omp/omp_region_bench plain and
# with the OMPT tool loaded (OMP_TOOL_LIBRARIES), alternating, ROUNDS times each; prints one JSON
# line with the medians (ns) and the difference per construct. Exit 77 when the program or the
# tool was not built (no clang or libomp-dev).
# Usage: bench/omp/omp_region_bench.sh BUILD_DIR [ROUNDS=7] [REPETITIONS=20000] [THREADS=2]
set -euo pipefail
build=${1:?usage: omp_region_bench.sh BUILD_DIR [ROUNDS] [REPETITIONS] [THREADS]}
rounds=${2:-7}
reps=${3:-20000}
threads=${4:-2}
program="$build/bin/omp_region_bench"
tool="$build/lib/libgrainscope-omp.so"
for f in "$program" "$tool"; do
  if [ ! -e "$f" ]; then echo "SKIP: $f was not built (clang -fopenmp and libomp-dev)"; exit 77; fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=$threads OMP_PROC_BIND=false
for ((r = 0; r < rounds; r++)); do
  "$program" "$reps" >>"$work/plain.jsonl"
  OMP_TOOL_LIBRARIES="$tool" GRAINSCOPE_TRACE="$work/t$r.gst" "$program" "$reps" >>"$work/traced.jsonl"
  test -s "$work/t$r.gst" || { echo "the tool wrote no trace" >&2; exit 1; }
done
python3 - "$work/plain.jsonl" "$work/traced.jsonl" "$rounds" "$(stat -c %s "$work/t0.gst")" <<'PY'
import json, statistics, sys
def med(path, key):
    return statistics.median(json.loads(l)[key] for l in open(path))
p, t, rounds, trace_bytes = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
first = json.loads(open(p).readline())
out = {"bench": "omp_ompt_tool", "rounds": rounds, "threads": first["threads"],
       "repetitions": first["repetitions"], "trace_bytes": trace_bytes}
for key in ("parallel_region_ns", "barrier_ns", "critical_ns", "for_loop_ns"):
    out[key] = {"plain": med(p, key), "with_tool": med(t, key), "added": round(med(t, key) - med(p, key), 1)}
print(json.dumps(out))
PY
