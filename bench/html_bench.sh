#!/usr/bin/env bash
# The HTML report on a big trace (issue 10: a trace of 10 million events must render in under 2 s
# and the page stay under 50 MB). Generates a synthetic trace with bench/gen (.gst directory),
# times `grainscope html` on it against `grainscope info` (loading alone: the baseline, same
# run), measures the page, and its first render in headless chromium (tests/browser/first_render.mjs).
# Prints one JSON object; medians of RUNS runs.
#   bench/html_bench.sh [BIN_DIR] [EVENTS] [RUNS]
set -euo pipefail
bin=${1:-build/bin}
events=${2:-10000000}
runs=${3:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$bin/gen" --locations 64 --events "$events" --seed 1 --gst "$work/trace" >"$work/gen.json"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
seconds() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null; t1=$(date +%s.%N); echo "$t1 - $t0" | bc -l; }

info=$(for _ in $(seq "$runs"); do seconds "$bin/grainscope" info "$work/trace"; done | median)
html=$(for _ in $(seq "$runs"); do seconds "$bin/grainscope" html "$work/trace" -o "$work/page.html"; done | median)
bytes=$(stat -c %s "$work/page.html")
render='null'
if [ -d "$here/tests/browser/node_modules/playwright-core" ] && command -v node >/dev/null; then
  render=$(node "$here/tests/browser/first_render.mjs" "$work/page.html" "$runs" || echo null)
fi
printf '{"generated": %s, "info_s": %.3f, "html_s": %.3f, "page_bytes": %s, "page_mb": %.1f, "browser": %s}\n' \
  "$(cat "$work/gen.json")" "$info" "$html" "$bytes" "$(echo "$bytes / 1048576" | bc -l)" "$render"
