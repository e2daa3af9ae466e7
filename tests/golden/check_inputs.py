#!/usr/bin/env python3
"""golden_inputs_reproducible: runs the generators of the golden inputs (tests/golden/make_inputs.cc,
make_scorep_like.c, make_scorep_threads.c) into a temporary directory and checks that every file it writes is byte for byte the one committed under
tests/golden/inputs/, so a change to a writer or to the generator shows up as a failing test until
the inputs are regenerated (`build/bin/make_golden_inputs tests/golden/inputs`, the same for
`make_scorep_like`) and the goldens reviewed.

One exception: an OTF2 anchor file (`NAME.otf2`) holds a trace id that libotf2 draws at random
and has no API to set, so anchors are compared by `grainscope dump --all` of the whole archive
(which shows its metadata properties); the archive's definition and event files are compared
byte for byte like everything else.

Usage: check_inputs.py GRAINSCOPE_BINARY GENERATOR...
"""
import filecmp
import os
import subprocess
import sys
import tempfile

INPUTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "inputs")


def dump(grainscope, path):
    """`grainscope dump --all` of `path`, run beside it so that the output names it the same way."""
    return subprocess.run([grainscope, "dump", "--all", os.path.basename(path)], cwd=os.path.dirname(path),
                          check=True, capture_output=True).stdout


def same(grainscope, generated, committed):
    if generated.endswith(".otf2"):
        return dump(grainscope, generated) == dump(grainscope, committed)
    return filecmp.cmp(generated, committed, shallow=False)


def main():
    grainscope, generators = os.path.abspath(sys.argv[1]), sys.argv[2:]
    with tempfile.TemporaryDirectory(prefix="gs-inputs-") as out:
        for generator in generators:
            subprocess.run([generator, out], check=True)
        failed = 0
        count = 0
        for base, _, files in os.walk(out):
            for f in sorted(files):
                rel = os.path.relpath(os.path.join(base, f), out)
                count += 1
                committed = os.path.join(INPUTS, rel)
                if not os.path.isfile(committed):
                    print(f"FAIL {rel}: not committed in tests/golden/inputs")
                    failed += 1
                elif not same(grainscope, os.path.join(out, rel), committed):
                    print(f"FAIL {rel}: differs from the committed file")
                    failed += 1
        print(f"{count - failed} of {count} generated files match the committed inputs")
        return 1 if failed or count == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
