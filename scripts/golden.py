#!/usr/bin/env python3
"""Record or compare the outputs of scripts/golden_commands.txt (text and JSON).

    scripts/golden.py record DIR [--bin PATH]
    scripts/golden.py compare DIR [--bin PATH]

While a restructuring is under way, behaviour must not change: record the
outputs with the binary before the change, compare after. Timings (seconds,
milliseconds, rates and JSON keys that hold times) are masked so that only
behaviour is compared. A command that takes more than 120 s is recorded as a
timeout and compared as such.
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
    text = TIME_KEY.sub(lambda m: f"{m.group(1)}{m.group(2)}{m.group(4)}: T", text)
    return mask_time_columns(TIME_TEXT.sub("T", text))


def commands():
    with open(os.path.join(ROOT, "scripts", "golden_commands.txt")) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
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
    for i, line in enumerate(commands()):
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
