#!/usr/bin/env bash
# VNN-COMP: prepare_instance.sh v1 CATEGORY ONNX_FILE VNNLIB_FILE
# Run before each instance, outside the timed part. mavis keeps nothing
# between runs (no server, no GPU state), so preparing is checking that the
# network is one mavis can read: exit 0 if so, 1 if not (the competition
# then skips the instance instead of timing a certain error). Files may be
# gzip compressed; they are read as they are.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/common.sh"
check_version "${1:-}"
if [ $# -ne 4 ]; then
  echo "usage: prepare_instance.sh v1 CATEGORY ONNX_FILE VNNLIB_FILE" >&2
  exit 1
fi
category=$2 onnx=$3 vnnlib=$4
echo "mavis: preparing instance of category '$category': $onnx, $vnnlib"
[ -r "$vnnlib" ] || { echo "mavis: cannot read the property $vnnlib" >&2; exit 1; }
if ! "$(mavis_bin)" nn info "$onnx" -q > /dev/null; then
  echo "mavis: cannot use the network $onnx (see the message above)" >&2
  exit 1
fi
