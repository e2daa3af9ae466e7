#!/usr/bin/env python3
"""golden_runner_checks_written_files: the golden runner (run_golden.py) fails a case whose written
file differs from its expectation, in each way a `files` entry can check one (bytes, dump:,
html-data:), passes it when it matches, and --update rewrites the expectation.

Usage: run_golden_test.py GRAINSCOPE_BINARY
"""
import contextlib
import io
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_golden  # noqa: E402

BINARY = None


class WrittenFilesTest(unittest.TestCase):
    def setUp(self):
        # Inside tests/golden/ (removed afterwards): the runner lays out each case's sandbox by its
        # path relative to the project, as it does for tests/golden/cases/.
        self.cases = tempfile.mkdtemp(prefix=".runner-test-", dir=run_golden.HERE)
        self.saved = run_golden.CASES
        run_golden.CASES = self.cases

    def tearDown(self):
        run_golden.CASES = self.saved
        shutil.rmtree(self.cases)

    def case(self, name, cmd, files, expected, content):
        d = os.path.join(self.cases, name)
        os.makedirs(d)
        for file, text in (("cmd", cmd), ("files", files), (expected, content)):
            with open(os.path.join(d, file), "w") as f:
                f.write(text + "\n")
        return d

    def run_case(self, name, update=False):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = run_golden.run_case(BINARY, name, update)
        return code, out.getvalue()

    def check_each_way(self, name, cmd, files, expected):
        d = self.case(name, cmd, files, expected, "not what the command writes")
        code, out = self.run_case(name)
        self.assertEqual(code, 1, out)
        self.assertIn(f"differs from {expected}", out)
        code, out = self.run_case(name, update=True)  # rewrites stdout and the expectation
        self.assertEqual(code, 0, out)
        code, out = self.run_case(name)
        self.assertEqual(code, 0, out)
        with open(os.path.join(d, expected)) as f:
            return f.read()

    def test_bytes(self):
        text = self.check_each_way("bytes", "convert {inputs}/skew.json out.json", "out.json = want.json", "want.json")
        self.assertIn('"traceEvents"', text)

    def test_dump(self):
        text = self.check_each_way("dump", "convert {inputs}/skew.json out.gst", "out.gst = dump:want.dump", "want.dump")
        self.assertIn("collectives (5):", text)

    def test_html_data(self):
        text = self.check_each_way("html", "html {inputs}/skew.otf2 -o r.html", "r.html = html-data:want.json",
                                   "want.json")
        self.assertIn('"lanes": [', text)

    def test_a_file_not_written_fails(self):
        self.case("missing", "info {inputs}/skew.json", "out.json = want.json", "want.json", "x")
        code, out = self.run_case("missing")
        self.assertEqual(code, 1, out)
        self.assertIn("out.json was not written", out)


if __name__ == "__main__":
    BINARY = os.path.abspath(sys.argv.pop(1))
    unittest.main()
