"""python3 -m grainscope ARGS...: the grainscope command line, run in this Python process."""
import sys

from . import run_cli

rc, out, err = run_cli(*sys.argv[1:])
sys.stdout.buffer.write(out)
sys.stderr.write(err)
sys.exit(rc)
