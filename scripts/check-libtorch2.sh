#!/usr/bin/env bash
# Builds and tests the worker against LibTorch 2.x (Debian 13's libtorch-dev
# 2.6, CPU) in a container, beside the host's Debian 12 LibTorch 1.13 build:
#
#   scripts/check-libtorch2.sh
#
# 1. localhost/debian:trixie (scripts/debian-base-image.sh trixie; one-off);
# 2. the build environment localhost/distbench/build-env:trixie
#    (dockerfiles/build-env.Dockerfile; one-off, then podman's layer cache);
# 3. in a `podman run` of it, with this checkout read-only at /src
#    (dockerfiles/tests/libtorch2-in-container.sh): configure
#    (-DDISTBENCH_CUDA=OFF, no operator, no e2e, no HTML report), build
#    distbench-worker, distbench and every worker/tests executable, run the
#    worker's unit tests with ctest, one short `distbench run` of each kind
#    (dockerfiles/tests/tiny-{hybrid,ddp,collectives}.yaml: exit status 0 and
#    a report written), then scripts/gpu-check.sh --dry-run (its own
#    configure and build, in $DISTBENCH_LIBTORCH2_CACHE/gpucheck, against
#    the Debian 12 bundle scripts/fetch-gpu-deps.sh fetches into
#    $DISTBENCH_LIBTORCH2_CACHE/gpu-deps beforehand, as the GPU machine
#    builds against it on an OS of its own; its logs in logs/gpu-check).
#
# The build directories and ccache stay in $DISTBENCH_LIBTORCH2_CACHE, so a
# second run recompiles only what changed. The distinct compiler errors
# (file:line, repository paths) and the output of failed unit tests go to
# $DISTBENCH_LIBTORCH2_ERRORS. Prints each step's time; exits non-zero on any
# failure. ctest runs it as test `libtorch2` (label libtorch2,
# dockerfiles/tests/CMakeLists.txt).
#
#   DISTBENCH_LIBTORCH2_CACHE   build dir, ccache, logs
#                               (default: ~/.cache/distbench/libtorch2)
#   DISTBENCH_LIBTORCH2_ERRORS  the compile errors and test failures
#                               (default: $DISTBENCH_LIBTORCH2_CACHE/compile-errors.txt)
#   DISTBENCH_BUILD_ENV_IMAGE   the image (default: localhost/distbench/build-env:trixie)
#   DISTBENCH_JOBS              compile and test jobs (default: 2)
#   DISTBENCH_GPU_CHECK_ARGS    more arguments for scripts/gpu-check.sh --dry-run
#   DISTBENCH_WERROR            ON/OFF (default OFF, even under CI: the
#                               host build holds the warnings; OFF keeps the
#                               compile flags, so the ccache entries, those of
#                               gpu-check.sh's own build)
#   PODMAN                      the podman command (default: podman --runtime runc)
#
# Needs root (or sudo) for debootstrap and podman. Cold: about 25 minutes on
# 2 shared cores (docs/testing.md); warm: about 3 minutes.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { echo "check-libtorch2: $*"; }
now() { date +%s; }

cache=${DISTBENCH_LIBTORCH2_CACHE:-$HOME/.cache/distbench/libtorch2}
errors=${DISTBENCH_LIBTORCH2_ERRORS:-$cache/compile-errors.txt}
image=${DISTBENCH_BUILD_ENV_IMAGE:-localhost/distbench/build-env:trixie}
jobs=${DISTBENCH_JOBS:-2}
werror=${DISTBENCH_WERROR:-OFF}

source "$root/dockerfiles/podman-env.sh"
source "$root/dockerfiles/tests/compile-errors.sh"
source "$root/dockerfiles/tests/check-steps.sh"

mkdir -p "$cache/build" "$cache/gpucheck" "$cache/ccache" "$cache/logs" "$cache/gpu-deps"
# One run at a time per cache (ctest and a developer may both start one).
hold_lock "$cache/lock"

reported=0
report_timings() {
  ((reported == 0)) || return 0
  reported=1
  log "host steps:"
  printf '  %s\n' "${timings[@]}"
  log "disk: $(du -sh "$cache/build" | cut -f1) build dir, $(du -sh "$cache/gpucheck" | cut -f1) gpu-check's," \
    "$(du -sh "$cache/ccache" | cut -f1) ccache ($cache);" \
    "image $image $("${podman[@]}" images --format '{{.Size}}' "$image" 2>/dev/null | head -1)"
  log "total $(($(now) - t_all))s"
}

container=distbench-libtorch2-$$
cleanup() { "${podman[@]}" rm -f "$container" >/dev/null 2>&1 || true; }
trap 'rc=$?; cleanup; report_timings; exit $rc' EXIT
trap 'cleanup; exit 143' TERM
trap 'cleanup; exit 130' INT

timed "base image (debian:trixie)" "$root/scripts/debian-base-image.sh" trixie

build_env() {
  # Always `podman build`: seconds from the layer cache, and an edited
  # Dockerfile takes effect. No context is needed.
  local ctx
  ctx=$(mktemp -d "${TMPDIR:-/tmp}/distbench-empty.XXXXXX")
  local rc=0
  nice -n 10 "${podman[@]}" build --build-arg BASE_IMAGE=localhost/debian:trixie \
    -f "$root/dockerfiles/build-env.Dockerfile" -t "$image" "$ctx" >"$cache/logs/build-env.log" 2>&1 || rc=$?
  rmdir "$ctx"
  if ((rc != 0)); then
    tail -30 "$cache/logs/build-env.log"
    log "building $image failed (log: $cache/logs/build-env.log)" >&2
    return 1
  fi
  log "$image: $("${podman[@]}" images --format '{{.ID}}, {{.Size}}' "$image" | head -1)"
}
timed "build-env image" build_env

# The container has no network: the bundle comes from here (Debian's
# archive; a second run with the same versions does nothing).
timed "gpu deps bundle (fetch-gpu-deps.sh)" "$root/scripts/fetch-gpu-deps.sh" --out "$cache/gpu-deps"

run_checks() {
  rm -f "$cache/logs/build.log" "$cache/logs/env.txt" "$cache/logs/ctest.log"
  # --network none: the short runs use loopback only.
  nice -n 10 "${podman[@]}" run --rm --name "$container" --network none \
    -v "$root:/src:ro" -v "$cache/build:/build" -v "$cache/gpucheck:/gpucheck" \
    -v "$cache/ccache:/ccache" -v "$cache/logs:/logs" -v "$cache/gpu-deps:/gpu-deps:ro" \
    -e JOBS="$jobs" -e WERROR="$werror" -e GPU_CHECK_ARGS="${DISTBENCH_GPU_CHECK_ARGS:-}" \
    "$image" bash /src/dockerfiles/tests/libtorch2-in-container.sh &
  local pid=$!
  wait "$pid"
}
rc=0
timed "podman run (build, tests, runs)" run_checks || rc=$?
if [[ -f $cache/logs/build.log ]]; then
  write_compile_errors "$cache/logs/build.log" "$errors" \
    "Compile errors and unit-test failures of the worker against LibTorch 2.x: $(cat "$cache/logs/env.txt" 2>/dev/null)" |
    sed 's/^/check-libtorch2: /' || true
  if ! append_test_failures "$cache/logs/ctest.log" "$errors"; then
    log "the failed tests' output is in $errors too"
  fi
fi
report_timings
if ((rc != 0)); then
  log "FAILED (logs: $cache/logs)" >&2
  exit 1
fi
log "passed"

