#!/usr/bin/env python3
"""check_sizes: production C/C++ files at most 600 lines, functions at most 60 (issue 32, item 6).

Scans the production sources under src/ and bench/ (not the tests: *_test.cc, tests/ and testing/
folders, test_*.h, *_test_util.h and the test-support files of TEST_SUPPORT below) and reports
every file over the file limit and every function body over the function limit that
scripts/size_exceptions.txt does not excuse. Exits 1 when there is any, one line per violation:

    src/x/y.cc:120: function 'Foo::Bar' is 75 lines (limit 60)
    src/x/z.cc:1: file is 640 lines (limit 600)

The exceptions file has one exception a line, '#' comments and blank lines aside:

    src/x/y.cc:Foo::Bar  the reason it stays long
    src/x/z.cc  the reason the file stays long

Every exception needs a reason, and one that no longer applies (the function or file is within
its limit now, or gone) is an error too, so the list cannot rot. A name stands for every function
of that name in the file (overloads).

A function is a '{' at namespace or class scope whose preceding declaration looks like a function
signature: '...)' optionally followed by const, noexcept, override, final, '&', '-> type' or a
constructor's initializer list (a lambda stored in a namespace-scope variable counts too, by the
variable's name). Its length runs from the signature's first line to the closing brace; lambdas
and local classes inside a function count toward it. Comments, string and character literals
(raw strings too) and preprocessor lines are skipped. A member defined in its class is named
'Class::member'; an out-of-class definition by the name it is written with.

Usage: check_sizes.py [--root DIR] [--exceptions FILE] [--list] [--max-file-lines N]
                      [--max-function-lines N] [PATH ...]
  PATH     files or folders to scan, relative to the root (default: src bench)
  --list   print every measurement (files and functions), longest first, and exit 0
"""
import argparse
import fnmatch
import os
import re
import sys

MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 60
SOURCE_SUFFIXES = (".cc", ".cpp", ".cxx", ".c", ".h", ".hh", ".hpp")
DEFAULT_PATHS = ("src", "bench")
# Test code, by name: not production.
TEST_FILE_PATTERNS = ("*_test.cc", "*_test.c", "*_test.cpp", "test_*.h", "*_test_util.h")
TEST_DIRS = ("tests", "testing", "fuzz", "program_test", "install_test")
# Test-support files whose names do not say so (src/CMakeLists.txt: gs_test_support, and the
# helpers the unit tests include).
TEST_SUPPORT = (
    "src/base/status_matchers.h",
    "src/base/test_files.h",
    "src/model/trace_script.cc",
    "src/model/trace_script.h",
    "src/record/test_util.h",
)


# --- Lexing: the code with comments, literals and preprocessor lines blanked --------------------

def strip_code(text):
    """Returns text of the same length and the same line breaks, in which comments, the contents
    of string and character literals and preprocessor directives are spaces (a literal keeps its
    quotes), so braces and parentheses in them count for nothing."""
    out = []
    i, n = 0, len(text)
    at_line_start = True  # only whitespace since the last line break
    in_directive = False

    def blank(s):
        return "".join(c if c == "\n" else " " for c in s)

    while i < n:
        c = text[i]
        nxt = text[i + 1] if i + 1 < n else ""
        if c == "\n":
            # A directive ends at a line break that is not escaped.
            if in_directive and not (i > 0 and text[i - 1] == "\\"):
                in_directive = False
            out.append(c)
            at_line_start = True
            i += 1
            continue
        if c == "/" and nxt == "/":
            j = i
            while j < n and text[j] != "\n":
                # A line comment continues over an escaped line break.
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "\n":
                    j += 2
                    continue
                j += 1
            out.append(blank(text[i:j]))
            i = j
            continue
        if c == "/" and nxt == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(blank(text[i:j]))
            i = j
            continue
        if c == "#" and at_line_start:
            in_directive = True
        if c == "'" and _is_digit_separator(text, i):
            out.append(" " if in_directive else c)
            i += 1
            continue
        if c in "\"'":
            raw = c == '"' and not in_directive and re.search(r"\b(?:u8|u|U|L)?R$", text[max(0, i - 4):i])
            j = _raw_string_end(text, i) if raw else _literal_end(text, i, c)
            closed = text[j - 1] == c and j - 1 > i
            # A literal keeps its quotes (a raw string's delimiters go), except in a directive.
            inside = blank(text[i + 1:j - 1] if closed else text[i + 1:j])
            out.append(blank(text[i:j]) if in_directive else c + inside + (c if closed else ""))
            i = j
            at_line_start = False
            continue
        if not c.isspace():
            at_line_start = False
        out.append(" " if in_directive else c)
        i += 1
    return "".join(out)


def _is_digit_separator(text, i):
    """True when the ' at text[i] separates digits (1'000'000): the token before it starts with a
    digit."""
    m = re.search(r"[\w']*$", text[max(0, i - 64):i])
    return bool(m and m.group(0) and m.group(0)[0].isdigit())


def _raw_string_end(text, i):
    """The index just past the raw string R"delim( ... )delim" whose quote is text[i] (the end of
    the text if unclosed)."""
    paren = text.find("(", i + 1)
    if paren < 0:
        return len(text)
    delim = text[i + 1:paren]
    end = text.find(")" + delim + '"', paren + 1)
    return len(text) if end < 0 else end + len(delim) + 2


def _literal_end(text, i, quote):
    """The index just past the literal that opens at text[i] (or the line's end if unclosed)."""
    j = i + 1
    n = len(text)
    while j < n:
        if text[j] == "\\":
            j += 2
            continue
        if text[j] == quote:
            return j + 1
        if text[j] == "\n":
            return j
        j += 1
    return n


# --- Classifying a '{' by the declaration before it ----------------------------------------------

_QUALIFIER_TAIL = re.compile(
    r"(?:\s*\b(?:const|volatile|override|final|mutable|constexpr|noexcept)\b|\s*&&?)\s*$")
_TRAILING_RETURN = re.compile(r"->[^()]*$")
_NAME_BEFORE_PARAMS = re.compile(
    r"(~?[A-Za-z_]\w*(?:\s*<[^()]*>)?(?:\s*::\s*~?[A-Za-z_]\w*(?:\s*<[^()]*>)?)*"
    r"(?:\s*::\s*operator\s*(?:\(\s*\)|\[\s*\]|[^\w\s()]+|[\w\s:<>*&]+))?"
    r"|operator\s*(?:\(\s*\)|\[\s*\]|[^\w\s()]+|[\w\s:<>*&]+))\s*$")
_NOT_NAMES = {"noexcept", "throw", "decltype", "requires", "alignas", "__attribute__",
              "if", "for", "while", "switch", "catch", "return", "sizeof"}


def _matching_open(s, close):
    """The index of the '(' matching the ')' at s[close], or -1."""
    depth = 0
    for k in range(close, -1, -1):
        if s[k] == ")":
            depth += 1
        elif s[k] == "(":
            depth -= 1
            if depth == 0:
                return k
    return -1


def _top_level_init_colon(s):
    """The index of a constructor initializer list's ':' (a lone ':' at parenthesis depth 0 after
    a ')'), or -1."""
    depth = 0
    seen_close = False
    for k, ch in enumerate(s):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
            if depth == 0 and ch == ")":
                seen_close = True
        elif ch == ":" and depth == 0 and seen_close:
            if (k + 1 < len(s) and s[k + 1] == ":") or (k > 0 and s[k - 1] == ":"):
                continue
            return k
    return -1


def _strip_tail(s):
    """The signature with its trailing qualifiers, trailing return type and noexcept(...) gone."""
    while True:
        s = s.rstrip()
        t = _QUALIFIER_TAIL.sub("", s)
        if t != s:
            s = t
            continue
        m = _TRAILING_RETURN.search(s)
        if m and s[:m.start()].rstrip().endswith(")"):
            s = s[:m.start()]
            continue
        if s.endswith(")"):
            open_ = _matching_open(s, len(s) - 1)
            if open_ > 0:
                word = re.search(r"(\w+)\s*$", s[:open_])
                if word and word.group(1) in ("noexcept", "throw", "requires", "decltype") and \
                        re.search(r"\)\s*(?:->\s*)?(?:\w+\s*)?$", s[:open_]):
                    s = s[:word.start(1)]
                    continue
        return s


def classify(decl):
    """What a '{' opens, by the declaration text before it at namespace or class scope:
    ('namespace', None), ('class', name), ('function', name), ('init', None) for a brace in a
    constructor's initializer list, or ('data', None) for anything else (an initializer, an enum)."""
    s = " ".join(decl.split())
    s = re.sub(r"^(?:(?:public|private|protected)\s*:\s*)+", "", s)
    if re.fullmatch(r"(?:inline\s+)?namespace(?:\s+[\w:]+)?|extern\s*\"\s*\"", s):
        return ("namespace", None)
    init = _top_level_init_colon(s)
    if init >= 0 and _looks_like_signature(s[:init]):
        rest = s[init + 1:].rstrip()
        if rest and (rest[-1].isalnum() or rest[-1] in "_>"):
            return ("init", None)  # member{...} inside the initializer list
        return ("function", _function_name(s[:init]))
    if _looks_like_signature(s):
        return ("function", _function_name(s))
    m = re.match(r"(?:template\s*<.*?>\s*)?(?:class|struct|union)\b\s*(?:\[\[.*?\]\]\s*)?(?:\w+\s+(?=\w))*"
                 r"([A-Za-z_]\w*)?", s)
    if m and not re.search(r"=", s):
        return ("class", m.group(1) or "(anonymous)")
    return ("data", None)


def _looks_like_signature(s):
    s = _strip_tail(s)
    if not s.endswith(")"):
        return False
    open_ = _matching_open(s, len(s) - 1)
    if open_ < 0:
        return False
    before = s[:open_].rstrip()
    if before.endswith("]"):
        return "=" in before  # a lambda in a variable: auto kF = [](...) {
    m = _NAME_BEFORE_PARAMS.search(before)
    if not m:
        return False
    last = re.split(r"\s*::\s*", m.group(1).strip())[-1]
    return last not in _NOT_NAMES


def _function_name(s):
    s = _strip_tail(s)
    open_ = _matching_open(s, len(s) - 1)
    before = s[:open_].rstrip()
    if before.endswith("]"):
        m = re.search(r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*=\s*(?:\[[^\]]*\]\s*)$", before)
        return m.group(1) if m else "(lambda)"
    name = _NAME_BEFORE_PARAMS.search(before).group(1)
    name = re.sub(r"\s*::\s*", "::", name)
    name = re.sub(r"\s*<[^()]*>", "", name) if not name.startswith("operator") and "::operator" not in name else name
    return re.sub(r"\s+", "", name) if "operator" in name else name


# --- Measuring a file ---------------------------------------------------------------------------

class Function:
    def __init__(self, name, first_line, last_line):
        self.name = name
        self.first_line = first_line
        self.last_line = last_line

    @property
    def lines(self):
        return self.last_line - self.first_line + 1


def find_functions(text):
    """Every function in the source text, with its first and last line (1-based)."""
    code = strip_code(text)
    functions = []
    # Each frame: (kind, name, first line, where its declaration began in code). Declaration
    # scopes are the file, namespaces and classes; inside a function or an initializer every
    # brace just nests.
    stack = [("namespace", None, 0, None)]
    decl_start = 0  # where the declaration before the next '{' begins in code
    line = 1
    for i, ch in enumerate(code):
        if ch == "\n":
            line += 1
            continue
        kind = stack[-1][0]
        in_decl_scope = kind in ("namespace", "class")
        if ch == ";" and in_decl_scope:
            decl_start = i + 1
        elif ch == ":" and kind == "class" and \
                code[decl_start:i].strip() in ("public", "protected", "private"):
            decl_start = i + 1  # an access specifier is no part of the next declaration
        elif ch == "{":
            if not in_decl_scope:
                stack.append(("nested", None, line, None))
                continue
            decl = code[decl_start:i]
            what, name = classify(decl)
            if what == "function":
                # The signature's first line: where the declaration's first character is.
                stripped = len(decl) - len(decl.lstrip())
                first = line - decl[stripped:].count("\n")
                classes = [f[1] for f in stack if f[0] == "class"]
                qualified = "::".join(classes + [name]) if classes else name
                stack.append(("function", qualified, first, decl_start))
            elif what in ("init", "data"):
                stack.append((what, None, line, decl_start))
            else:
                stack.append((what, name, line, None))
                decl_start = i + 1
        elif ch == "}":
            if len(stack) == 1:
                continue  # unbalanced (preprocessor branches): ignore
            frame = stack.pop()
            if frame[0] == "function":
                functions.append(Function(frame[1], frame[2], line))
                decl_start = i + 1
            elif frame[0] in ("init", "data"):
                if stack[-1][0] in ("namespace", "class"):
                    decl_start = frame[3]  # the declaration goes on: Foo() : a_{1} {  /  X x{1};
            elif frame[0] in ("namespace", "class"):
                decl_start = i + 1
    return functions


# --- The scan, the exceptions and the report ----------------------------------------------------

def is_production(rel):
    rel = rel.replace(os.sep, "/")
    if not rel.endswith(SOURCE_SUFFIXES):
        return False
    parts = rel.split("/")
    if any(p in TEST_DIRS for p in parts[:-1]):
        return False
    if any(fnmatch.fnmatch(parts[-1], p) for p in TEST_FILE_PATTERNS):
        return False
    return rel not in TEST_SUPPORT


def production_files(root, paths):
    found = []
    for p in paths:
        full = os.path.join(root, p)
        if os.path.isfile(full):
            candidates = [full]
        else:
            candidates = []
            for d, dirs, files in os.walk(full):
                dirs[:] = sorted(x for x in dirs if not x.startswith("."))
                candidates += [os.path.join(d, f) for f in files]
        for f in candidates:
            rel = os.path.relpath(f, root).replace(os.sep, "/")
            if is_production(rel):
                found.append(rel)
    return sorted(set(found))


def measure(root, paths):
    """{path: (line count, [Function])} for every production file."""
    result = {}
    for rel in production_files(root, paths):
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        result[rel] = (text.count("\n") + (0 if text.endswith("\n") or not text else 1),
                       find_functions(text))
    return result


def read_exceptions(path, display):
    """([(line number, key, reason)], [error]): key is 'path' or 'path:function'; errors name the
    file as display."""
    exceptions, errors = [], []
    if not os.path.exists(path):
        return exceptions, errors
    seen = {}
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            text = raw.strip()
            if not text or text.startswith("#"):
                continue
            fields = text.split(None, 1)
            key = fields[0]
            reason = fields[1].strip() if len(fields) > 1 else ""
            where = f"{display}:{number}"
            if not reason:
                errors.append(f"{where}: exception '{key}' gives no reason")
            if key in seen:
                errors.append(f"{where}: exception '{key}' repeats line {seen[key]}")
                continue
            seen[key] = number
            exceptions.append((number, key, reason))
    return exceptions, errors


def check(root, paths, exceptions_path, max_file, max_function):
    """The violations and the exception errors, one line each."""
    measured = measure(root, paths)
    exc_display = os.path.relpath(exceptions_path, root)
    exceptions, problems = read_exceptions(exceptions_path, exc_display)
    excused = {key for _, key, _ in exceptions}
    violations = []
    for rel, (count, functions) in measured.items():
        if count > max_file and rel not in excused:
            violations.append(f"{rel}:1: file is {count} lines (limit {max_file})")
        for fn in functions:
            if fn.lines > max_function and f"{rel}:{fn.name}" not in excused:
                violations.append(
                    f"{rel}:{fn.first_line}: function '{fn.name}' is {fn.lines} lines (limit {max_function})")
    for number, key, _ in exceptions:
        where = f"{exc_display}:{number}"
        rel, _, name = key.partition(":")
        if rel not in measured:
            if not os.path.exists(os.path.join(root, rel)):
                problems.append(f"{where}: exception '{key}' names no file (stale: remove it)")
            elif paths_cover(paths, rel):
                problems.append(f"{where}: exception '{key}' names no production source this "
                                f"checks (a test?): remove it")
            continue  # a file outside the paths of this run: not judged
        count, functions = measured[rel]
        if not name:
            if count <= max_file:
                problems.append(f"{where}: exception '{key}' no longer applies: the file is {count} "
                                f"lines (limit {max_file}); remove it")
            continue
        lengths = [fn.lines for fn in functions if fn.name == name]
        if not lengths:
            problems.append(f"{where}: exception '{key}' names no function of {rel} (stale: remove it)")
        elif max(lengths) <= max_function:
            problems.append(f"{where}: exception '{key}' no longer applies: the function is "
                            f"{max(lengths)} lines (limit {max_function}); remove it")
    return violations, problems, measured


def paths_cover(paths, rel):
    return any(rel == p or rel.startswith(p.rstrip("/") + "/") for p in paths)


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="*", help="files or folders relative to the root (default: src bench)")
    parser.add_argument("--root", default=os.path.dirname(here), help="the project root")
    parser.add_argument("--exceptions", help="the exceptions file (default: ROOT/scripts/size_exceptions.txt)")
    parser.add_argument("--list", action="store_true", help="print every measurement, longest first")
    parser.add_argument("--max-file-lines", type=int, default=MAX_FILE_LINES)
    parser.add_argument("--max-function-lines", type=int, default=MAX_FUNCTION_LINES)
    args = parser.parse_args(argv)
    root = os.path.abspath(args.root)
    paths = args.paths or [p for p in DEFAULT_PATHS if os.path.isdir(os.path.join(root, p))]
    exceptions = args.exceptions or os.path.join(root, "scripts", "size_exceptions.txt")
    violations, problems, measured = check(root, paths, exceptions, args.max_file_lines,
                                           args.max_function_lines)
    if args.list:
        rows = []
        for rel, (count, functions) in measured.items():
            rows.append((count, f"{rel}:1", "file"))
            rows += [(fn.lines, f"{rel}:{fn.first_line}", f"function '{fn.name}'") for fn in functions]
        rows.sort(key=lambda r: (-r[0], r[1]))
        for count, where, what in rows:
            print(f"{count:6d}  {where}: {what}")
        return 0
    for line in violations + problems:
        print(line)
    if violations or problems:
        print(f"check_sizes: {len(violations)} over the limits (files {args.max_file_lines} lines, "
              f"functions {args.max_function_lines}), {len(problems)} exception problems; "
              f"split them or add a reason to {os.path.relpath(exceptions, root)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
