#!/usr/bin/env bash
# libgrainscope-pthread's cost on an uncontended mutex lock/unlock pair and on a condition signal
# (issue 21): bench/pthread/lock_bench plain and with the library preloaded, alternating, ROUNDS
# times each; prints one JSON line with the medians (ns) and the difference per pair.
# Usage: bench/pthread/lock_bench.sh BUILD_DIR [ROUNDS=7] [PAIRS=10000000]
set -euo pipefail
build=${1:?usage: lock_bench.sh BUILD_DIR [ROUNDS] [PAIRS]}
rounds=${2:-7}
pairs=${3:-10000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for ((r = 0; r < rounds; r++)); do
  "$build/bin/lock_bench" "$pairs" >>"$work/plain.jsonl"
  LD_PRELOAD="$build/lib/libgrainscope-pthread.so" GRAINSCOPE_TRACE="$work/t$r.gst" "$build/bin/lock_bench" "$pairs" >>"$work/traced.jsonl"
done
python3 - "$work/plain.jsonl" "$work/traced.jsonl" "$rounds" <<'PY'
import json, statistics, sys
def med(path, key):
    return statistics.median(json.loads(l)[key] for l in open(path))
p, t, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
out = {"bench": "pthread_lock", "rounds": rounds}
for key in ("lock_unlock_pair_ns", "cond_signal_ns"):
    out[key] = {"plain": med(p, key), "preloaded": med(t, key), "added": round(med(t, key) - med(p, key), 2)}
print(json.dumps(out))
PY
