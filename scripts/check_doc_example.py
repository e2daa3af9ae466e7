#!/usr/bin/env python3
"""Checks that every source file a doc shows whole is shown as it is.

A doc shows a file between the lines `<!-- begin PATH -->` and `<!-- end PATH -->`, in one fenced
code block; the block must equal the file at PATH (relative to the repository), and a count the
text gives ("`PATH`, whole (N lines") must be its number of lines. Usage:
check_doc_example.py [--update] [DOC ...] (default: docs/contributing.md). Exit 1 naming the first
difference; --update copies each file into its block instead.
"""
import difflib
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


BLOCK = re.compile(r"^<!-- begin (\S+) -->\n(```\w*\n)(.*?)^```\n<!-- end \1 -->$", re.S | re.M)


COUNT = re.compile(r"`(\S+)`, whole \((\d+) lines")


def lines_of(path: str) -> int:
    return (ROOT / path).read_text().count("\n")


def update(doc: pathlib.Path) -> None:
    def fresh(m: re.Match) -> str:
        return f"<!-- begin {m[1]} -->\n{m[2]}{(ROOT / m[1]).read_text()}```\n<!-- end {m[1]} -->"
    text = BLOCK.sub(fresh, doc.read_text())
    doc.write_text(COUNT.sub(lambda m: f"`{m[1]}`, whole ({lines_of(m[1])} lines", text))


def check(doc: pathlib.Path) -> list[str]:
    text = doc.read_text()
    errors = []
    shown = [(m[1], m[3]) for m in BLOCK.finditer(text)]
    begins = re.findall(r"^<!-- begin (\S+) -->", text, re.M)
    if len(shown) != len(begins):
        errors.append(f"{doc}: a '<!-- begin PATH -->' without its code block and '<!-- end PATH -->'")
    for path, count in COUNT.findall(text):
        if int(count) != lines_of(path):
            errors.append(f"{doc} says {path} has {count} lines; it has {lines_of(path)}")
    for path, block in shown:
        source = (ROOT / path).read_text()
        if block != source:
            diff = difflib.unified_diff(source.splitlines(), block.splitlines(), path, f"{doc}", lineterm="", n=1)
            errors.append(f"{doc} shows {path} other than it is:\n" + "\n".join(list(diff)[:20]))
    return errors


def main() -> int:
    args = sys.argv[1:]
    docs = [pathlib.Path(a) for a in args if a != "--update"] or [ROOT / "docs/contributing.md"]
    if "--update" in args:
        for d in docs:
            update(d)
    errors = [e for d in docs for e in check(d)]
    for e in errors:
        print(e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
