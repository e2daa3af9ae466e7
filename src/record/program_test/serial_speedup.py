#!/usr/bin/env python3
"""ctest record_serial_speedup: records serial_grain (one 50 ms grain) and checks that
`grainscope report --format json` gives speedup 1.0 within 1 % and the corrected speedup equal
to it: time zero is the program's first event, not the start of recording (issue 17, item 4).

Usage: serial_speedup.py GRAINSCOPE PROGRAM WORK_DIR"""
import json
import os
import subprocess
import sys


def main():
    cli, program, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    trace = os.path.join(work, "serial.gst")
    if os.path.exists(trace):
        os.remove(trace)
    subprocess.run([program], check=True, env=dict(os.environ, GRAINSCOPE_TRACE=trace))
    out = subprocess.run([cli, "report", "--format", "json", trace], check=True, capture_output=True, text=True)
    report = json.loads(out.stdout)
    speedup, corrected = report["speedup"], report["corrected_speedup"]
    print(f"speedup {speedup}, corrected {corrected}, total {report['total_ns']} ns, "
          f"first grain at {report['first_start_ns']} ns")
    ok = abs(speedup - 1.0) <= 0.01 and speedup == corrected
    if not ok:
        print("FAIL: a serial program must report speedup 1.0 (within 1 %) equal to the corrected speedup")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
