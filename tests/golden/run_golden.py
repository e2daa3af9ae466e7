#!/usr/bin/env python3
"""Golden diff tests: a command line + its inputs -> the expected stdout, stderr and exit code.

Each case is a directory under tests/golden/cases/:
  cmd       one line: the arguments to `grainscope` (shell-quoted). The command runs inside the
            case directory, so inputs are named relative to it. `{examples}` stands for the
            project's examples/ directory, `{corpus}` for ../shared/corpus.
  stdout    expected standard output (missing = must be empty)
  stderr    expected standard error  (missing = must be empty)
  exit      expected exit code        (missing = 0)
  requires  optional: `corpus` = skip when ../shared/corpus is absent
  files     optional: names of files the command must leave behind ("-" prefix: must NOT exist)

Usage:
  run_golden.py --grainscope BIN [--update] [CASE ...]
With --update the expectations are rewritten from what the command does now; review the diff
(git diff tests/golden) before committing.
"""
import argparse
import difflib
import os
import shlex
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CASES = os.path.join(HERE, "cases")
CORPUS = os.path.normpath(os.path.join(ROOT, "..", "shared", "corpus"))
SKIP = 77  # ctest SKIP_RETURN_CODE


def read(path, default=""):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        return default


def write_or_remove(path, content):
    if content:
        with open(path, "w", encoding="utf-8") as f:
            f.write(content)
    elif os.path.exists(path):
        os.remove(path)


def run_case(binary, name, update):
    case = os.path.join(CASES, name)
    if "corpus" in read(os.path.join(case, "requires")).split() and not os.path.isdir(CORPUS):
        print(f"SKIP {name}: {CORPUS} is absent")
        return SKIP
    line = read(os.path.join(case, "cmd")).strip()
    # Relative paths, so the outputs that name an input are the same in every clone.
    line = line.replace("{examples}", os.path.relpath(os.path.join(ROOT, "examples"), case))
    line = line.replace("{corpus}", os.path.relpath(CORPUS, case))
    args = [binary] + shlex.split(line)
    env = dict(os.environ, LC_ALL="C", COLUMNS="100")
    try:
        proc = subprocess.run(args, cwd=case, capture_output=True, text=True, timeout=60, env=env)
    except subprocess.TimeoutExpired:
        print(f"FAIL {name}: timed out after 60 s")
        return 1
    got = {"stdout": proc.stdout, "stderr": proc.stderr, "exit": f"{proc.returncode}\n"}
    if update:
        write_or_remove(os.path.join(case, "stdout"), got["stdout"])
        write_or_remove(os.path.join(case, "stderr"), got["stderr"])
        write_or_remove(os.path.join(case, "exit"), "" if proc.returncode == 0 else got["exit"])
        print(f"UPDATED {name}")
        return 0
    want = {
        "stdout": read(os.path.join(case, "stdout")),
        "stderr": read(os.path.join(case, "stderr")),
        "exit": read(os.path.join(case, "exit"), "0\n"),
    }
    failed = False
    for key in ("exit", "stdout", "stderr"):
        if got[key] != want[key]:
            failed = True
            print(f"FAIL {name}: {key} differs")
            diff = difflib.unified_diff(want[key].splitlines(True), got[key].splitlines(True),
                                        f"{name}/{key} (expected)", f"{name}/{key} (actual)")
            sys.stdout.writelines(diff)
    for entry in read(os.path.join(case, "files")).split():
        must_exist = not entry.startswith("-")
        path = os.path.join(case, entry.lstrip("-"))
        if os.path.exists(path) != must_exist:
            failed = True
            print(f"FAIL {name}: {path} should {'exist' if must_exist else 'not exist'}")
        if must_exist and os.path.exists(path):
            # outputs are regenerated on every run (a .gst output of an MPI trace is a directory)
            shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    leftovers = [f for f in os.listdir(case) if ".tmp." in f]
    if leftovers:
        failed = True
        print(f"FAIL {name}: temporary files left behind: {leftovers}")
    if not failed:
        print(f"PASS {name}")
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--grainscope", required=True, help="path to the grainscope binary")
    parser.add_argument("--update", action="store_true", help="rewrite expectations from actual output")
    parser.add_argument("cases", nargs="*", help="case names (default: all)")
    args = parser.parse_args()
    binary = os.path.abspath(args.grainscope)
    names = args.cases or sorted(d for d in os.listdir(CASES) if os.path.isdir(os.path.join(CASES, d)))
    results = [run_case(binary, n, args.update) for n in names]
    if len(results) == 1:
        return results[0]
    failed = sum(r == 1 for r in results)
    skipped = sum(r == SKIP for r in results)
    print(f"{len(results) - failed - skipped} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
