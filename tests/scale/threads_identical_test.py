#!/usr/bin/env python3
"""Every command's answer is the same, byte for byte, whatever --threads says (issue 35, item 4).

Runs each analysis command with --threads 1, 2 and 4 and compares the outputs' SHA-256 digests, on
traces of many locations: the golden inputs (OTF2, .gst, Chrome; threads, ranks, collectives), a
generated 64-location trace as an OTF2 archive and as a .gst rank directory (bench/gen, when
built), and, when ../shared/corpus is there, a Kineto rank directory and a Score-P thread trace.
Reading (one part per task), assembling (one location per task) and the analyses' per-location
parts all run on the pool, so a result slot written by the wrong task, or a merge in completion
order instead of index order, shows here as a digest that differs.

usage: threads_identical_test.py GRAINSCOPE GOLDEN_INPUTS [GEN] [CORPUS]
"""
import hashlib
import os
import subprocess
import sys
import tempfile

COMMANDS = [
    ["info", "-f", "json"],
    ["critpath", "-f", "json"],
    ["critpath", "-f", "csv"],
    ["gantt", "-f", "csv"],
    ["waits", "-f", "json"],
    ["waits", "-f", "csv"],
    ["gantt", "-f", "json"],
    ["taskgraph", "-f", "json"],
    ["replay", "-f", "json"],
    ["report", "-f", "json"],
]
THREADS = ["1", "2", "4"]


def digest(grainscope, trace, command, threads):
    p = subprocess.run([grainscope] + command[:1] + [trace] + command[1:] + ["--threads", threads],
                       capture_output=True, timeout=600)
    return p.returncode, hashlib.sha256(p.stdout).hexdigest(), p.stderr.decode(errors="replace")


def traces(golden, gen, corpus, tmp):
    out = [os.path.join(golden, name) for name in
           ["threads.otf2", "threads.gst", "threads.json", "collectives.otf2", "collectives.gst",
            "scorep_pthreads.otf2", "scorep_omp_tasks.otf2", "hybrid.json", "skew.otf2"]]
    if gen:
        made = subprocess.run([gen, "--locations", "64", "--events", "400000", "--seed", "7",
                               "--otf2", os.path.join(tmp, "otf2"), "--gst", os.path.join(tmp, "gst")],
                              capture_output=True, text=True, timeout=600)
        if made.returncode != 0:
            sys.exit(f"gen failed: {made.stderr}")
        for root, _, files in os.walk(tmp):
            out += [os.path.join(root, f) for f in files if f.endswith(".otf2")]
        out.append(os.path.join(tmp, "gst"))
    if corpus:
        for name in ["kineto/two-ranks", "otf2-real/apex-vortex-annotated"]:
            path = os.path.join(corpus, name)
            if os.path.isdir(path) and name.startswith("otf2-real"):
                path = next((os.path.join(r, f) for r, _, fs in os.walk(path) for f in fs if f.endswith(".otf2")), "")
            if path and os.path.exists(path):
                out.append(path)
            else:
                print(f"corpus trace {name} absent: skipped")
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    grainscope, golden = sys.argv[1], sys.argv[2]
    gen = sys.argv[3] if len(sys.argv) > 3 and os.path.exists(sys.argv[3]) else ""
    corpus = sys.argv[4] if len(sys.argv) > 4 and os.path.isdir(sys.argv[4]) else ""
    failures, runs = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for trace in traces(golden, gen, corpus, tmp):
            for command in COMMANDS:
                results = {n: digest(grainscope, trace, command, n) for n in THREADS}
                runs += len(THREADS)
                codes = {n: r[0] for n, r in results.items()}
                if codes["1"] != 0:
                    failures.append(f"{' '.join(command)} {trace}: exit {codes['1']}: {results['1'][2].strip()[:300]}")
                    continue
                if len({r[:2] for r in results.values()}) != 1:
                    failures.append(f"{' '.join(command)} {trace}: outputs differ by --threads: " +
                                    ", ".join(f"{n}: exit {r[0]} {r[1][:12]}" for n, r in results.items()))
    for f in failures:
        print("FAIL", f)
    print(f"{runs} runs, {len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
