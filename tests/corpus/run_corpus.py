#!/usr/bin/env python3
"""Every command on one real trace of ../shared/corpus (issue 19): info, report, critpath, waits,
replay, compensate --overhead 0, gantt, taskgraph, html and convert to every writable format
must exit 0, and identity replay must reproduce the trace to the nanosecond with no clock
violations (or, when the trace has them, `replay --clc` must leave none).

usage: run_corpus.py GRAINSCOPE TRACE
Exits 77 (ctest's skip) with a message when the trace is absent: the corpus is not part of the
project and may be missing on a machine.
"""
import json
import os
import subprocess
import sys
import tempfile

COMMANDS = [["info"], ["report"], ["critpath"], ["waits"], ["replay"], ["compensate", "--overhead", "0"],
            ["gantt"], ["taskgraph"]]
WRITABLE = [".gst", ".otf2", ".json"]


def run(grainscope, args, cwd):
    p = subprocess.run([grainscope] + args, capture_output=True, text=True, cwd=cwd, timeout=300)
    return p.returncode, p.stdout, p.stderr


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
