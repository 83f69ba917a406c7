#!/usr/bin/env bash
# The main job on a fresh machine: installs what is missing (scripts/prereqs.sh:
# build packages with apt-get, a Rust toolchain with rustup), builds mavis in
# release mode and verifies the guarding game on the bundled network for every
# number of agents (Corollaries 1 and 2 of the NIS paper).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/prereqs.sh
cargo build --release --quiet
target_dir=$(cargo metadata --format-version 1 --no-deps | sed 's/.*"target_directory":"\([^"]*\)".*/\1/')
mavis="$target_dir/release/mavis"
model=examples/guarding/guarding.nis
for spec in 'forall v1,v2: EX^2 ((alive,v1) & (alive,v2))' \
            'forall v1,v2: EX^3 ((alive,v1) & (alive,v2))' \
            'forall v1,v2: AX^1 ((alive,v1) & (alive,v2))'; do
  echo "\$ mavis nis verify $model --spec '$spec'"
  # Exit 1 means the property fails for some n: an answer, not an error.
  status=0
  "$mavis" nis verify "$model" --spec "$spec" || status=$?
  [ "$status" -le 1 ] || exit "$status"
  echo
done
