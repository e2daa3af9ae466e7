#!/usr/bin/env bash
# Runs every fuzz target for SECONDS seconds on its seed corpus (make_corpus.sh) and prints, per
# target, the executions that ran clean. Exits non-zero on the first crash, leak, timeout or
# sanitizer report; the input that caused it is in BUILD/fuzz-artifacts/.
#   fuzz/run.sh BUILD_DIR SECONDS [TARGET...]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: run.sh BUILD_DIR SECONDS [TARGET...]}
seconds=${2:?usage: run.sh BUILD_DIR SECONDS [TARGET...]}
shift 2
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_seedtext fuzz_gst fuzz_gst_dir fuzz_gst_block fuzz_chrome fuzz_csv fuzz_projections fuzz_nsight fuzz_hpctoolkit fuzz_kineto_dir fuzz_taskgraph fuzz_detect fuzz_otf2 fuzz_cli_numbers)
corpus=$build/fuzz-corpus
artifacts=$build/fuzz-artifacts
"$root/fuzz/make_corpus.sh" "$corpus"
mkdir -p "$artifacts" "$build/fuzz-logs"
status=0
for t in "${targets[@]}"; do
  log=$build/fuzz-logs/$t.log
  # -timeout: an input taking longer than 10 s is a hang; -rss_limit_mb: unbounded allocation.
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$build/bin/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$artifacts/$t-" "$corpus/$t" >"$log" 2>&1
  rc=$?
  runs=$(grep -ao 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  if [ $rc -eq 0 ]; then
    printf '%-18s %10s executions clean in %s s\n' "$t" "${runs:-?}" "$seconds"
  else
    printf '%-18s FAILED (exit %d) after %s executions; see %s\n' "$t" $rc "${runs:-?}" "$log"
    grep -a -m5 -E 'ERROR|SUMMARY|Test unit written' "$log" | sed 's/^/    /'
    status=1
  fi
done
exit $status
