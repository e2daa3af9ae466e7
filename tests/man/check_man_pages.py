#!/usr/bin/env python3
"""ctest man_pages: the generated man pages (cmake/man_pages.cmake) read as man pages.

Each page in MAN_DIR: groff formats it without a warning (`man --warnings`), `lexgrog` finds its
NAME line as "<page> - <summary>" (what whatis/apropos index; not the old "grainscope - grainscope:
..."), and it has the sections a man page has, in order; grainscope(1) and grainscope-record(1)
also an ENVIRONMENT section naming every GRAINSCOPE_* variable the sources read (getenv in
src/). Usage: check_man_pages.py MAN_DIR SOURCE_DIR. Skips (77) without man-db.
"""
import os
import re
import shutil
import subprocess
import sys

SECTIONS = ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "ENVIRONMENT", "EXIT STATUS", "EXAMPLES", "SEE ALSO"]
WITH_ENVIRONMENT = {"grainscope", "grainscope-record"}


def env_variables(source_dir):
    """Every GRAINSCOPE_* variable the sources in src/ read (tests' own variables aside)."""
    names = set()
    for root, _, files in os.walk(os.path.join(source_dir, "src")):
        for f in files:
            if f.endswith((".cc", ".h", ".c")) and "_test" not in f and "/tests" not in root:
                with open(os.path.join(root, f), encoding="utf-8") as fh:
                    text = fh.read()
                # getenv("GRAINSCOPE_X"), and the names handed to a function that calls getenv
                # (EnvFlag("GRAINSCOPE_SIGNALS", ...), FindLibrary(..., "GRAINSCOPE_MPI_LIBRARY")):
                # every string literal that is a whole GRAINSCOPE_ name.
                names.update(re.findall(r'"(GRAINSCOPE_[A-Z_]+)"', text))
    return names


def check_page(path, variables):
    page = os.path.basename(path)[: -len(".1")]
    errors = []
    env = dict(os.environ, MANWIDTH="100", LC_ALL="C.UTF-8")
    run = subprocess.run(["man", "--warnings", "-l", "-Tutf8", "-Z", path], env=env,
                         capture_output=True, text=True)
    if run.returncode != 0 or run.stderr.strip():
        errors.append(f"groff warnings: {run.stderr.strip()}")
    lex = subprocess.run(["lexgrog", path], capture_output=True, text=True)
    if not re.search(rf'"{re.escape(page)} - [a-z]', lex.stdout):
        errors.append(f"lexgrog finds no '{page} - <summary>': {lex.stdout.strip()}")
    with open(path, encoding="utf-8") as fh:
        roff = fh.read()
    found = [m.strip('"') for m in re.findall(r"^\.SH (.+)$", roff, re.M)]
    expected = [s for s in SECTIONS if s != "ENVIRONMENT" or page in WITH_ENVIRONMENT]
    if found != expected:
        errors.append(f"sections {found}, expected {expected}")
    if page in WITH_ENVIRONMENT:
        environment = roff.split(".SH ENVIRONMENT", 1)[-1].split(".SH ", 1)[0].replace("\\", "")
        missing = sorted(v for v in variables if v not in environment)
        if page == "grainscope-record" and missing:
            errors.append(f"ENVIRONMENT lacks {missing}")
        if page == "grainscope" and not {"GRAINSCOPE_THREADS", "GRAINSCOPE_MAX_STREAM_BYTES"} <= set(
                re.findall(r"GRAINSCOPE_[A-Z_]+", environment)):
            errors.append("ENVIRONMENT lacks GRAINSCOPE_THREADS or GRAINSCOPE_MAX_STREAM_BYTES")
    return [f"{page}: {e}" for e in errors]


def main():
    man_dir, source_dir = sys.argv[1], sys.argv[2]
    if not shutil.which("man") or not shutil.which("lexgrog"):
        print("SKIP: man-db (man, lexgrog) is not installed")
        return 77
    pages = sorted(os.path.join(man_dir, f) for f in os.listdir(man_dir) if f.endswith(".1"))
    if "grainscope-record.1" not in map(os.path.basename, pages):
        print(f"no grainscope-record.1 in {man_dir}")
        return 1
    variables = env_variables(source_dir)
    errors = [e for p in pages for e in check_page(p, variables)]
    for e in errors:
        print(e)
    print(f"{len(pages)} pages, {len(errors)} problems; variables read: {sorted(variables)}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
