#!/usr/bin/env bash
# The main job on the bundled example: record the seed's pi program (examples/pi.cc: a start
# grain sends the interval to 5 workers on 2 threads, an aggregate grain collects the partial
# sums), then analyse the trace it left.
set -euo pipefail
bin=${1:-build/bin}
out=${2:-build/demo}
mkdir -p "$out"
trace="$out/pi.gst"
rm -f "$trace"

echo "== recording: GRAINSCOPE_TRACE=$trace $bin/example_pi"
GRAINSCOPE_TRACE="$trace" "$bin/example_pi"
for step in info report gantt taskgraph critpath waits; do
  echo
  echo "== grainscope $step $trace"
  "$bin/grainscope" "$step" "$trace"
done
echo
echo "== grainscope predict $trace -p 1..4   (the seed's chapter 5 loop)"
"$bin/grainscope" predict "$trace" -p 1..4
echo
echo "== grainscope compensate $trace   (measurement overhead removed)"
"$bin/grainscope" compensate "$trace"
echo
echo "== grainscope html $trace -o $out/pi.html   (every view on one offline page)"
"$bin/grainscope" html "$trace" -o "$out/pi.html" --force
echo "open $out/pi.html in a browser"
