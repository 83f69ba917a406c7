#!/usr/bin/env bash
# Installs a wheel of the Python package into a fresh virtual environment
# whose PATH has no cargo and no rustc, and runs the quick start of
# python/README.md (python/examples/quickstart.py) with it: what a user
# without a Rust toolchain gets from `pip install mavis_verify-*.whl`.
# Usage: scripts/wheel_check.sh WHEEL
set -euo pipefail
wheel=$(realpath "$1")
cd "$(dirname "$0")/.."
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
python3 -m venv "$fresh/venv"
# numpy for the example (the package itself depends on nothing), pinned as
# in python-training/requirements.txt.
numpy_pin=$(grep -E '^numpy==' python-training/requirements.txt)
"$fresh/venv/bin/python" -m pip install -q --disable-pip-version-check "$wheel" "$numpy_pin"
# A PATH of the venv and the system's directories only, checked to hold no
# Rust toolchain (rustup installs into ~/.cargo/bin, outside it).
clean_path="$fresh/venv/bin:/usr/local/bin:/usr/bin:/bin"
for tool in cargo rustc; do
  if PATH="$clean_path" command -v "$tool" >/dev/null 2>&1; then
    echo "wheel_check: $tool is on the clean PATH ($(PATH="$clean_path" command -v "$tool")); cannot test without it" >&2
    exit 1
  fi
done
env -i HOME="$fresh" PATH="$clean_path" PYTHONDONTWRITEBYTECODE=1 \
  "$fresh/venv/bin/python" python/examples/quickstart.py
