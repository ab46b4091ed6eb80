#!/usr/bin/env bash
# Compiles and links the worker's CUDA build, without a GPU:
#
#   scripts/check-cuda-build.sh [--deps-only]
#
# --deps-only: steps 1 and 2 only, the downloads and installs (ctest's
# cuda-build-deps, run beside the LibTorch 2.6 check, whose compiler cache
# step 3 then shares: dockerfiles/tests/CMakeLists.txt).
#
# 1. localhost/debian:trixie (scripts/debian-base-image.sh trixie; one-off);
# 2. dockerfiles/worker-cuda.Dockerfile's `deps` stage with
#    CUDNN=placeholder: Debian 13's CUDA LibTorch 2.6 (libtorch-cuda-dev),
#    nvidia-cuda-toolkit 12.4, libnccl-dev 2.22, and an empty nvidia-cudnn in
#    place of the installer that downloads cuDNN from NVIDIA (one-off: 2.8 GB
#    downloaded, then podman's layer cache);
# 3. its `builder` stage with TESTS=ON: -DDISTBENCH_CUDA=ON, distbench-worker,
#    distbench and the GPU tests (distbench_worker_gpu_tests)
#    compiled and linked (-Wl,--allow-shlib-undefined: libtorch_cuda.so needs
#    libcudnn.so.9, which the placeholder does not have); ccache in a build
#    cache mount;
# 4. from the built image: distbench-worker's NEEDED entries (readelf -d)
#    name libtorch_cuda, and ldd resolves NCCL (libnccl.so.2) and everything
#    else but libcudnn.so.9 (expected: printed); then what the configure said
#    of CUDA and NCCL, and the project sources that use CUDA.
#
# The binaries cannot start here (no cuDNN, no GPU): running CUDA code is for
# a GPU machine (scripts/gpu-check.sh). On a failed build the distinct
# compiler errors (file:line, repository paths) go to
# $DISTBENCH_CUDA_BUILD_ERRORS. Prints each step's time; exits non-zero on any
# failure. ctest runs it as test `cuda-build` (label cuda-build,
# dockerfiles/tests/CMakeLists.txt).
#
#   DISTBENCH_CUDA_BUILD_CACHE   logs (default: ~/.cache/distbench/cuda-build)
#   DISTBENCH_CUDA_BUILD_ERRORS  the compile-error summary
#                                (default: $DISTBENCH_CUDA_BUILD_CACHE/compile-errors.txt)
#   DISTBENCH_LIBTORCH2_CACHE    the LibTorch 2.6 check's cache, whose ccache the
#                                builder stage shares (default:
#                                ~/.cache/distbench/libtorch2): the two compile
#                                the same sources against the same headers
#   DISTBENCH_CUDA_BUILD_IMAGE   the builder image's name
#                                (default: localhost/distbench/worker-cuda-builder:check)
#   DISTBENCH_JOBS               compile jobs (default: 2)
#   PODMAN                       the podman command (default: podman --runtime runc)
#
# Needs root (or sudo) for debootstrap and podman, and about 10 GB of disk
# for the images.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { echo "check-cuda-build: $*"; }
now() { date +%s; }

cache=${DISTBENCH_CUDA_BUILD_CACHE:-$HOME/.cache/distbench/cuda-build}
errors=${DISTBENCH_CUDA_BUILD_ERRORS:-$cache/compile-errors.txt}
image=${DISTBENCH_CUDA_BUILD_IMAGE:-localhost/distbench/worker-cuda-builder:check}
deps_image=${image%:*}-deps:${image##*:}
jobs=${DISTBENCH_JOBS:-2}
dockerfile=$root/dockerfiles/worker-cuda.Dockerfile

deps_only=0
case ${1:-} in
  --deps-only) deps_only=1 ;;
  "") ;;
  *) echo "usage: $0 [--deps-only]" >&2; exit 2 ;;
esac

source "$root/dockerfiles/podman-env.sh"
source "$root/dockerfiles/tests/compile-errors.sh"
source "$root/dockerfiles/tests/check-steps.sh"

mkdir -p "$cache/logs"
# One run at a time per cache (ctest and a developer may both start one).
hold_lock "$cache/lock"

reported=0
report_timings() {
  ((reported == 0)) || return 0
  reported=1
  log "steps:"
  printf '  %s\n' "${timings[@]}"
  log "images: $("${podman[@]}" images --format '{{.Repository}}:{{.Tag}} {{.Size}}' |
    grep -F -e "$deps_image" -e "$image" | tr '\n' ';' | sed 's/;$//; s/;/; /g')"
  log "total $(($(now) - t_all))s"
}
trap 'rc=$?; report_timings; exit $rc' EXIT

# The compiler cache of scripts/check-libtorch2.sh: Debian 13's CPU and CUDA
# LibTorch 2.6 ship the same headers, the two builds share /src, /build and
# GCC, so whichever check runs second compiles little more than the CUDA
# sources (the builder stage prints its hits and misses).
shared_ccache=${DISTBENCH_LIBTORCH2_CACHE:-$HOME/.cache/distbench/libtorch2}/ccache
mkdir -p "$shared_ccache"
build_args=(
  --build-arg BASE_IMAGE=localhost/debian:trixie
  --build-arg LIBTORCH=debian
  --build-arg CUDNN=placeholder
  --build-arg TESTS=ON
  --build-arg JOBS="$jobs"
)

timed "base image (debian:trixie)" "$root/scripts/debian-base-image.sh" trixie

# The image a target had before this build: removed once a new one replaces
# it, with its untagged intermediate layers, so repeated runs do not pile up
# gigabytes of old build trees.
image_id() { "${podman[@]}" image inspect --format '{{.Id}}' "$1" 2>/dev/null || true; }
drop_old() {
  local old=$1 ref=$2
  [[ -n $old && $old != "$(image_id "$ref")" ]] || return 0
  "${podman[@]}" rmi "$old" >/dev/null 2>&1 || true
}

# What failed builds of the builder stage left: untagged images whose
# ancestry reaches the deps image (this Dockerfile's layers, not anyone
# else's). Removing the newest of such a chain removes its untagged parents.
prune_stale() {
  local deps_id id p n
  deps_id=$(image_id "$deps_image")
  [[ -n $deps_id ]] || return 0
  for id in $("${podman[@]}" images -q --no-trunc --filter dangling=true); do
    p=${id#sha256:}
    for ((n = 0; n < 20; n++)); do
      p=$("${podman[@]}" image inspect --format '{{.Parent}}' "$p" 2>/dev/null) || break
      [[ -n $p ]] || break
      if [[ ${p#sha256:} == "${deps_id#sha256:}" ]]; then
        "${podman[@]}" rmi "${id#sha256:}" >/dev/null 2>&1 || true
        break
      fi
    done
  done
}

deps() {
  local old rc=0
  old=$(image_id "$deps_image")
  nice -n 10 "${podman[@]}" build --target deps "${build_args[@]}" -f "$dockerfile" -t "$deps_image" \
    "$root" >"$cache/logs/deps.log" 2>&1 || rc=$?
  if ((rc != 0)); then
    tail -40 "$cache/logs/deps.log"
    log "the deps stage failed (log: $cache/logs/deps.log)" >&2
    return 1
  fi
  grep -E '^(Need to get|After this operation)' "$cache/logs/deps.log" || log "deps: from podman's layer cache"
  drop_old "$old" "$deps_image"
}
timed "deps stage (apt: CUDA LibTorch, CUDA, NCCL)" deps
if ((deps_only)); then
  report_timings
  log "deps ready"
  exit 0
fi

builder() {
  local old rc=0
  old=$(image_id "$image")
  nice -n 10 "${podman[@]}" build --target builder "${build_args[@]}" \
    --build-arg CCACHE_DIR=/ccache -v "$shared_ccache:/ccache" -f "$dockerfile" -t "$image" \
    "$root" >"$cache/logs/build.log" 2>&1 || rc=$?
  if ((rc != 0)); then
    grep -E "$compile_error_pattern|^Error|CMake Error" "$cache/logs/build.log" | head -60
    tail -15 "$cache/logs/build.log"
    log "the builder stage failed (log: $cache/logs/build.log)" >&2
  fi
  write_compile_errors "$cache/logs/build.log" "$errors" \
    "Compile errors of the CUDA build (dockerfiles/worker-cuda.Dockerfile, Debian 13 libtorch-cuda-dev 2.6, CUDA 12.4, NCCL 2.22)" |
    sed 's/^/check-cuda-build: /' || true
  prune_stale
  ((rc == 0)) || return 1
  drop_old "$old" "$image"
  # What was built, and ccache's figures.
  grep -E '^(building:|ccache, this build:)' "$cache/logs/build.log" | sed 's/^/check-cuda-build: /' || true
}
timed "builder stage (configure, compile, link)" builder

# What distbench-worker links: libtorch_cuda directly, NCCL directly or
# through it; nothing missing but cuDNN.
inspect() {
  "${podman[@]}" run --rm --network none "$image" bash -c '
    set -u
    bin=/build/bin/distbench-worker
    fail=0
    echo "--- readelf -d $bin (NEEDED)"
    readelf -d "$bin" | sed -n "s/.*(NEEDED).*\[\(.*\)\]/  \1/p"
    echo "--- ldd $bin (CUDA, NCCL, LibTorch and what is not found)"
    ldd "$bin" | grep -E "torch|c10|cuda|cudart|nccl|cudnn|cublas|not found" | sed "s/^[[:space:]]*/  /"
    if readelf -d "$bin" | grep -q "NEEDED.*\[libtorch_cuda\.so"; then
      echo "ok: distbench-worker links libtorch_cuda.so"
    else
      echo "FAILED: distbench-worker does not link libtorch_cuda.so"; fail=1
    fi
    if readelf -d "$bin" | grep -q "NEEDED.*\[libnccl\.so"; then
      echo "ok: distbench-worker links libnccl directly"
    elif ldd "$bin" | grep -q "libnccl\.so.* => /"; then
      echo "ok: distbench-worker links libnccl through LibTorch (not NEEDED by distbench-worker itself)"
    else
      echo "FAILED: no libnccl in distbench-worker'"'"'s libraries"; fail=1
    fi
    missing=$(ldd "$bin" | sed -n "s/^[[:space:]]*\([^ ]*\) => not found/\1/p" | sort -u)
    if [ "$missing" = libcudnn.so.9 ]; then
      echo "expected: libcudnn.so.9 not found (CUDNN=placeholder; the binary cannot start here)"
    elif [ -n "$missing" ]; then
      echo "FAILED: not found: $missing"; fail=1
    fi
    echo "--- the other binaries built"
    ls /build/bin | sed "s/^/  /"
    exit $fail
  '
}
timed "link check (readelf, ldd)" inspect

sources() {
  log "what the configure said of CUDA and NCCL (/build/configure.log):"
  "${podman[@]}" run --rm --network none "$image" \
    grep -iE 'cuda|nccl|cudnn|distbench' /build/configure.log | sed 's/^/  /' || true
  log "project sources that use CUDA (CUDA/NCCL includes or DISTBENCH_CUDA guards; .cu files):"
  (cd "$root" && {
    git ls-files -co --exclude-standard -- '*.cu' '*.cuh'
    git grep --untracked -lE '#include *[<"](c10/cuda|ATen/cuda|cuda_runtime|cuda\.h|nccl\.h|torch/csrc/distributed/c10d/ProcessGroupNCCL)|DISTBENCH_(WITH_|HAS_|USE_)?CUDA' \
      -- api cli process report worker benchmarks ':!*.md' 2>/dev/null
  } | sort -u | sed 's/^/  /')
}
timed "sources built with CUDA" sources

report_timings
log "passed"
