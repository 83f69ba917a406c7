# Shared by the VNN-COMP scripts of this folder (sourced, not run): the
# version check and where the mavis binary is.

# The competition passes the scripts' interface version first; only v1 exists.
check_version() {
  if [ "$1" != v1 ]; then
    echo "mavis VNN-COMP scripts: expected the version string 'v1' as the first argument, got '$1'" >&2
    exit 1
  fi
}

# The binary: $MAVIS_BIN if set, else the release build of this checkout
# (install_tool.sh makes it; $CARGO_TARGET_DIR is honoured), else `mavis` on PATH.
mavis_bin() {
  local root
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  if [ -n "${MAVIS_BIN:-}" ]; then
    echo "$MAVIS_BIN"
  elif [ -x "${CARGO_TARGET_DIR:-$root/target}/release/mavis" ]; then
    echo "${CARGO_TARGET_DIR:-$root/target}/release/mavis"
  else
    command -v mavis || { echo "mavis VNN-COMP scripts: no mavis binary (run install_tool.sh v1, or set MAVIS_BIN)" >&2; exit 1; }
  fi
}
