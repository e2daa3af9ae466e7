#!/usr/bin/env bash
# The main job on the bundled example: analyse it with every EPA report.
set -euo pipefail
bin=${1:-build/bin}
here=$(cd "$(dirname "$0")/.." && pwd)
trace="$here/examples/traces/fig4_5.txt"

echo "== grainscope info (the seed's figure 4.5 example)"
"$bin/grainscope" info "$trace"
echo
echo "== grainscope report"
"$bin/grainscope" report "$trace"
echo
echo "== grainscope gantt"
"$bin/grainscope" gantt "$trace"
echo
echo "== grainscope taskgraph"
"$bin/grainscope" taskgraph "$trace"
