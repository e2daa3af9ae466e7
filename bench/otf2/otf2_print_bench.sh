#!/usr/bin/env bash
# otf2-print on grainscope's OTF2 export of a trace with many thread-barrier instances (issue 31
# item 4), against otf2-print on a Score-P archive (the corpus's BT-MZ, OpenMP barriers and teams
# as Score-P writes them), per event: Score-P's definitions do not grow with the run, and neither
# must ours (one thread team communicator however many barrier instances; they used to be one
# COMM + GROUP per instance, which made otf2-print quadratic). Prints one JSON line; exit 1 when
# the export is more than 2x slower per event than Score-P's archive.
#
# Usage: bench/otf2/otf2_print_bench.sh BUILD_DIR [--smoke] [EVENTS=1000000] [THREADS=8]
#   --smoke: 20,000 events, no comparison with the corpus (ctest bench_otf2_print_smoke); still
#            checks that the definitions hold one communicator.
# The Score-P archive is ../shared/corpus/otf2-real/npb-btmz-B-8x4 (skipped with a message when
# absent); GRAINSCOPE_SCOREP_ARCHIVE=path names another.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: otf2_print_bench.sh BUILD_DIR [--smoke] [EVENTS] [THREADS]}
shift
smoke=0
if [ "${1:-}" = "--smoke" ]; then smoke=1; shift; fi
events=${1:-1000000}
threads=${2:-8}
[ "$smoke" = 1 ] && events=20000
grainscope="$build/bin/grainscope"
otf2_print=$(command -v otf2-print || true)
if [ ! -x "$grainscope" ]; then echo "SKIP: $grainscope was not built"; exit 77; fi
if [ -z "$otf2_print" ]; then echo "SKIP: otf2-print not found (otf2-tools)"; exit 77; fi
scorep=${GRAINSCOPE_SCOREP_ARCHIVE:-$here/../../../shared/corpus/otf2-real/npb-btmz-B-8x4}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# 4 events per thread and instance (work enter/leave, barrier arrival/departure); one barrier
# object per instance, as the OMPT tool names a barrier after its parallel region's team.
instances=$(( events / (4 * threads) ))
python3 "$here/make_thread_barriers.py" "$work/barriers.json" --threads "$threads" --instances "$instances" --objects team
"$grainscope" convert "$work/barriers.json" "$work/barriers.otf2" >/dev/null 2>"$work/convert.err" || {
  cat "$work/convert.err" >&2; exit 1; }

# Seconds of `otf2-print ARCHIVE > /dev/null`, and the archive's event and COMM definition counts.
seconds() {
  local start end
  start=$(date +%s.%N)
  "$otf2_print" "$1" >/dev/null
  end=$(date +%s.%N)
  python3 -c "print(round($end - $start, 3))"
}
event_count() { "$otf2_print" "$1" | awk 'NR > 4 && /^[A-Z_]+ / { n++ } END { print n + 0 }'; }
comm_count() { "$otf2_print" -G "$1" | grep -c '^COMM ' || true; }

ours_s=$(seconds "$work/barriers.otf2")
ours_events=$(event_count "$work/barriers.otf2")
ours_comms=$(comm_count "$work/barriers.otf2")
if [ "$ours_comms" -ne 1 ]; then
  echo "the export of $instances barrier instances has $ours_comms COMM definitions, not 1" >&2
  exit 1
fi

scorep_json='null'
if [ "$smoke" = 0 ]; then
  anchor=$(ls "$scorep"/*.otf2 2>/dev/null | head -1 || true)
  if [ -z "$anchor" ]; then
    echo "note: no Score-P archive at $scorep (the corpus is absent): no comparison" >&2
  else
    scorep_s=$(seconds "$anchor")
    scorep_events=$(event_count "$anchor")
    scorep_json=$(printf '{"archive": "%s", "events": %s, "seconds": %s, "comms": %s}' \
      "$(basename "$(dirname "$anchor")")" "$scorep_events" "$scorep_s" "$(comm_count "$anchor")")
  fi
fi
python3 - "$ours_events" "$ours_s" "$ours_comms" "$instances" "$threads" "$scorep_json" "$smoke" <<'PY'
import json, sys
events, secs, comms, instances, threads = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
scorep = json.loads(sys.argv[6])
out = {"bench": "otf2_print", "smoke": sys.argv[7] == "1",
       "export": {"events": events, "threads": threads, "barrier_instances": instances, "comms": comms,
                  "seconds": secs, "us_per_event": round(1e6 * secs / max(events, 1), 3)}}
status = 0
if scorep:
    scorep["us_per_event"] = round(1e6 * scorep["seconds"] / max(scorep["events"], 1), 3)
    out["scorep"] = scorep
    out["ratio_per_event"] = round(out["export"]["us_per_event"] / scorep["us_per_event"], 2)
    status = 0 if out["ratio_per_event"] <= 2.0 else 1
print(json.dumps(out))
sys.exit(status)
PY
