#!/usr/bin/env bash
# Seed corpora for the fuzz targets, from the inputs the golden tests and the examples already
# have: symbolic links to those files (nothing is copied), plus small generated seeds where a
# target needs a selector byte in front (fuzz_taskgraph, fuzz_otf2).
#   fuzz/make_corpus.sh OUT_DIR      -> OUT_DIR/<target>/ for every target
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: make_corpus.sh OUT_DIR}
cases=$root/tests/golden/cases

link() {  # link TARGET FILE...: seeds named after their case, so a crash is easy to trace back
  local target=$1; shift
  mkdir -p "$out/$target"
  for f in "$@"; do
    [ -f "$f" ] || continue
    local name
    name=seed-$(basename "$(dirname "$f")")-$(basename "$f")
    ln -sfn "$f" "$out/$target/$name"
  done
}

prefixed() {  # prefixed TARGET BYTE FILE: a seed = one selector byte + the file
  local target=$1 byte=$2 f=$3
  mkdir -p "$out/$target"
  local name
  name=seed-$byte-$(basename "$(dirname "$f")")-$(basename "$f")
  { printf "\\x$(printf %02x "$byte")"; cat "$f"; } > "$out/$target/$name"
}

shopt -s nullglob
# Seed text: every trace.txt of the golden cases, and the figure 4.5 example.
link fuzz_seedtext "$cases"/*/trace.txt "$cases"/*/run_p1.txt "$root/examples/traces/fig4_5.txt"
# .gst: the MPI example's rank files, the pi trace and the damaged ones of the golden cases.
link fuzz_gst "$root"/examples/traces/*/*.gst "$root"/examples/traces/*.gst "$cases"/*/*.gst
link fuzz_gst_dir "$root"/examples/traces/mpi_barrier_imbalance/*.gst
# Delta-coded blocks: two generated seeds (4 slots: a literal key, then cached keys, short and
# long time differences; and an empty block); libFuzzer finds the rest of the format from there.
mkdir -p "$out/fuzz_gst_block"
printf '\x04\x00\x10\x64\x00\x00\x01\x00\x00\x00\x05\x00\x00\x00\x00\x32\x00\x00\x20\x00\x00\x00\xff\xff\xff\xff\x00\x00\x00\x00\x00\x05\x00\x00' \
  > "$out/fuzz_gst_block/seed-generated-4"
printf '\x00\x00' > "$out/fuzz_gst_block/seed-generated-empty"
# Chrome JSON: no committed Chrome trace; the JSON inputs of the golden cases give the syntax.
link fuzz_chrome "$cases"/*/*.json
mkdir -p "$out/fuzz_chrome"
printf '%s' '{"traceEvents":[{"name":"a","ph":"B","pid":1,"tid":1,"ts":0},{"name":"a","ph":"E","pid":1,"tid":1,"ts":5},{"name":"m","ph":"s","id":1,"pid":1,"tid":1,"ts":1},{"name":"m","ph":"f","id":1,"pid":1,"tid":2,"ts":3},{"name":"x","ph":"X","pid":1,"tid":2,"ts":2,"dur":4}]}' \
  > "$out/fuzz_chrome/seed-generated.json"
# Pipit CSV: the golden cases' CSV files.
link fuzz_csv "$cases"/*/*.csv
# Projections: the golden cases' logs and .sts files (the fuzz target takes either).
link fuzz_projections "$cases"/*/*.log "$cases"/*/*.sts
# Nsight Systems: a small export written by tests/nsight_seed.py (Debian's python3 has sqlite3).
mkdir -p "$out/fuzz_nsight"
/usr/bin/python3 "$root/tests/nsight_seed.py" "$out/fuzz_nsight/seed-generated.sqlite.tmp" &&
  mv "$out/fuzz_nsight/seed-generated.sqlite.tmp" "$out/fuzz_nsight/seed-generated.sqlite"
# HPCToolkit: Pipit's ping-pong database from ../shared/corpus when it is there (never copied into
# the project), framed as the target reads it; else the target starts from nothing.
mkdir -p "$out/fuzz_hpctoolkit"
hpc="$root/../shared/corpus/other-formats/pipit-pingpong-hpctoolkit"
if [ -f "$hpc/meta.db" ]; then
  /usr/bin/python3 -c 'import struct, sys
d = sys.argv[1]
sys.stdout.buffer.write(b"".join(struct.pack("<I", len(b)) + b for b in
    (open(d + "/" + f, "rb").read() for f in ("meta.db", "profile.db", "trace.db"))))' "$hpc" \
    > "$out/fuzz_hpctoolkit/seed-pipit-pingpong"
fi
# Task graphs: selector byte 0 STG, 1 DOT, 2 seed Task_Graph, 3 JSON.
for f in "$cases"/*/*.stg; do prefixed fuzz_taskgraph 0 "$f"; done
for f in "$cases"/*/*.dot; do prefixed fuzz_taskgraph 1 "$f"; done
for f in "$cases"/*/Task_Graph; do prefixed fuzz_taskgraph 2 "$f"; done
for f in "$cases"/*/*.json; do prefixed fuzz_taskgraph 3 "$f"; done
mkdir -p "$out/fuzz_taskgraph"
printf '\x00%s' $'3\n0 0 0\n1 5 1 0\n2 3 1 0\n3 0 2 1 2\n' > "$out/fuzz_taskgraph/seed-0-generated.stg"
# Auto-detection: the selector byte picks the name (fuzz_detect.cc: 1 .gst, 2 .json, 3 .txt,
# 5 .stg, 6 .dot, 7 Task_Graph, 8 a JSON rank directory, 9 a .gst rank directory).
for f in "$root"/examples/traces/*.gst; do prefixed fuzz_detect 1 "$f"; done
for f in "$cases"/*/*.json; do prefixed fuzz_detect 2 "$f"; done
prefixed fuzz_detect 3 "$root/examples/traces/fig4_5.txt"
for f in "$cases"/*/*.stg; do prefixed fuzz_detect 5 "$f"; done
for f in "$cases"/*/*.dot; do prefixed fuzz_detect 6 "$f"; done
for f in "$cases"/*/Task_Graph; do prefixed fuzz_detect 7 "$f"; done
for f in "$root"/examples/traces/mpi_barrier_imbalance/rank-00000.gst; do prefixed fuzz_detect 9 "$f"; done
# Kineto rank directories: rank 1 of a two-rank job, and the golden JSON inputs for the syntax.
link fuzz_kineto_dir "$cases"/*/*.json
mkdir -p "$out/fuzz_kineto_dir"
printf '%s' '{"distributedInfo": {"backend": "nccl", "rank": 1, "world_size": 2}, "traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 7}, {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce", "pid": 0, "tid": 7, "ts": 12, "dur": 4}]}' \
  > "$out/fuzz_kineto_dir/seed-generated-rank1.json"
# Kineto-shaped traces with GPU launch and sync edges and NCCL collectives (issue 34's generator):
# whole files for the Chrome reader, rank 1 of the all-reduce for the rank directory's.
kineto=$(mktemp -d)
if python3 "$root/tests/kineto/make_kineto.py" "$kineto"; then
  for f in "$kineto"/*.json; do cp "$f" "$out/fuzz_chrome/seed-kineto-$(basename "$f")"; done
  cp "$kineto/allreduce/rank-1.json" "$out/fuzz_kineto_dir/seed-allreduce-rank1.json"
  cp "$kineto/p2p/rank-1.json" "$out/fuzz_kineto_dir/seed-p2p-rank1.json"
  cp "$kineto/p2p/rank-0.json" "$out/fuzz_chrome/seed-kineto-p2p-rank0.json"
fi
rm -rf "$kineto"
# OTF2: the selector byte picks the archive file; seed each with a tiny valid-looking header.
mkdir -p "$out/fuzz_otf2"
for b in 0 1 2 3 4 5; do printf "\\x0$b" > "$out/fuzz_otf2/seed-$b-empty"; done
# CLI numbers and durations.
mkdir -p "$out/fuzz_cli_numbers"
i=0
for v in 0 42 1.5 0.000001 9223372036854775807 1.123456789 ms us ns s 4 2..16 "L=2500,o=1500,G=6,S=65535" loggp latbw log linear; do
  printf '%s' "$v" > "$out/fuzz_cli_numbers/seed-$i"; i=$((i + 1))
done
