#!/usr/bin/env bash
# The main job: builds mavis and runs the guarding-game verification.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/prereqs.sh
cargo build --release --quiet
target_dir=$(cargo metadata --format-version 1 --no-deps | sed 's/.*"target_directory":"\([^"]*\)".*/\1/')
mavis="$target_dir/release/mavis"
echo "\$ mavis lang eval '1/3 + 0.15'"
"$mavis" lang eval '1/3 + 0.15'
