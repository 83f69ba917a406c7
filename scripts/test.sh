#!/usr/bin/env bash
# What scripts/demo.sh does (prerequisites, release build, the main job), then
# the whole test suite: formatting, lints, Rust tests (release), Python tests.
set -euo pipefail
cd "$(dirname "$0")/.."
MAVIS_NEEDS_PYTHON=1 source scripts/prereqs.sh

echo "== the main job (scripts/demo.sh)"
scripts/demo.sh

echo "== import cycles between files of src/"
python3 scripts/check_cycles.py
echo "== functions of at most 80 lines in src/"
python3 scripts/long_functions.py
echo "== serde_json only in rendering layers and JSON readers"
python3 scripts/check_json_imports.py
echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy --all-targets -- -D warnings"
cargo clippy --release --all-targets -- -D warnings
echo "== cargo clippy --lib --features python -- -D warnings (the Python extension module)"
cargo clippy --release --lib --features python -- -D warnings
echo "== cargo test --release"
# CI replays one fixed proptest seed so that a run is reproducible; locally each
# run draws new cases (set PROPTEST_RNG_SEED to replay one). Every proptest is
# configured with `failure_persistence: None`, so no regression file is written
# into the checkout; a failing case is kept as an explicit regression test.
if [ "${CI:-}" = true ]; then
  export PROPTEST_RNG_SEED="${PROPTEST_RNG_SEED:-20261201}"
fi
cargo test --release

# Python side (the mavis package, training, ONNX fixtures, peer cross-checks) in a
# virtual environment.
reqs=()
for f in python/requirements.txt python-training/requirements.txt tests/peers/requirements.txt; do
  [ -f "$f" ] && reqs+=(-r "$f")
done
if [ ${#reqs[@]} -gt 0 ]; then
  echo "== python tests"
  [ -x .venv/bin/python ] || python3 -m venv .venv
  .venv/bin/python -m pip install -q --disable-pip-version-check "${reqs[@]}"
  target_dir=$(cargo metadata --format-version 1 --no-deps | .venv/bin/python -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
  export MAVIS_BIN="$target_dir/release/mavis"
  echo "== maturin build --release: the wheel of the Python package (abi3, CPython >= 3.9)"
  # maturin builds the extension in the same cargo target directory as the
  # release build above, so HiGHS and the other dependencies are not compiled
  # again; maturin itself comes pinned from python/requirements.txt.
  wheels="$target_dir/wheels-test"
  rm -rf "$wheels"
  CARGO_TARGET_DIR="$target_dir" .venv/bin/maturin build --release --quiet --out "$wheels"
  wheel=$(ls "$wheels"/*.whl)
  .venv/bin/python -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$wheel"
  echo "== the wheel in a fresh venv, no cargo or rustc on PATH: python/examples/quickstart.py"
  scripts/wheel_check.sh "$wheel"
  echo "== mypy --strict on python/examples (py.typed, Literal types)"
  .venv/bin/python -m mypy --strict --no-incremental --cache-dir=/dev/null python/examples
  dirs=()
  for d in python/tests python-training tests/peers; do [ -d "$d" ] && dirs+=("$d"); done
  # Nothing lands in the checkout besides .venv: no bytecode, no pytest cache
  # (tests write into pytest's tmp_path).
  PYTHONDONTWRITEBYTECODE=1 .venv/bin/python -m pytest -q -rs -p no:cacheprovider "${dirs[@]}"
fi
