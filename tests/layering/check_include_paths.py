#!/usr/bin/env python3
"""Fails when a CMakeLists.txt puts src/ itself on an include path: the libraries' include paths
(cmake/gs_expose.cmake) are the layering, and one `-I src` would let every file include anything.

Usage: check_include_paths.py PROJECT_ROOT
"""
import os
import re
import sys

# include_directories(...) or target_include_directories(...) naming src as a whole.
SRC_ON_PATH = re.compile(
    r"include_directories\s*\([^)]*(\$\{(PROJECT|CMAKE)_SOURCE_DIR\}/src|\$\{CMAKE_CURRENT_SOURCE_DIR\})(\s|\))",
    re.S)


def offenders(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(("build", ".")) and d != "node_modules"]
        if "CMakeLists.txt" not in filenames:
            continue
        path = os.path.join(dirpath, "CMakeLists.txt")
        text = open(path, encoding="utf-8").read()
        for m in SRC_ON_PATH.finditer(text):
            names_src = m.group(1).endswith("/src") or os.path.normpath(dirpath) == os.path.join(root, "src")
            if names_src:
                line = text.count("\n", 0, m.start()) + 1
                yield f"{os.path.relpath(path, root)}:{line}: puts src/ on an include path"


def main():
    root = os.path.normpath(sys.argv[1])
    found = list(offenders(root))
    for f in found:
        print(f)
    if not found:
        print("no CMakeLists.txt puts src/ on an include path")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
