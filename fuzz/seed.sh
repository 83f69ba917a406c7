#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ with the repository's own files of each format.
set -euo pipefail
cd "$(dirname "$0")/.."
c=fuzz/corpus
mkdir -p "$c"
put() { local t=$1; shift; mkdir -p "$c/$t"; for f in "$@"; do cp "$f" "$c/$t/"; done; }
put nis examples/guarding/*.nis examples/guarding_real/*.nis
put swarm examples/foraging/*.swarm
put swarm_faults examples/foraging/*.faults
put swarm_props examples/foraging/*.props
put mapt examples/cav/*.mapt
put ma examples/robust/*.ma
put strategy examples/robust/*.strat
put pgsolver_game examples/robust/*.pg
put onnx tests/fixtures/*.onnx
put vnnlib tests/fixtures/*.vnnlib
mkdir -p "$c/expression" "$c/nis_spec" "$c/timed_query" "$c/mapt_json" "$c/pgsolver_solution" "$c/ma_json"
printf '1/3 + 0.15' > "$c/expression/sum"
printf 'clamp(3 - 2*2, 0, 4)' > "$c/expression/clamp"
printf 'forall v1, v2: EX^3 (alive, v1) & (alive, v2)' > "$c/nis_spec/ex3"
printf 'AG(brake2 & time <= 300 * TU => EF x1 - x2 >= SAFE)' > "$c/timed_query/nested"
printf 'min x1 - x2' > "$c/timed_query/min"
# Forms mavis writes itself, when a release binary is built.
mavis=${MAVIS_BIN:-target/release/mavis}
if [ -x "$mavis" ]; then
  for f in examples/cav/*.mapt; do
    "$mavis" timed convert "$f" -o "$c/mapt_json/$(basename "$f").json" >/dev/null
  done
  for f in examples/robust/*.pg; do
    "$mavis" robust parity "$f" --solution "$c/pgsolver_solution/$(basename "$f").sol" >/dev/null || true
  done
fi
echo "corpus in $c"
