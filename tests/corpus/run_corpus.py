#!/usr/bin/env python3
"""Every command on one real trace of ../shared/corpus (issue 19): info, report, critpath, waits,
replay, compensate --overhead 0, gantt, taskgraph, html and convert to every writable format
must exit 0, and identity replay must reproduce the trace to the nanosecond with no clock
violations (or, when the trace has them, `replay --clc` must leave none). For an OTF2 archive,
grainscope's event, message and byte counts must equal those `otf2-print` prints, where every
difference is a repair or skip grainscope names (dropped and inserted leaves, receives posted but
never completed, records it does not model).

usage: run_corpus.py GRAINSCOPE TRACE
Exits 77 (ctest's skip) with a message when the trace is absent: the corpus is not part of the
project and may be missing on a machine.
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

COMMANDS = [["info"], ["report"], ["critpath"], ["waits"], ["replay"], ["compensate", "--overhead", "0"],
            ["gantt"], ["taskgraph"]]
WRITABLE = [".gst", ".otf2", ".json"]


def run(grainscope, args, cwd):
    p = subprocess.run([grainscope] + args, capture_output=True, text=True, cwd=cwd, timeout=300)
    return p.returncode, p.stdout, p.stderr


# otf2-print's record names -> the event kind grainscope reads them as.
OTF2_KINDS = {
    "ENTER": "enter", "LEAVE": "leave",
    "MPI_SEND": "send", "MPI_ISEND": "send", "MPI_ISEND_COMPLETE": "send_complete",
    "MPI_RECV": "recv", "MPI_IRECV": "recv", "MPI_IRECV_REQUEST": "recv_post",
    "MPI_COLLECTIVE_BEGIN": "collective_begin", "MPI_COLLECTIVE_END": "collective_end",
    "THREAD_FORK": "sync", "THREAD_JOIN": "sync", "THREAD_TEAM_BEGIN": "sync", "THREAD_TEAM_END": "sync",
}
REGION_REF = re.compile(r"<(\d+)>\s*$")
# A thread barrier region (OpenMP's "!$omp implicit barrier"): its every visit is also a barrier
# collective's begin and end (src/model/thread_sync.h).
THREAD_BARRIER_REGION = re.compile(r"^REGION\s+(\d+)\s.*Role: (?:IMPLICIT_)?BARRIER, Paradigm: \"(?!MPI\")")


def thread_barrier_regions(trace):
    p = subprocess.run(["otf2-print", "-G", trace], capture_output=True, text=True, errors="replace")
    return {int(m.group(1)) for m in map(THREAD_BARRIER_REGION.match, p.stdout.splitlines()) if m}
# Records that only set the run's time frame.
OTF2_FRAME = {"PROGRAM_BEGIN", "PROGRAM_END"}
LENGTH = re.compile(r"Length: (\d+)")


def otf2_print_counts(trace):
    """Records per otf2-print name, the bytes its send and receive records carry, and the entries
    into thread barrier regions."""
    records, sent, received, barrier_enters = collections.Counter(), 0, 0, 0
    barriers = thread_barrier_regions(trace)
    with subprocess.Popen(["otf2-print", trace], stdout=subprocess.PIPE, text=True, errors="replace") as p:
        for line in p.stdout:
            parts = line.split(None, 2)  # RECORD_NAME LOCATION TIME ...; the headers are not
            if len(parts) < 3 or not parts[0].isupper() or not parts[1].isdigit():
                continue
            name = parts[0]
            records[name] += 1
            if name == "ENTER" and barriers:
                ref = REGION_REF.search(line)
                barrier_enters += ref is not None and int(ref.group(1)) in barriers
            if name in ("MPI_SEND", "MPI_ISEND", "MPI_RECV", "MPI_IRECV"):
                n = int(LENGTH.search(line).group(1))
                if "SEND" in name:
                    sent += n
                else:
                    received += n
    if p.returncode != 0:
        raise RuntimeError(f"otf2-print {trace} exited {p.returncode}")
    return records, sent, received, barrier_enters


def compare_with_otf2_print(info, trace):
    """The differences between grainscope's counts and otf2-print's that no diagnostic explains."""
    records, sent, received, barrier_enters = otf2_print_counts(trace)
    diag = collections.Counter({d["name"]: d["count"] for d in info["diagnostics"]})
    expected = collections.Counter()
    for name, n in records.items():
        if name in OTF2_KINDS:
            expected[OTF2_KINDS[name]] += n
    expected["leave"] += diag["improper_nesting_repaired"] + diag["unclosed_regions"] - diag["unmatched_leaves_dropped"]
    expected["recv_post"] -= diag["incomplete_receives"]
    # Thread barriers: an entry that was left is a collective member; one that never was, a sync event.
    left = barrier_enters - diag["unfinished_collectives"]
    expected["collective_begin"] += left
    expected["collective_end"] += left
    expected["sync"] += barrier_enters - left
    wrong = [f"{kind}: grainscope {info['events_by_kind'][kind]}, otf2-print {expected[kind]} (after repairs)"
             for kind in info["events_by_kind"] if info["events_by_kind"][kind] != expected[kind]]
    other = sum(n for name, n in records.items() if name not in OTF2_KINDS and name not in OTF2_FRAME)
    if other != info["skipped_records"]:
        wrong.append(f"records grainscope does not model: otf2-print {other}, skipped_records {info['skipped_records']}")
    if (info["bytes_sent"], info["bytes_received"]) != (sent, received):
        wrong.append(f"bytes sent/received: grainscope {info['bytes_sent']}/{info['bytes_received']}, "
                     f"otf2-print {sent}/{received}")
    return wrong


def main():
    grainscope, trace = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if not os.path.exists(trace):
        print(f"skipped: {trace} is absent (the corpus in ../shared/corpus is not part of the project)")
        return 77
    failures = []
    with tempfile.TemporaryDirectory() as out:
        def check(args):
            rc, stdout, stderr = run(grainscope, args, out)
            if rc != 0:
                failures.append(f"grainscope {' '.join(args)}: exit {rc}: {stderr.strip().splitlines()[-1:]}")
            return rc, stdout
        for cmd in COMMANDS:
            check(cmd + [trace])
        check(["html", trace, "-o", os.path.join(out, "report.html")])
        for ext in WRITABLE:
            check(["convert", trace, os.path.join(out, "converted" + ext)])
        if trace.endswith(".otf2") and shutil.which("otf2-print"):
            rc, stdout = check(["info", trace, "--format", "json"])
            if rc == 0:
                failures += [f"otf2-print: {w}" for w in compare_with_otf2_print(json.loads(stdout), trace)]
        rc, stdout = check(["replay", trace, "--format", "json"])
        if rc == 0:
            r = json.loads(stdout)
            if r["max_deviation_ns"] != 0:
                failures.append(f"identity replay deviates by {r['max_deviation_ns']} ns")
            if r["clock_violations"] != 0:
                rc, stdout = check(["replay", "--clc", trace, "--format", "json"])
                if rc == 0 and json.loads(stdout)["clock_violations"] != 0:
                    failures.append(f"replay --clc leaves {json.loads(stdout)['clock_violations']} clock violations")
    for f in failures:
        print(f"{trace}: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
