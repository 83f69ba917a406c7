#!/usr/bin/env python3
"""Fails (exit 1) when a function of src/ spans more than 80 lines.

Every .rs file under src/ is scanned (test modules included); every `fn`
item, free or in an `impl`/`trait` block, nested or not, is measured from
the line of its `fn` keyword to the line of its closing brace. Braces are
matched on the code with comments (line, block, nested block), string
literals (plain, byte, raw with any number of `#`) and char literals blanked
out, so a `{` in a string or a comment does not count; lifetimes (`'a`) are
told apart from char literals. A declaration without a body (`fn f();` in a
trait) is skipped.

Each function found too long is printed as `path:line name N lines`.

Usage: scripts/long_functions.py [--root DIR] [--max LINES]
"""

import argparse
import os
import re
import sys

FN_RE = re.compile(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)")
RAW_STRING_RE = re.compile(r'b?r(#*)"')


def blank(text, start, end):
    """text[start:end] with every character but newlines as a space."""
    return re.sub(r"[^\n]", " ", text[start:end])


def code_only(text):
    """The text with comments, strings and char literals blanked out.

    Blanking keeps every character at its offset and every newline in
    place, so offsets and line numbers of the result are those of the text.
    """
    out = []
    i, n = 0, len(text)
    plain = 0  # start of the code not yet copied to `out`
    while i < n:
        c = text[i]
        end = None
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            end = j
        elif c in "rb" and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            raw = RAW_STRING_RE.match(text, i)
            if raw:
                close = '"' + raw.group(1)
                j = text.find(close, raw.end())
                end = n if j < 0 else j + len(close)
            elif text.startswith('b"', i):
                end = string_end(text, i + 1)
            elif text.startswith("b'", i):
                end = char_end(text, i + 1)
        elif c == '"':
            end = string_end(text, i)
        elif c == "'":
            end = char_end(text, i)
        if end is None:
            i += 1
            continue
        out.append(text[plain:i])
        out.append(blank(text, i, end))
        i = plain = end
    out.append(text[plain:])
    return "".join(out)


def string_end(text, quote):
    """The offset just past the string literal whose `"` is at `quote`."""
    j = quote + 1
    while j < len(text):
        if text[j] == "\\":
            j += 2
        elif text[j] == '"':
            return j + 1
        else:
            j += 1
    return len(text)


def char_end(text, quote):
    """The offset past the char literal at `quote`, or None for a lifetime."""
    if text.startswith("\\", quote + 1):
        j = text.find("'", quote + 3)  # the escaped character may be `'`
        return None if j < 0 else j + 1
    if quote + 2 < len(text) and text[quote + 2] == "'":
        return quote + 3
    return None  # 'a, 'static, a loop label: not a literal


def body_end(code, start):
    """The offset of the `}` closing the body of the fn at `start`.

    None for a declaration without a body: the signature ends at a `;`
    outside parentheses and brackets (`-> [u8; 4]` is part of it).
    """
    depth = 0
    i = start
    while i < len(code):
        c = code[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == ";" and depth == 0:
            return None
        elif c == "{" and depth == 0:
            break
        i += 1
    else:
        return None
    braces = 0
    while i < len(code):
        if code[i] == "{":
            braces += 1
        elif code[i] == "}":
            braces -= 1
            if braces == 0:
                return i
        i += 1
    return None


def long_functions(path, limit):
    """(line, name, lines) of every function of the file longer than limit."""
    with open(path, encoding="utf-8") as f:
        code = code_only(f.read())
    found = []
    for m in FN_RE.finditer(code):
        end = body_end(code, m.end())
        if end is None:
            continue
        first = code.count("\n", 0, m.start()) + 1
        lines = code.count("\n", m.start(), end) + 1
        if lines > limit:
            found.append((first, m.group(1), lines))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--root", default=os.path.join(here, "..", "src"))
    parser.add_argument("--max", type=int, default=80, help="most lines a function may span")
    args = parser.parse_args()
    root = os.path.normpath(args.root)
    base = os.path.dirname(root)
    failures = 0
    for directory, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".rs"):
                continue
            path = os.path.join(directory, name)
            for line, fn, lines in long_functions(path, args.max):
                print(f"{os.path.relpath(path, base)}:{line} {fn} {lines} lines")
                failures += 1
    if failures:
        print(f"{failures} function(s) of more than {args.max} lines")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
