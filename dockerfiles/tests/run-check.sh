#!/usr/bin/env bash
# ctest's entry to the container checks (dockerfiles/tests/CMakeLists.txt):
#
#   dockerfiles/tests/run-check.sh scripts/check-libtorch2.sh
#   dockerfiles/tests/run-check.sh scripts/check-cuda-build.sh [ARGS...]
#
# They need root (debootstrap, rootful podman) and podman. Without either the
# check reports itself skipped (exit 77, ctest's SKIP_RETURN_CODE) with the
# reason, except under CI (CI=true), where a check that cannot run fails
# rather than pass unnoticed, as the cluster e2e suite does (e2e/lib.sh).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
script=${1:?usage: run-check.sh SCRIPT [ARGS...]}
shift
name=$(basename "$script" .sh)

cannot_run() {
  if [[ ${CI:-} == true ]]; then
    echo "$name: FAILED: $1; CI=true, so this is a failure, not a skip" >&2
    exit 1
  fi
  echo "$name: SKIPPED: $1"
  exit 77
}
[[ $(id -u) -eq 0 ]] || cannot_run "needs root (debootstrap and rootful podman)"
command -v podman >/dev/null || cannot_run "needs podman (scripts/install-e2e-deps.sh installs it)"
exec "$root/$script" "$@"
