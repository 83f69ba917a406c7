#!/usr/bin/env python3
"""Record or compare the outputs of scripts/golden_commands.txt (text and JSON).

    scripts/golden.py record DIR [--bin PATH] [--docs] [--only WORD]
    scripts/golden.py compare DIR [--bin PATH] [--docs] [--only WORD]

While a restructuring is under way, behaviour must not change: record the
outputs with the binary before the change, compare after. Timings (seconds,
milliseconds, rates and JSON keys that hold times) are masked so that only
behaviour is compared (a shard's checksum, which covers times, too). A command that takes more than 120 s is recorded as a
timeout and compared as such.

--docs adds every complete `mavis ...` command shown in README.md, docs/ and
examples/ (a line that names a placeholder such as MODEL or `...` is not a
command); --only WORD keeps the commands whose first word is WORD (`nis`).
"""
import json
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIME_KEY = re.compile(r'("?)([a-z_.]*(time|secs|seconds|elapsed|_s|_ms|rate|per_second)[a-z_]*)("?):\s*-?[0-9.eE+-]+')
TRAILING_NUMBER = re.compile(r'-?\d+(\.\d+)?\s*$')
# A shard's checksum covers its cells' times.
CHECKSUM = re.compile(r'"checksum": "[0-9a-f]{64}"')
TIME_TEXT = re.compile(r'-?\d[\d,]*(\.\d+)?(e[+-]?\d+)?\s?(s|ms|µs|us|ns|min|/s)\b')


def mask_time_columns(text):
    """Mask the last column of tables whose header ends with a time column."""
    out, in_timed_table = [], False
    for line in text.split("\n"):
        if re.search(r"\btime( \(s\))?\s*$", line):
            in_timed_table = True
        elif not line.strip():
            in_timed_table = False
        elif in_timed_table:
            line = TRAILING_NUMBER.sub("T", line)
        out.append(line)
    return "\n".join(out)


def mask(text):
    text = CHECKSUM.sub('"checksum": "C"', text)
    text = TIME_KEY.sub(lambda m: f"{m.group(1)}{m.group(2)}{m.group(4)}: T", text)
    return mask_time_columns(TIME_TEXT.sub("T", text))


def listed_commands():
    with open(os.path.join(ROOT, "scripts", "golden_commands.txt")) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                yield line


DOC_COMMAND = re.compile(r"^\s*(?:\$\s+)?mavis\s+(.*)$")
PLACEHOLDER = re.compile(r"\b(MODEL|SPEC|FILE|PATH|DIR|N|M|B|C)\b|\.\.\.|<|\[-")


def doc_files():
    for top in ("README.md", "docs", "examples"):
        path = os.path.join(ROOT, top)
        if os.path.isfile(path):
            yield path
            continue
        for d, _, files in sorted(os.walk(path)):
            for name in sorted(files):
                if name.endswith((".md", ".sh", ".txt")):
                    yield os.path.join(d, name)


def doc_commands():
    """The `mavis ...` lines of the documents (continued by a trailing `\\`)."""
    for path in doc_files():
        with open(path) as f:
            lines = f.read().split("\n")
        i = 0
        while i < len(lines):
            m = DOC_COMMAND.match(lines[i])
            i += 1
            if not m:
                continue
            cmd = m.group(1)
            while cmd.rstrip().endswith("\\") and i < len(lines):
                cmd = cmd.rstrip()[:-1] + " " + lines[i].strip()
                i += 1
            cmd = re.sub(r"\s+#.*$", "", cmd).strip()
            if "`" in cmd or PLACEHOLDER.search(cmd.replace("--format", "")):
                continue
            try:
                shlex.split(cmd)
            except ValueError:
                continue
            yield cmd


def commands(docs, only):
    seen = set()
    for line in list(listed_commands()) + (list(doc_commands()) if docs else []):
        words = shlex.split(line)
        while words and words[0].startswith("-"):
            # global options before the engine (`-q`, `--format json`)
            words = words[2:] if words[0] in ("--format", "-o") else words[1:]
        if only and (not words or words[0] != only):
            continue
        if line not in seen:
            seen.add(line)
            yield line


def run(binary, line, fmt):
    args = [binary, "--format", fmt] + shlex.split(line)
    try:
        p = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "TIMEOUT\n"
    return f"exit {p.returncode}\n--- stdout\n{mask(p.stdout)}--- stderr\n{mask(p.stderr)}"


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("record", "compare"):
        sys.exit(__doc__)
    mode, out = sys.argv[1], sys.argv[2]
    binary = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "mavis")
    if "--bin" in sys.argv:
        binary = sys.argv[sys.argv.index("--bin") + 1]
    os.makedirs(out, exist_ok=True)
    differ = 0
    docs = "--docs" in sys.argv
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    for i, line in enumerate(commands(docs, only)):
        for fmt in ("text", "json"):
            got = f"$ mavis --format {fmt} {line}\n" + run(binary, line, fmt)
            path = os.path.join(out, f"{i:03}.{fmt}.txt")
            if mode == "record":
                with open(path, "w") as f:
                    f.write(got)
            else:
                with open(path) as f:
                    want = f.read()
                if want != got:
                    differ += 1
                    print(f"DIFFERS: {path}: mavis --format {fmt} {line}")
    if mode == "compare":
        print("all outputs identical" if differ == 0 else f"{differ} outputs differ")
        sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
