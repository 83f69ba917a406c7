#!/usr/bin/env python3
"""Fails (exit 1) when a file of src/ outside the allowed ones names serde_json.

Results travel as types; only the layers that render reports, and the
readers and writers of JSON formats, know JSON (issue 31, section 2). The
allowed files are listed in scripts/json_imports_allowed.txt. A file names
serde_json when its code outside comments, string literals and test modules
says `serde_json` (a `use` or an inline path); test files (modules declared
`#[cfg(test)] mod x;`) are left out, as scripts/check_cycles.py leaves them.
Every offending file is printed with the line that names serde_json.

Usage: scripts/check_json_imports.py [--root DIR]
"""

import argparse
import fnmatch
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_cycles import Crate, drop_test_blocks  # noqa: E402

NAMES_SERDE_JSON = re.compile(r"\bserde_json\b")


def read_allowed(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as fh:
        lines = (line.strip() for line in fh)
        return [line for line in lines if line and not line.startswith("#")]


def allowed(f, patterns):
    """Whether `f` (relative to src/, `/`-separated) matches a pattern."""
    for p in patterns:
        if p.endswith("/"):
            parts, depth = f.split("/"), p.count("/")
            if fnmatch.fnmatchcase("/".join(parts[:depth]) + "/", p) and len(parts) > depth:
                return True
        elif fnmatch.fnmatchcase(f, p) and f.count("/") == p.count("/"):
            return True
    return False


def first_line_naming(path):
    """The first line that names serde_json outside a `//` comment."""
    with open(path, encoding="utf-8") as fh:
        for i, text in enumerate(fh, 1):
            if NAMES_SERDE_JSON.search(text.split("//")[0]):
                return i
    return 1


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.dirname(here), help="the repository")
    args = ap.parse_args()
    crate = Crate(os.path.join(args.root, "src"))
    patterns = read_allowed(os.path.join(args.root, "scripts", "json_imports_allowed.txt"))
    tests = crate.test_files()
    offending = 0
    for f in crate.files:
        if f in tests:
            continue
        code = drop_test_blocks(crate.code[f])
        m = NAMES_SERDE_JSON.search(code)
        if not m or allowed(f.replace(os.sep, "/"), patterns):
            continue
        offending += 1
        line = first_line_naming(os.path.join(crate.src, f))
        print(f"src/{f}:{line}: names serde_json, but only rendering layers and JSON "
              "readers may (scripts/json_imports_allowed.txt)")
    print(f"{len(crate.files) - len(tests)} files, {offending} naming serde_json outside "
          "the rendering layers and JSON readers")
    return 1 if offending else 0


if __name__ == "__main__":
    sys.exit(main())
