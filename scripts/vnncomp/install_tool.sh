#!/usr/bin/env bash
# VNN-COMP: install_tool.sh v1
# Run once on the competition's machine: installs what the build needs
# (scripts/prereqs.sh: a C++ compiler, cmake, libclang; Rust via rustup) and
# builds the mavis binary in release. Exit 0 when the binary answers.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/common.sh"
check_version "${1:-}"
cd "$here/../.."
source scripts/prereqs.sh
cargo build --release --locked
"$(mavis_bin)" --version
