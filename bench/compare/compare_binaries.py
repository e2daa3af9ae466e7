#!/usr/bin/python3
"""Before/after figures for two grainscope builds on one machine, in one run.

This machine is noisy: a single timing says little, and two timings taken minutes apart even
less. This runs the two builds' commands alternately (base, new, base, new, ...) and prints, per
command, JSON with the median wall time and peak RSS of each and the change. Commands are
grainscope subcommands on a trace (`info`, `critpath`, `waits`, ...) and analysis_bench's
figures (its median ns/event per benchmark).

  bench/compare/compare_binaries.py BASE_BIN_DIR NEW_BIN_DIR TRACE [--runs 7]
      [--commands info,critpath,waits] [--analysis-bench]
"""
import argparse
import json
import statistics
import subprocess
import sys


def timed(cmd):
    """(wall seconds, peak RSS in KB) of one run of cmd, through GNU time."""
    out = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + cmd, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    wall, rss = out.stderr.strip().splitlines()[-1].split()
    return float(wall), int(rss)


def bench_figures(bin_dir, events):
    """analysis_bench's ns/event per benchmark, for one trace size."""
    out = subprocess.run([f"{bin_dir}/analysis_bench", "--repeat", "3", "--events", str(events)],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, check=True)
    figures = {}
    for line in out.stdout.splitlines():
        if line.startswith("{"):
            j = json.loads(line)
            if "ns_per_event" in j:
                figures[j["bench"]] = j["ns_per_event"]
    return figures


def change(base, new):
    return round(100.0 * (new - base) / base, 1) if base else None


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("base")
    p.add_argument("new")
    p.add_argument("trace")
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--commands", default="info,critpath,waits")
    p.add_argument("--analysis-bench", action="store_true", help="also analysis_bench at 1M events")
    a = p.parse_args()
    for command in a.commands.split(","):
        runs = {"base": [], "new": []}
        for _ in range(a.runs):
            for side, bin_dir in (("base", a.base), ("new", a.new)):
                runs[side].append(timed([f"{bin_dir}/grainscope", command, a.trace]))
        med = {s: (statistics.median(w for w, _ in r), statistics.median(m for _, m in r)) for s, r in runs.items()}
        print(json.dumps({"command": command, "trace": a.trace, "runs": a.runs,
                          "base_s": med["base"][0], "new_s": med["new"][0],
                          "change_pct": change(med["base"][0], med["new"][0]),
                          "base_rss_kb": med["base"][1], "new_rss_kb": med["new"][1],
                          "rss_change_pct": change(med["base"][1], med["new"][1])}), flush=True)
    if a.analysis_bench:
        runs = {"base": [], "new": []}
        for _ in range(a.runs):
            for side, bin_dir in (("base", a.base), ("new", a.new)):
                runs[side].append(bench_figures(bin_dir, 1000000))
        for name in runs["base"][0]:
            b = statistics.median(r[name] for r in runs["base"])
            n = statistics.median(r[name] for r in runs["new"] if name in r)
            print(json.dumps({"bench": name, "events": 1000000, "runs": a.runs, "base_ns_per_event": b,
                              "new_ns_per_event": n, "change_pct": change(b, n)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
