#!/usr/bin/env bash
# The HTML report on a big trace (issue 10: a trace of 10 million events must render in under 2 s
# and the page stay under 50 MB). Generates a synthetic trace with bench/gen (.gst directory),
# times `grainscope html` on it against `grainscope info` (loading alone: the baseline, same
# run), measures the page, and its first render in headless chromium (tests/browser/first_render.mjs).
# Prints one JSON object; medians of RUNS runs, wall and CPU (user + sys) seconds.
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
# "wall cpu" seconds of one run (cpu = user + sys: steadier than wall time on a shared machine).
timed() { /usr/bin/time -f '%e %U %S' "$@" 2>&1 >/dev/null | tail -1 | awk '{print $1, $2 + $3}'; }
runs_of() { for _ in $(seq "$runs"); do timed "$@"; done; }

runs_of "$bin/grainscope" info "$work/trace" >"$work/info.txt"
runs_of "$bin/grainscope" html "$work/trace" -o "$work/page.html" --force >"$work/html.txt"
info=$(cut -d' ' -f1 "$work/info.txt" | median); info_cpu=$(cut -d' ' -f2 "$work/info.txt" | median)
html=$(cut -d' ' -f1 "$work/html.txt" | median); html_cpu=$(cut -d' ' -f2 "$work/html.txt" | median)
bytes=$(stat -c %s "$work/page.html")
render='null'
if [ -d "$here/tests/browser/node_modules/playwright-core" ] && command -v node >/dev/null; then
  render=$(node "$here/tests/browser/first_render.mjs" "$work/page.html" "$runs" || echo null)
fi
printf '{"generated": %s, "info_wall_s": %.2f, "info_cpu_s": %.2f, "html_wall_s": %.2f, "html_cpu_s": %.2f, "page_bytes": %s, "page_mb": %.1f, "browser": %s}\n' \
  "$(cat "$work/gen.json")" "$info" "$info_cpu" "$html" "$html_cpu" "$bytes" "$(echo "$bytes / 1048576" | bc -l)" "$render"
