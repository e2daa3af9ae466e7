#!/usr/bin/env python3
"""check_sizes_test: the size checker (scripts/check_sizes.py) on small synthetic C++ sources in a
temporary project: a long function is flagged and a short one not, braces in strings, characters
and comments count for nothing, lambdas count toward their function, a constructor's initializer
list is part of it, test files are skipped, and an exception excuses what it names but is itself
an error when it gives no reason or no longer applies.

Usage: check_sizes_test.py
"""
import contextlib
import io
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import check_sizes  # noqa: E402


def body(n):
    """n lines of statements."""
    return "".join(f"  x += {i};\n" for i in range(n))


def function(name, total_lines, signature=None):
    """A function of exactly total_lines lines (signature and closing brace included)."""
    return (signature or f"int {name}(int x)") + " {\n" + body(total_lines - 3) + "  return x;\n}\n"


class CheckSizesTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="check-sizes-test-")
        os.makedirs(os.path.join(self.root, "src", "lib"))
        os.makedirs(os.path.join(self.root, "scripts"))

    def tearDown(self):
        shutil.rmtree(self.root)

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def exceptions(self, text):
        self.write("scripts/size_exceptions.txt", text)

    def run_checker(self, *args):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            rc = check_sizes.main(["--root", self.root, *args])
        return rc, out.getvalue().splitlines()

    def functions(self, text):
        return {f.name: (f.first_line, f.lines) for f in check_sizes.find_functions(text)}

    def function_list(self, text):
        return [(f.name, f.first_line, f.lines) for f in check_sizes.find_functions(text)]

    def test_long_function_flagged_short_one_not(self):
        self.write("src/lib/a.cc", "namespace ns {\n\n" + function("Long", 61) + "\n" + function("Short", 60) + "}\n")
        rc, out = self.run_checker()
        self.assertEqual(rc, 1)
        self.assertEqual(out, ["src/lib/a.cc:3: function 'Long' is 61 lines (limit 60)"])

    def test_signature_over_several_lines_counts_from_its_first(self):
        text = "template <class T>\nstatic int Spread(int x,\n                  T y) const noexcept {\n  return x;\n}\n"
        self.assertEqual(self.functions(text), {"Spread": (1, 5)})

    def test_braces_in_strings_characters_and_comments_ignored(self):
        text = (
            "// a comment with an opening brace {\n"
            "/* and a block comment { {\n"
            "   over two lines { */\n"
            "int F(int x) {\n"
            "  const char* s = \"}}} \\\" }\";\n"
            "  char c = '}';\n"
            "  char d = '\\'';\n"
            "  const char* r = R\"js(function() { return \"}\"; )js\";\n"
            "  long big = 1'000'000;  // }\n"
            "#define CLOSE }\n"
            "  return x;\n"
            "}\n"
            "int G() { return '{'; }\n")
        self.assertEqual(self.functions(text), {"F": (4, 9), "G": (13, 1)})

    def test_lambdas_count_toward_their_function(self):
        lambda_ = "  auto f = [&](int y) {\n" + body(30) + "    return y;\n  };\n"
        text = "int Outer(int x) {\n" + lambda_ + body(30) + "  return f(x);\n}\n"
        found = self.functions(text)
        self.assertEqual(list(found), ["Outer"])
        self.assertEqual(found["Outer"], (1, 66))
        # A lambda stored in a namespace-scope variable is a function by the variable's name.
        self.assertEqual(self.functions("const auto kTwice = [](int x) {\n  return 2 * x;\n};\n"),
                         {"kTwice": (1, 3)})

    def test_classes_constructors_and_data(self):
        text = (
            "struct Table { int a; int b; };\n"
            "constexpr Table kTable[] = {\n  {1, 2},\n  {3, 4},\n};\n"
            "class Widget : public Base<void(int)> {\n"
            " public:\n"
            "  Widget(int a) : a_{a}, b_(a), v_{1, 2} {\n    a_ += 1;\n  }\n"
            "  int Get() const override { return a_; }\n"
            "  auto Tail() -> int {\n    return a_;\n  }\n"
            " private:\n"
            "  int a_{0};\n"
            "  int b_ = 0;\n"
            "  struct Inner {\n    void Go() {}\n  };\n"
            "};\n"
            "Widget::Widget(const Widget& o)\n    : a_{o.a_},\n      b_{o.b_} {}\n"
            "bool operator==(const Widget& a, const Widget& b) {\n  return a.Get() == b.Get();\n}\n"
            'extern "C" {\nint c_api(void) {\n  return 0;\n}\n}\n')
        self.assertEqual(self.function_list(text), [
            ("Widget::Widget", 8, 3),
            ("Widget::Get", 11, 1),
            ("Widget::Tail", 12, 3),
            ("Widget::Inner::Go", 19, 1),
            ("Widget::Widget", 22, 3),
            ("operator==", 25, 3),
            ("c_api", 29, 3),
        ])

    def test_file_over_the_limit_and_tests_skipped(self):
        self.write("src/lib/big.h", "// filler\n" * 601)
        self.write("src/lib/big_test.cc", function("LongTest", 200) + "// filler\n" * 700)
        self.write("src/lib/tests/helper.cc", function("LongHelper", 200))
        self.write("src/lib/test_util.h", "")
        rc, out = self.run_checker()
        self.assertEqual((rc, out), (1, ["src/lib/big.h:1: file is 601 lines (limit 600)"]))

    def test_exceptions_excuse_what_they_name(self):
        self.write("src/lib/a.cc", function("Long", 70) + function("Long", 80, "int Long()") + "// x\n" * 500)
        self.exceptions("# comment\n\nsrc/lib/a.cc:Long  a switch over every record type\n"
                        "src/lib/a.cc   generated tables\n")
        self.assertEqual(self.run_checker(), (0, []))

    def test_stale_or_unreasoned_exceptions_are_errors(self):
        self.write("src/lib/a.cc", function("Short", 20) + function("Long", 61))
        self.exceptions(
            "src/lib/a.cc:Short  was long once\n"    # 1: the function is short now
            "src/lib/a.cc:Gone  split long ago\n"    # 2: no such function
            "src/lib/a.cc  a big file once\n"        # 3: the file is short
            "src/lib/none.cc:F  moved away\n"        # 4: no such file
            "src/lib/a.cc:Long\n")                   # 5: no reason
        rc, out = self.run_checker()
        self.assertEqual(rc, 1)
        self.assertEqual(out, [
            "scripts/size_exceptions.txt:5: exception 'src/lib/a.cc:Long' gives no reason",
            "scripts/size_exceptions.txt:1: exception 'src/lib/a.cc:Short' no longer applies: "
            "the function is 20 lines (limit 60); remove it",
            "scripts/size_exceptions.txt:2: exception 'src/lib/a.cc:Gone' names no function of "
            "src/lib/a.cc (stale: remove it)",
            "scripts/size_exceptions.txt:3: exception 'src/lib/a.cc' no longer applies: the file is "
            "81 lines (limit 600); remove it",
            "scripts/size_exceptions.txt:4: exception 'src/lib/none.cc:F' names no file (stale: remove it)",
        ])

    def test_list_prints_every_measurement_longest_first(self):
        self.write("src/lib/a.cc", function("Short", 5) + function("Long", 70))
        self.write("bench/b.cc", function("main", 10, "int main()"))
        rc, out = self.run_checker("--list")
        self.assertEqual(rc, 0)
        self.assertEqual([line.split() for line in out], [
            ["75", "src/lib/a.cc:1:", "file"],
            ["70", "src/lib/a.cc:6:", "function", "'Long'"],
            ["10", "bench/b.cc:1:", "file"],
            ["10", "bench/b.cc:1:", "function", "'main'"],
            ["5", "src/lib/a.cc:1:", "function", "'Short'"],
        ])


if __name__ == "__main__":
    unittest.main()
