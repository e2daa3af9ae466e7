#!/usr/bin/env python3
"""Golden diff tests: a command line + its inputs -> the expected stdout, stderr and exit code.

Each case is a directory under tests/golden/cases/:
  cmd       one line: the arguments to `grainscope` (shell-quoted). The command runs inside a fresh
            temporary copy of the case directory (never in the source tree), laid out so that
            `{examples}` (the project's examples/), `{inputs}` (tests/golden/inputs/, traces several
            cases share) and `{corpus}` (../shared/corpus) are the same relative paths as from the
            case directory itself; another case's directory named as `../CASE/...` is copied too.
  stdout    expected standard output (missing = must be empty)
  stderr    expected standard error  (missing = must be empty)
  exit      expected exit code        (missing = 0)
  requires  optional: `corpus` = skip when ../shared/corpus is absent; `preload` = skip when the
            binary is a sanitizer build (GRAINSCOPE_SANITIZED=1: its wrapper libraries cannot be
            preloaded into a program without the sanitizer's runtime)
  setup     optional: shell lines run (bash -e) in the temporary copy before the command, to make
            what the command must find there: a user's file it must not delete, an output of an
            earlier run (`$GRAINSCOPE` is the binary under test; `{examples}`, `{inputs}` and
            `{corpus}` as in cmd)
  files     optional: paths the command may create, change or delete. A bare path must exist
            afterwards, "-path" must not. Everything else is checked automatically: every file
            that was there before the command (the case's own, and what setup made) is still there,
            unchanged, and the command left nothing new (no temporary files) outside the listed
            paths. A listed directory covers everything below it.
            A line `PATH = EXPECTED` also checks what the command wrote there, against the file
            EXPECTED in the case directory:
              PATH = EXPECTED             byte for byte
              PATH = dump:EXPECTED        `grainscope dump --all PATH` (a trace file or directory)
              PATH = html-data:EXPECTED   the data JSON embedded in the HTML report PATH
                                          (<script id="gs-data">), pretty-printed with indent 2
            --update rewrites EXPECTED too.

Usage:
  run_golden.py --grainscope BIN [--update] [CASE ...]
With --update the expectations are rewritten from what the command does now; review the diff
(git diff tests/golden) before committing.
"""
import argparse
import difflib
import os
import re
import shlex
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CASES = os.path.join(HERE, "cases")
INPUTS = os.path.join(HERE, "inputs")
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


def snapshot(top):
    """Every path under `top`, relative: directories map to None, files to a digest of their bytes."""
    out = {}
    for base, dirs, files in os.walk(top):
        for d in dirs:
            out[os.path.relpath(os.path.join(base, d), top)] = None
        for f in files:
            path = os.path.join(base, f)
            if os.path.islink(path) or not os.path.isfile(path):
                out[os.path.relpath(path, top)] = "special"
                continue
            with open(path, "rb") as fh:
                out[os.path.relpath(path, top)] = hashlib.sha256(fh.read()).hexdigest()
    return out


def covered(path, listed):
    return any(path == entry or path.startswith(entry.rstrip("/") + "/") for entry in listed)


def sandbox(name):
    """A temporary copy of case `name`, at the same relative place to examples/, inputs/ and the
    corpus as the case itself. Returns (temporary root, the copy's directory)."""
    root = tempfile.mkdtemp(prefix=f"gs-golden-{name}-")
    project = os.path.join(root, "project")
    case = os.path.join(project, os.path.relpath(os.path.join(CASES, name), ROOT))
    shutil.copytree(os.path.join(CASES, name), case, symlinks=True)
    # Inputs of other cases the command names ("../other_case/trace.txt") are copied too.
    text = read(os.path.join(CASES, name, "cmd")) + read(os.path.join(CASES, name, "setup"))
    for other in set(re.findall(r"\.\./([\w.-]+)/", text)):
        if other != name and os.path.isdir(os.path.join(CASES, other)):
            shutil.copytree(os.path.join(CASES, other), os.path.join(os.path.dirname(case), other), symlinks=True)
    os.symlink(os.path.join(ROOT, "examples"), os.path.join(project, "examples"))
    if os.path.isdir(INPUTS):
        os.symlink(INPUTS, os.path.join(project, os.path.relpath(INPUTS, ROOT)))
    corpus = os.path.normpath(os.path.join(project, os.path.relpath(CORPUS, ROOT)))
    if os.path.isdir(CORPUS) and not os.path.exists(corpus):
        os.makedirs(os.path.dirname(corpus), exist_ok=True)
        os.symlink(CORPUS, corpus)
    return root, case


def parse_files(text):
    """The `files` list: (the bare and "-" entries, [(path, how, expected file)]) where how is
    "" (bytes), "dump" or "html-data". A `PATH = ...` entry counts as the bare entry PATH too."""
    bare, contents = [], []
    for line in text.splitlines():
        if " = " in line:
            path, spec = (part.strip() for part in line.split(" = ", 1))
            how, _, expected = spec.rpartition(":")
            if how not in ("", "dump", "html-data"):
                raise ValueError(f"files: unknown check '{how}:' in '{line}'")
            bare.append(path)
            contents.append((path, how, expected))
        else:
            bare.extend(line.split())
    return bare, contents


GS_DATA_OPEN = '<script type="application/json" id="gs-data">'


def written_content(binary, env, case, path, how):
    """What a written file holds, as the check `how` sees it: (bytes, None) or (None, error)."""
    full = os.path.join(case, path)
    if not os.path.lexists(full):
        return None, f"{path} was not written"
    if how == "dump":
        proc = subprocess.run([binary, "dump", "--all", path], cwd=case, capture_output=True, env=env, timeout=60)
        if proc.returncode != 0:
            return None, f"grainscope dump {path} exited {proc.returncode}: {proc.stderr.decode().strip()}"
        return proc.stdout, None
    with open(full, "rb") as f:
        data = f.read()
    if how == "html-data":
        page = data.decode()
        start = page.find(GS_DATA_OPEN)
        if start < 0:
            return None, f"{path} has no {GS_DATA_OPEN}"
        start += len(GS_DATA_OPEN)
        # The page escapes "</" inside the data as "<\/", so the first </script> ends it.
        embedded = json.loads(page[start:page.find("</script>", start)])
        return (json.dumps(embedded, indent=2, ensure_ascii=False) + "\n").encode(), None
    return data, None


def run_case(binary, name, update):
    source = os.path.join(CASES, name)
    requires = read(os.path.join(source, "requires")).split()
    if "corpus" in requires and not os.path.isdir(CORPUS):
        print(f"SKIP {name}: {CORPUS} is absent")
        return SKIP
    if "preload" in requires and os.environ.get("GRAINSCOPE_SANITIZED") == "1":
        print(f"SKIP {name}: a sanitizer build's wrapper libraries cannot be preloaded into a plain program")
        return SKIP
    root, case = sandbox(name)
    try:
        return check_case(binary, name, source, case, update)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def check_case(binary, name, source, case, update):
    def expand(text):
        # Relative paths, so the outputs that name an input are the same in every clone.
        text = text.replace("{examples}", os.path.relpath(os.path.join(ROOT, "examples"), source))
        text = text.replace("{inputs}", os.path.relpath(INPUTS, source))
        return text.replace("{corpus}", os.path.relpath(CORPUS, source))

    args = [binary] + shlex.split(expand(read(os.path.join(case, "cmd")).strip()))
    env = dict(os.environ, LC_ALL="C", COLUMNS="100", GRAINSCOPE=binary)
    setup = expand(read(os.path.join(case, "setup")))
    if setup:
        done = subprocess.run(["bash", "-e", "-c", setup], cwd=case, capture_output=True, text=True, env=env)
        if done.returncode != 0:
            print(f"FAIL {name}: setup exited {done.returncode}: {done.stderr.strip()}")
            return 1
    before = snapshot(case)
    try:
        proc = subprocess.run(args, cwd=case, capture_output=True, text=True, timeout=60, env=env)
    except subprocess.TimeoutExpired:
        print(f"FAIL {name}: timed out after 60 s")
        return 1
    got = {"stdout": proc.stdout, "stderr": proc.stderr, "exit": f"{proc.returncode}\n"}
    files, contents = parse_files(read(os.path.join(case, "files")))
    if update:
        write_or_remove(os.path.join(source, "stdout"), got["stdout"])
        write_or_remove(os.path.join(source, "stderr"), got["stderr"])
        write_or_remove(os.path.join(source, "exit"), "" if proc.returncode == 0 else got["exit"])
        for path, how, expected in contents:
            actual, error = written_content(binary, env, case, path, how)
            if error:
                print(f"FAIL {name}: {error}")
                return 1
            with open(os.path.join(source, expected), "wb") as f:
                f.write(actual)
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
    listed = []
    for path, how, expected in contents:
        actual, error = written_content(binary, env, case, path, how)
        if error:
            failed = True
            print(f"FAIL {name}: {error}")
            continue
        with open(os.path.join(case, expected), "rb") as f:
            want_bytes = f.read()
        if actual != want_bytes:
            failed = True
            print(f"FAIL {name}: {path} differs from {expected}" + (f" ({how})" if how else ""))
            if b"\0" not in actual + want_bytes:
                diff = difflib.unified_diff(want_bytes.decode(errors="replace").splitlines(True),
                                            actual.decode(errors="replace").splitlines(True),
                                            f"{name}/{expected} (expected)", f"{name}/{path} (actual)")
                sys.stdout.writelines(diff)
    for entry in files:
        must_exist = not entry.startswith("-")
        path = entry.lstrip("-")
        listed.append(os.path.normpath(path))
        if os.path.lexists(os.path.join(case, path)) != must_exist:
            failed = True
            print(f"FAIL {name}: {path} should {'exist' if must_exist else 'not exist'}")
    after = snapshot(case)
    for path, digest in sorted(before.items()):
        if covered(path, listed):
            continue
        if path not in after:
            failed = True
            print(f"FAIL {name}: {path} was deleted")
        elif after[path] != digest:
            failed = True
            print(f"FAIL {name}: {path} was changed")
    left = [p for p in sorted(after) if p not in before and not covered(p, listed)]
    if left:
        failed = True
        print(f"FAIL {name}: left behind: {left}")
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
