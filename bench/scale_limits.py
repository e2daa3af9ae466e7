#!/usr/bin/env python3
"""How large a trace each command can take (issue 35, item 7; docs/scale.md): runs each command on
one trace, alternating with `otf2-print` on the same archive (when it is OTF2 and otf2-print is
installed), and prints one JSON object per command: the median wall time over R runs, the ratio
to otf2-print's median, the peak resident memory, bytes per event, and the events a machine of
--memory-gb could take at that many bytes per event (the command's size limit, extrapolated
linearly: every structure grainscope keeps grows with the events, not faster).

usage: scale_limits.py GRAINSCOPE TRACE [--repeat R] [--memory-gb 24] [--threads N] [COMMAND ...]
COMMAND is a quoted command line without the trace ("critpath -f json"); default: info,
critpath, waits, replay, gantt -f json -o FILE, critpath -f json -o FILE.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

DEFAULT = ["info", "critpath", "waits", "replay", "gantt -f json -o {out}", "critpath -f json -o {out}"]


def timed(argv):
    """(wall seconds, peak RSS bytes) of one run, via GNU time; exits on failure."""
    p = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + argv, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(argv)}: exit {p.returncode}: {p.stderr.strip()[-400:]}")
    wall, kb = p.stderr.strip().splitlines()[-1].split()
    return float(wall), int(kb) * 1024


def events_of(grainscope, trace):
    p = subprocess.run([grainscope, "info", trace, "-f", "json"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"info failed: {p.stderr.strip()}")
    return json.loads(p.stdout)["events"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("grainscope")
    ap.add_argument("trace")
    ap.add_argument("commands", nargs="*")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--memory-gb", type=float, default=24.0)
    ap.add_argument("--threads", default="")
    a = ap.parse_intermixed_args()
    events = events_of(a.grainscope, a.trace)
    otf2_print = shutil.which("otf2-print") if a.trace.endswith(".otf2") else None
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        for command in a.commands or DEFAULT:
            argv = command.format(out=out).split()
            argv = [a.grainscope, argv[0], a.trace] + argv[1:] + (["--threads", a.threads] if a.threads else [])
            if "-o" in argv:
                argv.append("--force")
            ours, theirs, peaks = [], [], []
            for _ in range(a.repeat):
                if otf2_print:
                    theirs.append(timed([otf2_print, a.trace])[0])
                wall, peak = timed(argv)
                ours.append(wall)
                peaks.append(peak)
            wall, peak = statistics.median(ours), max(peaks)
            row = {"bench": "scale_limits", "command": command.replace(" -o {out}", " -o FILE"),
                   "trace": os.path.basename(a.trace.rstrip("/")), "events": events,
                   "threads": a.threads or "default", "repeat": a.repeat, "wall_seconds": round(wall, 3),
                   "events_per_s": round(events / wall) if wall > 0 else None,
                   "peak_rss_mb": round(peak / 2**20, 1), "bytes_per_event": round(peak / events, 1),
                   "limit_events": int(a.memory_gb * 2**30 / (peak / events)), "memory_gb": a.memory_gb}
            if theirs:
                row["otf2_print_seconds"] = round(statistics.median(theirs), 3)
                row["ratio_to_otf2_print"] = round(wall / statistics.median(theirs), 2)
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
