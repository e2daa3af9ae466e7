#!/usr/bin/env bash
# The main job on the bundled example (issue 22): record examples/wavefront.cc — a blocked
# wavefront of 16 x 16 blocks, each a grain of about 2 ms, every dependency a message — on the
# machine's cores and once on one thread, then analyse the multi-core run and project it onto
# 1..2P processors against both runs (the seed's chapter 5 loop).
set -euo pipefail
bin=${1:-build/bin}
out=${2:-build/demo}
mkdir -p "$out"
trace="$out/wavefront.gst"
one="$out/wavefront-1thread.gst"
rm -f "$trace" "$one"
cores=$(nproc 2>/dev/null || echo 2)

echo "== recording: GRAINSCOPE_TRACE=$trace $bin/example_wavefront --threads $cores   (one per core)"
first=$(GRAINSCOPE_TRACE="$trace" "$bin/example_wavefront" --threads "$cores")
echo "$first"
# The same work on one thread: the sweeps per block the first run calibrated.
sweeps=$(sed -n 's/.* blocks of \([0-9]*\) sweeps.*/\1/p' <<<"$first")
echo "== recording the same program on one thread: $bin/example_wavefront --threads 1 --sweeps $sweeps"
GRAINSCOPE_TRACE="$one" "$bin/example_wavefront" --threads 1 --sweeps "$sweeps"
for step in info report gantt critpath; do
  echo
  echo "== grainscope $step $trace --top 8"
  "$bin/grainscope" "$step" "$trace" --top 8
done
echo
echo "== grainscope predict $trace -p 1..$((2 * cores)) --actual $one   (the seed's chapter 5 loop)"
"$bin/grainscope" predict "$trace" -p "1..$((2 * cores))" --actual "$one"
"$bin/grainscope" predict "$trace" -p "1..$((2 * cores))" --actual "$one" --format json |
  python3 -c 'import json, sys
p = json.load(sys.stdin)
for r in [p["measured"]] + p["actual"]:
    print("projection error on {} processor(s): {:+.1f} % (model {:+.1f} %, times {:+.1f} %, scheduler {:+.1f} %)".format(
        r["processors"], 100 * r["corrected_error"], 100 * r["model_error"], 100 * r["times_error"],
        100 * r["scheduler_error"]))'
echo
echo "== grainscope html $trace -o $out/wavefront.html   (every view on one offline page)"
"$bin/grainscope" html "$trace" -o "$out/wavefront.html" --force
echo "open $out/wavefront.html in a browser"
