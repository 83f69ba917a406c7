#!/usr/bin/env bash
# VNN-COMP: run_instance.sh v1 CATEGORY ONNX_FILE VNNLIB_FILE RESULTS_FILE TIMEOUT
# Decides one instance within TIMEOUT seconds and writes the competition's
# result file: `unsat`, `sat` followed by the assignment of every X_i and
# Y_j (replayed by mavis before it is written), `timeout`, `unknown`, or
# `error` when mavis refused the input. Exit 0 whenever a result file was
# written; the answer is in the file, not in the exit status.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/common.sh"
check_version "${1:-}"
if [ $# -ne 6 ]; then
  echo "usage: run_instance.sh v1 CATEGORY ONNX_FILE VNNLIB_FILE RESULTS_FILE TIMEOUT" >&2
  exit 1
fi
category=$2 onnx=$3 vnnlib=$4 results=$5 timeout=$6
bin="$(mavis_bin)" || exit 1
echo "mavis: category '$category': $onnx against $vnnlib, timeout $timeout s, result in $results"
rm -f "$results"
"$bin" nn verify "$onnx" "$vnnlib" --timeout "$timeout" --vnncomp-output "$results"
status=$?
case $status in
  0|1|3) ;;  # holds, violated, unknown: mavis wrote the result file
  *) echo "mavis exited with status $status" >&2 ;;
esac
if [ ! -s "$results" ]; then
  # Bad input (exit 2) or a failure before a result: the competition's `error`.
  echo error > "$results"
fi
exit 0
