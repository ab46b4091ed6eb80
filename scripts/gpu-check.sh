#!/usr/bin/env bash
# The prepared GPU command: everything a lent GPU machine (15 minutes, start-up
# included; PyTorch, nvcc, cmake and ninja, but no apt and no network) should
# do for distbench, as one script that fits about 8 minutes
# (benchmarks/README.md, "The prepared GPU command").
#
#   scripts/gpu-check.sh [--dry-run] [--out DIR] [--deps DIR] [--build-dir DIR]
#                        [--skip-build] [--only STEPS] [--budget SECONDS]
#                        [--python PY] [--jobs N] [--pack FILE]
#
# Run from the repository root, with .gpu-deps/ (scripts/fetch-gpu-deps.sh)
# beside it. Steps, each timed, logged to OUT/gpu-check.log (and stdout) with
# its full output in OUT/logs/<step>.log, each command under `timeout`:
#   env        nvidia-smi, nvcc, Python and torch (CUDA, cuDNN, NCCL, C++ ABI,
#              device), OS, glibc, libstdc++, compilers, tools, cores:
#              OUT/environment.txt and environment.json
#   deps       unpack .gpu-deps/*.deb (dpkg-deb -x, else ar + tar, else
#              Python) into BUILD/gpu-deps-prefix, make it usable from there
#              (/lib merged into /usr/lib, multiarch headers, absolute
#              symlinks, .pc files), then configure, build and run
#              benchmarks/gpu/deps-probe against it
#   configure  cmake (Ninja, else make): torch's CMake package and the prefix,
#              -DDISTBENCH_CUDA=ON (dry run: OFF), no operator, no HTML report
#   build      distbench-worker and distbench, then the worker's GPU test
#              executable; then check that every bundled header and library
#              came from the prefix, not the system
#   ctest      ctest -L gpu (the dry run reports why they skipped)
#   runs       benchmarks/gpu/*.yaml with `distbench run` (reports in
#              OUT/reports/<spec>-<gpu>.json), the Python baselines beside
#              them (OUT/baselines/), `distbench diff` of the HybridDDPRPC
#              GPU runs against their CPU twins; most useful first, each only
#              if the budget still allows it
#   compare    benchmarks/gpu/compare_gpu.py: distbench against PyTorch from
#              those files, OUT/comparison.txt
# then a summary table (OUT/summary.txt). A failed step is logged and the
# independent steps still run; the exit status is 1 if any step failed (a
# step skipped for the budget is not a failure), 2 for a bad command line.
#
#   --dry-run        a CPU machine without CUDA (this Debian host, or the
#                    LibTorch 2.6 container of scripts/check-libtorch2.sh): the
#                    same steps and specs, with the specs' `# dry-run:` values
#                    (CPU, Gloo, tiny sizes), DISTBENCH_CUDA=OFF, and the
#                    Python baselines on CPU when torch imports
#   --out DIR        default: $OUT when set, else BUILD/gpu-check-out
#   --deps DIR       the bundle (default .gpu-deps)
#   --build-dir DIR  default build-gpucheck
#   --skip-build     no configure or build: BUILD's binaries as they are (the
#                    ctest variant of the dry run uses the ctest build's own)
#   --only STEPS     comma-separated steps or spec names (ddp-resnet50, ...);
#                    env always runs
#   --budget SECONDS the whole run's time (default 480; dry run 3600); a run
#                    that would start with less than its minimum left is
#                    skipped
#   --pack FILE      at the end, OUT as one .tar.gz (the device tool brings
#                    back at most 8 files from its $OUT, two folders deep:
#                    --out /tmp/gpu-check --pack $OUT/gpu-check.tgz)
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO" || exit 2
HELPER=$REPO/benchmarks/gpu/gpu_check.py
SPEC_DIR=$REPO/benchmarks/gpu

MODE=real OUT_DIR=${OUT:-} DEPS=$REPO/.gpu-deps BUILD=""
SKIP_BUILD=0 ONLY="" BUDGET="" PYTHON="" JOBS="" PACK=""
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
while (($#)); do
  case $1 in
    --dry-run) MODE=dry; shift ;;
    --out) OUT_DIR=$2; shift 2 ;;
    --deps) DEPS=$2; shift 2 ;;
    --build-dir) BUILD=$2; shift 2 ;;
    --skip-build) SKIP_BUILD=1; shift ;;
    --only) ONLY=$2; shift 2 ;;
    --budget) BUDGET=$2; shift 2 ;;
    --python) PYTHON=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --pack) PACK=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "gpu-check: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ -z $BUDGET ]] && BUDGET=$([[ $MODE == dry ]] && echo 3600 || echo 480)
[[ $BUDGET =~ ^[0-9]+$ ]] || { echo "gpu-check: --budget needs seconds" >&2; exit 2; }
if [[ -z $BUILD ]]; then
  # A read-only checkout (check-libtorch2.sh mounts it so) builds in /tmp.
  if [[ -w $REPO ]]; then BUILD=$REPO/build-gpucheck; else BUILD=${TMPDIR:-/tmp}/distbench-gpucheck; fi
fi
mkdir -p "$BUILD" || exit 2
BUILD=$(cd "$BUILD" && pwd)
OUT_DIR=${OUT_DIR:-$BUILD/gpu-check-out}
mkdir -p "$OUT_DIR"/{logs,reports,baselines,specs} || exit 2
OUT_DIR=$(cd "$OUT_DIR" && pwd)
[[ -d $DEPS ]] && DEPS=$(cd "$DEPS" && pwd)
# Without the bundle the real run cannot build; the dry run says so and
# builds against the machine's own packages.
HAVE_BUNDLE=0
[[ -f $DEPS/MANIFEST ]] && HAVE_BUNDLE=1
PREFIX=$BUILD/gpu-deps-prefix
LOG=$OUT_DIR/gpu-check.log
: >"$LOG"
[[ -z $JOBS ]] && JOBS=$(nproc 2>/dev/null || echo 4)
# Steps less than this close to the budget's end are skipped (the summary
# still gets written).
RESERVE=10
# Real-mode step limits, seconds; the dry run (2 shared cores) gets SCALE
# times more.
SCALE=$([[ $MODE == dry ]] && echo 6 || echo 1)

exec 4>&1  # the terminal, for say() inside steps whose output goes to a log
T0=$(date +%s)
DEADLINE=$((T0 + BUDGET))
now() { date +%s; }
say() { echo "$*"; echo "   $*" | tee -a "$LOG" >&4; }
log() { echo "[$(date +%H:%M:%S) +$(($(now) - T0))s] $*" | tee -a "$LOG" >&4; }

# The Python for the helper and the baselines: one that imports torch if
# there is one (Debian's /usr/bin/python3 first on this host).
torch_python() {
  local c
  for c in "$@"; do
    command -v "$c" >/dev/null 2>&1 && "$c" -c 'import torch' >/dev/null 2>&1 && { command -v "$c"; return 0; }
  done
  return 1
}
HAVE_TORCH_PY=1
if [[ -z $PYTHON ]]; then
  PYTHON=$(torch_python python3 /usr/bin/python3 python) \
    || { HAVE_TORCH_PY=0; PYTHON=$(command -v python3 || command -v python || true); }
elif ! "$PYTHON" -c 'import torch' >/dev/null 2>&1; then
  HAVE_TORCH_PY=0
fi
[[ -n $PYTHON ]] || { echo "gpu-check: no python3" >&2; exit 2; }

# --------------------------------------------------------------------------
# Steps: limits, budget, logs, the summary
# --------------------------------------------------------------------------
declare -A STATUS=()
SUM=()  # "name|status|seconds|path"
STEP_DEADLINE=$DEADLINE
FAILED=0

selected() {  # step [spec]
  [[ -z $ONLY ]] && return 0
  local s
  for s in ${ONLY//,/ }; do
    [[ $s == "$1" || ( -n ${2:-} && $s == "$2" ) ]] && return 0
  done
  return 1
}

# tmo CMD...: CMD under `timeout`, limited to what is left of the step.
tmo() {
  local left=$((STEP_DEADLINE - $(now)))
  ((left > 0)) || { echo "gpu-check: no time left in this step for $1"; return 124; }
  if command -v timeout >/dev/null; then
    timeout -k 10 "$left" "$@"
  else
    "$@"
  fi
}

# No LD_LIBRARY_PATH: the bundle holds Debian 12's libcurl, OpenSSL and zlib,
# which would replace the machine's own under every tool run with it (cmake
# links libcurl). Our binaries find the bundle through their RPATH instead:
# DT_RPATH, not DT_RUNPATH, so that it also serves the libraries' own
# dependencies (libcpprest needs libbrotli*, prometheus-cpp-pull libcivetweb).
LINK_FLAGS=-Wl,--disable-new-dtags
# CMake 4 (a pip-installed cmake) refuses policy versions below 3.5; Debian
# 12's package configs ask for 2.6...3.21, which it accepts, but a bundled
# config that names no upper bound would stop the configure. Older CMake
# ignores the variable.
POLICY_MIN=-DCMAKE_POLICY_VERSION_MINIMUM=3.5

# step NAME LIMIT MINIMUM PATH FN ARGS...: run FN with its output in
# logs/NAME.log, under LIMIT seconds (times SCALE) and the budget; skipped
# when less than MINIMUM seconds are left.
step() {
  local name=$1 limit=$(($2 * SCALE)) minimum=$3 path=$4; shift 4
  local left=$((DEADLINE - $(now) - RESERVE))
  if ((left < minimum)); then
    STATUS[$name]=skipped
    SUM+=("$name|skipped (budget)|0|-")
    log "== $name: skipped, $left s of the budget left (needs $minimum)"
    return 3
  fi
  ((limit > left)) && limit=$left
  STEP_DEADLINE=$(($(now) + limit))
  local steplog=$OUT_DIR/logs/$name.log start rc
  log "== $name (limit ${limit}s)"
  start=$(date +%s.%N)
  "$@" >>"$steplog" 2>&1
  rc=$?
  local secs
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
  if ((rc == 0)); then
    STATUS[$name]=ok
    SUM+=("$name|ok|$secs|$path")
    log "   $name: ok, ${secs}s"
  elif ((rc == 99)); then  # the step decided it had nothing to do here
    STATUS[$name]=skipped
    SUM+=("$name|skipped ($(tail -1 "$steplog"))|$secs|$path")
    log "   $name: skipped ($(tail -1 "$steplog"))"
  else
    STATUS[$name]=failed
    FAILED=1
    local why="exit $rc"
    ((rc == 124 || rc == 137)) && why="timed out after ${limit}s"
    SUM+=("$name|FAILED ($why)|$secs|logs/$name.log")
    log "   $name: FAILED ($why), ${secs}s; the end of logs/$name.log:"
    tail -n 25 "$steplog" | sed 's/^/   | /' | tee -a "$LOG" >&4
  fi
  return $rc
}

ok() { [[ ${STATUS[$1]:-} == ok ]]; }
# needs STEP FILE: STEP succeeded in this run, or did not run in it (--only,
# --skip-build) and left FILE from an earlier one.
needs() {
  ok "$1" && return 0
  [[ -z ${STATUS[$1]:-} && -e $2 ]] && return 0
  echo "needs $1, which $([[ -n ${STATUS[$1]:-} ]] && echo "${STATUS[$1]}" || echo "did not run (no $2)")"
  return 1
}
skip_step() { echo "$*"; return 99; }

# --------------------------------------------------------------------------
# a. environment
# --------------------------------------------------------------------------
do_env() {
  tmo "$PYTHON" "$HELPER" env --out "$OUT_DIR" --mode "$MODE" --deps "$DEPS" | tee -a "$LOG" >&4
  local rc=${PIPESTATUS[0]}
  ((rc == 0)) || return $rc
  # shellcheck disable=SC1091
  source "$OUT_DIR/logs/environment.sh"
  if [[ $MODE == real ]]; then
    [[ $GPU_COUNT -ge 1 ]] || { echo "no GPU visible to torch"; return 1; }
    [[ -n $NVCC ]] || { echo "no nvcc"; return 1; }
  fi
  [[ -z $BUNDLE_PROBLEMS ]] || { echo "the bundle cannot work here: $BUNDLE_PROBLEMS"; return 1; }
}

# --------------------------------------------------------------------------
# b. the Debian bundle
# --------------------------------------------------------------------------
unpack_one() {  # deb dest method
  local deb=$1 dest=$2 method=$3 tmp
  if [[ $method == dpkg ]]; then
    tmo dpkg-deb -x "$deb" "$dest"
    return
  fi
  tmp=$(mktemp -d)
  if command -v ar >/dev/null && (cd "$tmp" && tmo ar x "$deb") && [[ -n $(ls "$tmp"/data.tar.* 2>/dev/null) ]] \
      && tmo tar -xf "$tmp"/data.tar.* -C "$dest" 2>"$tmp/err"; then
    rm -rf "$tmp"
    echo "ar+tar"
    return 0
  fi
  [[ -s $tmp/err ]] && cat "$tmp/err"
  rm -rf "$tmp"
  tmo "$PYTHON" "$HELPER" unpack "$deb" "$dest" && echo "python"
}

do_deps_unpack() {
  [[ -f $DEPS/MANIFEST ]] || { echo "no $DEPS/MANIFEST: run scripts/fetch-gpu-deps.sh first (and carry .gpu-deps)"; return 1; }
  local debs=("$DEPS"/*.deb) method used deb member
  ((${#debs[@]} > 0)) && [[ -f ${debs[0]} ]] || { echo "no .deb files in $DEPS"; return 1; }
  grep -E '^(key|fetched|total-bytes):' "$DEPS/MANIFEST"
  # The GPU machine may have no dpkg: the dry run takes the path it will take.
  if [[ $MODE == dry ]] || ! command -v dpkg-deb >/dev/null; then method="ar"; else method="dpkg"; fi
  rm -rf "$PREFIX" && mkdir -p "$PREFIX"
  declare -A methods=()
  for deb in "${debs[@]}"; do
    used=$(unpack_one "$deb" "$PREFIX" "$method") || { echo "unpacking $deb failed: $used"; return 1; }
    used=${used##*$'\n'}
    methods[${used:-dpkg-deb}]=1
    # The dry run checks the fallback against dpkg-deb's own listing.
    if [[ $method == ar ]] && command -v dpkg-deb >/dev/null; then
      while read -r member; do
        [[ -e $PREFIX/$member || -L $PREFIX/$member ]] || { echo "$(basename "$deb"): $member missing after $used"; return 1; }
      done < <(dpkg-deb --fsys-tarfile "$deb" | tar -t | sed 's|^\./||; /^$/d')
    fi
  done
  say "unpacked ${#debs[@]} packages with ${!methods[*]} into $PREFIX"

  # Usable from here: Debian 12 still ships some libraries in /lib (zlib).
  if [[ -d $PREFIX/lib && ! -L $PREFIX/lib ]]; then
    mkdir -p "$PREFIX/usr/lib"
    cp -a "$PREFIX/lib/." "$PREFIX/usr/lib/" && rm -rf "${PREFIX:?}/lib"
  fi
  ln -sfn usr/lib "$PREFIX/lib"
  # Multiarch headers (openssl/configuration.h, curl/) beside the others: a
  # compiler that is not Debian's does not look in include/x86_64-linux-gnu.
  if [[ -d $PREFIX/usr/include/x86_64-linux-gnu ]]; then
    cp -a "$PREFIX/usr/include/x86_64-linux-gnu/." "$PREFIX/usr/include/"
  fi
  local n=0 link target
  while IFS= read -r link; do
    target=$(readlink "$link")
    if [[ $target == /* ]]; then
      ln -sfn "$PREFIX$target" "$link"
      n=$((n + 1))
    fi
  done < <(find "$PREFIX" -type l)
  find "$PREFIX" -name '*.pc' -exec sed -i "s|^prefix=/usr|prefix=$PREFIX/usr|" {} +
  # PyTorch's wheels ship c10d's ProcessGroupGloo.hpp without the gloo headers
  # it includes: the bundle's (libgloo-dev) stand in there, and only there.
  # Where torch brings its own, or the machine has them (Debian's torch uses
  # the system's gloo), those match the torch being built against, and the
  # prefix's include directory would otherwise come first on the compile
  # line.
  if [[ -d $PREFIX/usr/include/gloo ]]; then
    local torch_inc="" own=""
    [[ -n ${TORCH_CMAKE_PREFIX:-} ]] && torch_inc=${TORCH_CMAKE_PREFIX%/share/cmake}/include
    if [[ -n $torch_inc && -f $torch_inc/gloo/algorithm.h ]]; then
      own="torch's own, in $torch_inc"
    elif printf '#if !__has_include(<gloo/algorithm.h>)\n#error none\n#endif\n' \
        | "${CXX:-c++}" -x c++ -E - >/dev/null 2>&1; then
      own="this machine's own (${CXX:-c++} finds <gloo/algorithm.h>)"
    fi
    if [[ -n $own ]]; then
      rm -rf "${PREFIX:?}/usr/include/gloo"
      say "gloo headers: $own"
    else
      say "gloo headers: the bundle's (libgloo-dev); neither torch${torch_inc:+ ($torch_inc)} nor ${CXX:-c++} has them"
    fi
  fi
  local dangling
  dangling=$(find "$PREFIX" -xtype l | sed "s|^$PREFIX/||" | sort)
  say "absolute symlinks re-pointed into the prefix: $n; $(echo "$dangling" | grep -c . ) dangling (.so links of config-only packages, unused)"
  echo "$dangling"
  say "prefix: $(find "$PREFIX" -type f | wc -l) files, $(du -sh "$PREFIX" | cut -f1)"
}

generator() { command -v ninja >/dev/null && echo Ninja || echo "Unix Makefiles"; }
# Past the first failure, so that one visit to the GPU machine shows every
# file that does not compile there.
keep_going() {
  if [[ -f $BUILD/build.ninja ]]; then echo -- -k 0; else echo -- -k; fi
}

# Configure environment: pkg-config sees only the bundle.
configure_env() {
  if [[ -d $PREFIX/usr/lib/x86_64-linux-gnu/pkgconfig ]]; then
    PKG_CONFIG_LIBDIR=$PREFIX/usr/lib/x86_64-linux-gnu/pkgconfig PKG_CONFIG_PATH='' "$@"
  else
    "$@"
  fi
}

do_deps_probe() {
  needs deps-unpack "$PREFIX/usr/lib/x86_64-linux-gnu/libcpprest.so" || return 1
  local b=$BUILD/deps-probe
  rm -rf "$b"
  configure_env tmo cmake -S "$SPEC_DIR/deps-probe" -B "$b" -G "$(generator)" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PREFIX/usr" \
    -DOPENSSL_ROOT_DIR="$PREFIX/usr" -DZLIB_ROOT="$PREFIX/usr" \
    -DCMAKE_EXE_LINKER_FLAGS="$LINK_FLAGS" "$POLICY_MIN" || return 1
  tmo cmake --build "$b" -j "$JOBS" || return 1
  tmo "$b/deps_probe" || return 1
  "$PYTHON" "$HELPER" check-build --prefix "$PREFIX" --build "$b" "$b/deps_probe" \
    | tee -a "$LOG" >&4
  return "${PIPESTATUS[0]}"
}

# --------------------------------------------------------------------------
# c. configure and build
# --------------------------------------------------------------------------
do_configure() {
  local prefix_path=$PREFIX/usr args=()
  if ok deps-unpack || [[ -f $PREFIX/usr/lib/x86_64-linux-gnu/libcpprest.so ]]; then
    :
  elif [[ $MODE == dry ]] && ((!HAVE_BUNDLE)); then
    say "no bundle: configuring against this machine's packages"
    prefix_path=""
  else
    echo "the bundle is not unpacked"
    return 1
  fi
  if [[ -n ${TORCH_CMAKE_PREFIX:-} && -d $TORCH_CMAKE_PREFIX ]]; then
    prefix_path="$TORCH_CMAKE_PREFIX${prefix_path:+;$prefix_path}"
  fi
  args=(-S "$REPO" -B "$BUILD" -G "$(generator)" -DCMAKE_BUILD_TYPE=Release
        -DCMAKE_PREFIX_PATH="$prefix_path"
        -DDISTBENCH_OPERATOR=OFF -DDISTBENCH_REPORT_HTML=OFF -DDISTBENCH_BUILD_TESTS=ON)
  [[ -n $prefix_path ]] && args+=(-DOPENSSL_ROOT_DIR="$PREFIX/usr" -DZLIB_ROOT="$PREFIX/usr")
  # The pip packages' CUDA libraries, for the linker to resolve what
  # libtorch_cuda.so needs (at run time its own RUNPATH finds them).
  local link=$LINK_FLAGS
  [[ -n ${NVIDIA_LIB_DIRS:-} ]] && link+=" -Wl,-rpath-link,$NVIDIA_LIB_DIRS"
  args+=(-DCMAKE_EXE_LINKER_FLAGS="$link" "$POLICY_MIN")
  if [[ $MODE == dry ]]; then
    args+=(-DDISTBENCH_CUDA=OFF)
  else
    # Python_EXECUTABLE (PYTHON_EXECUTABLE before torch 2.x's FindPython):
    # torch's cuda.cmake hashes libnvrtc with it. USE_SYSTEM_NVTX: where a
    # torch's package still looks for NVTX, the toolkit's nvtx3 headers.
    args+=(-DDISTBENCH_CUDA=ON -DPython_EXECUTABLE="$PYTHON" -DPYTHON_EXECUTABLE="$PYTHON"
           -DUSE_SYSTEM_NVTX=ON)
    [[ -n $NVCC ]] && args+=(-DCMAKE_CUDA_COMPILER="$NVCC" -DCUDAToolkit_ROOT="$CUDA_HOME_DIR"
                             -DCUDA_TOOLKIT_ROOT_DIR="$CUDA_HOME_DIR")
    if [[ -n $CUDA_ARCH ]]; then
      # Only this GPU's architecture: torch's CMake otherwise probes or lists many.
      args+=(-DTORCH_CUDA_ARCH_LIST="$CUDA_ARCH" -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH//./}")
    fi
    [[ -n $NCCL_INCLUDE_DIR ]] && args+=(-DNCCL_INCLUDE_DIR="$NCCL_INCLUDE_DIR" -DNCCL_INCLUDE_DIRS="$NCCL_INCLUDE_DIR")
    [[ -n $NCCL_LIBRARY ]] && args+=(-DNCCL_LIBRARY="$NCCL_LIBRARY" -DNCCL_LIBRARIES="$NCCL_LIBRARY")
    [[ -n $CUDNN_INCLUDE_DIR ]] && args+=(-DCUDNN_INCLUDE_DIR="$CUDNN_INCLUDE_DIR" -DCUDNN_INCLUDE_PATH="$CUDNN_INCLUDE_DIR")
    [[ -n $CUDNN_LIBRARY ]] && args+=(-DCUDNN_LIBRARY="$CUDNN_LIBRARY" -DCUDNN_LIBRARY_PATH="$CUDNN_LIBRARY")
  fi
  echo "cmake ${args[*]}"
  rm -f "$BUILD/CMakeCache.txt"
  # The same hints in the environment, for Find modules that read it.
  NCCL_ROOT=${NCCL_INCLUDE_DIR%/include} NCCL_LIB_DIR=$(dirname "${NCCL_LIBRARY:-/x}") \
  CUDNN_ROOT=${CUDNN_INCLUDE_DIR%/include} \
  CUDA_HOME=${CUDA_HOME_DIR:-${CUDA_HOME:-}} \
    configure_env tmo cmake "${args[@]}"
}

# The test executables that hold `gpu` tests (worker/tests names them so),
# less the ThreadSanitizer build. Only those: on 16 cores the unit and cluster
# test binaries would add a third to the GPU machine's compile time, and
# `ctest -L gpu` leaves their not-built placeholders (unlabelled) alone.
test_targets() {
  cmake --build "$BUILD" --target help 2>/dev/null \
    | grep -oE '(^|[ .:])[A-Za-z0-9_]*gpu[A-Za-z0-9_]*tests?\b' \
    | sed 's/^[ .:]*//' | grep -v tsan | sort -u
}

do_build_binaries() {
  needs configure "$BUILD/CMakeCache.txt" || return 1
  # shellcheck disable=SC2046
  tmo cmake --build "$BUILD" -j "$JOBS" --target distbench-worker distbench $(keep_going) || return 1
  echo "--- ldd distbench-worker"
  ldd "$BUILD/bin/distbench-worker"
  say "torch/CUDA libraries: $(ldd "$BUILD/bin/distbench-worker" | grep -oE 'lib(torch[a-z_]*|c10[a-z_]*|cudart|nccl|cudnn)[^ ]*\.so[.0-9]*' | sort -u | tr '\n' ' ')"
}

do_build_tests() {
  needs configure "$BUILD/CMakeCache.txt" || return 1
  local targets
  mapfile -t targets < <(test_targets)
  ((${#targets[@]})) || { echo "no worker test targets found"; return 1; }
  say "test targets: ${targets[*]}"
  # shellcheck disable=SC2046
  tmo cmake --build "$BUILD" -j "$JOBS" --target "${targets[@]}" $(keep_going)
}

do_provenance() {
  needs build-binaries "$BUILD/bin/distbench-worker" || return 1
  ((HAVE_BUNDLE)) || { skip_step "no bundle to check against"; return; }
  tmo "$PYTHON" "$HELPER" check-build --prefix "$PREFIX" --build "$BUILD" \
    "$BUILD/bin/distbench-worker" "$BUILD/bin/distbench" | tee -a "$LOG" >&4
  return "${PIPESTATUS[0]}"
}

# --------------------------------------------------------------------------
# d. ctest -L gpu
# --------------------------------------------------------------------------
do_ctest() {
  [[ -f $BUILD/CTestTestfile.cmake ]] || { echo "no tests in $BUILD"; return 1; }
  local rc summary
  (cd "$BUILD" && tmo ctest -L gpu -V --output-on-failure --timeout 240) \
    >"$OUT_DIR/logs/ctest-gpu.out" 2>&1
  rc=$?
  tail -n 40 "$OUT_DIR/logs/ctest-gpu.out"
  summary=$("$PYTHON" "$HELPER" ctest-summary "$OUT_DIR/logs/ctest-gpu.out")
  say "$summary"
  ((rc == 0)) || return $rc
  if [[ $MODE == real ]]; then
    grep -q "no tests carry the label" <<<"$summary" && { echo "no tests carry the label gpu"; return 1; }
    # A test for more GPUs than this machine has skips, and says so, as does
    # the one that checks what a machine without a GPU prints; any other
    # skip on a GPU machine is a failure.
    local bad
    bad=$(grep -iE ': skipped' <<<"$summary" \
      | grep -vE 'needs [0-9]+ GPUs, this machine has [0-9]+|\(this machine has a GPU\)' || true)
    [[ -z $bad ]] || { echo "GPU tests skipped on a GPU machine:"; echo "$bad"; return 1; }
  fi
  return 0
}

# --------------------------------------------------------------------------
# e. the measurement runs
# --------------------------------------------------------------------------
# Most useful first: what is left when the budget runs out is the least
# missed. Each: spec, what runs, limit in seconds (real mode).
RUNS=(
  "ddp-resnet50 distbench 120"         "ddp-resnet50 python 120"
  "collectives-nccl-ws1 distbench 150" "collectives-nccl-ws1 python 90"
  "hybrid-tutorial distbench 60"       "hybrid-tutorial-cpu distbench 60"
  "hybrid-tutorial diff 20"
  "collectives-gloo-ws2 distbench 150" "collectives-gloo-ws2 python 90"
  "ddp-resnet101 distbench 120"        "ddp-resnet101 python 120"
  "collectives-gloo-ws4 distbench 180" "collectives-gloo-ws4 python 120"
  "hybrid-default distbench 120"       "hybrid-default-cpu distbench 120"
  "hybrid-default diff 20"
  "ddp-resnext50_32x4d distbench 120"  "ddp-resnext50_32x4d python 120"
)
MIN_RUN=$([[ $MODE == dry ]] && echo 20 || echo 30)

report_of() { echo "$OUT_DIR/reports/$1-$GPU_SLUG.json"; }

do_distbench_run() {  # spec-name limit
  local name=$1 limit=$2 spec=$OUT_DIR/specs/$1.yaml report
  report=$(report_of "$name")
  [[ -x $BUILD/bin/distbench ]] || { echo "no $BUILD/bin/distbench"; return 1; }
  rm -f "$report"
  local logs=$OUT_DIR/logs/$name-$GPU_SLUG.distbench
  local rc
  # distbench's own deadline first, so that it stops its ranks itself.
  tmo "$BUILD/bin/distbench" run "$spec" --report "$report" \
    --timeout "$((limit > 40 ? limit - 15 : limit))" \
    >"$logs.stdout" 2>"$logs.stderr"
  rc=$?
  tail -n 30 "$logs.stdout"
  if ((rc != 0)); then tail -n 30 "$logs.stderr"; return $rc; fi
  "$PYTHON" -c 'import json, sys; d = json.load(open(sys.argv[1])); print("report", sys.argv[1], "schemaVersion", d.get("schemaVersion"), "keys", sorted(d))' "$report"
}

do_python_run() {  # spec-name kind
  local name=$1 spec=$OUT_DIR/specs/$1.yaml kind script args rc
  case $name in ddp-*) kind=ddp script=ddp_baseline.py ;; *) kind=allreduce script=allreduce_baseline.py ;; esac
  ((HAVE_TORCH_PY)) || { skip_step "no Python with torch"; return; }
  mapfile -t args < <("$PYTHON" "$HELPER" baseline-args --kind "$kind" "$spec")
  ((${#args[@]})) || { skip_step "nothing in $name for $script"; return; }
  local json=$OUT_DIR/baselines/$name-python-$GPU_SLUG.json logs=$OUT_DIR/logs/$name-$GPU_SLUG.python
  echo "$PYTHON benchmarks/python/$script ${args[*]} --json $json"
  tmo "$PYTHON" "$REPO/benchmarks/python/$script" "${args[@]}" --json "$json" \
    >"$logs.stdout" 2>"$logs.stderr"
  rc=$?
  tail -n 40 "$logs.stdout"
  ((rc == 0)) || { tail -n 30 "$logs.stderr"; return $rc; }
}

do_diff() {  # topology
  local gpu cpu
  gpu=$(report_of "$1") cpu=$(report_of "$1-cpu")
  [[ -f $gpu && -f $cpu ]] || { skip_step "needs both reports"; return; }
  tmo "$BUILD/bin/distbench" diff "$cpu" "$gpu" | tee "$OUT_DIR/logs/diff-$1-$GPU_SLUG.txt"
  return "${PIPESTATUS[0]}"
}

# distbench against PyTorch from this run's files (benchmarks/gpu/compare_gpu.py).
do_compare() {
  tmo "$PYTHON" "$REPO/benchmarks/gpu/compare_gpu.py" "$OUT_DIR" --gpu "$GPU_SLUG" \
    >"$OUT_DIR/comparison.txt"
  local rc=$?
  cat "$OUT_DIR/comparison.txt"
  return $rc
}

prepare_specs() {
  local specs=("$SPEC_DIR"/*.yaml)
  if [[ $MODE == dry ]]; then
    "$PYTHON" "$HELPER" dry-specs --out "$OUT_DIR/specs" "${specs[@]}"
  else
    cp "${specs[@]}" "$OUT_DIR/specs/"
  fi
}

# --------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------
log "gpu-check ($MODE) in $REPO: out $OUT_DIR, build $BUILD, deps $DEPS, budget ${BUDGET}s, python $PYTHON$([[ $HAVE_TORCH_PY == 0 ]] && echo ' (no torch)')"
log "revision $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$REPO" status --porcelain 2>/dev/null | grep -q . && echo ' + uncommitted changes')"

GPU_SLUG=cpu
step env 180 0 environment.txt do_env
[[ -f $OUT_DIR/logs/environment.sh ]] && source "$OUT_DIR/logs/environment.sh"
prepare_specs >/dev/null || { echo "gpu-check: cannot prepare the specs" >&2; exit 2; }

if selected deps; then
  if ((HAVE_BUNDLE)) || [[ $MODE == real ]]; then
    step deps-unpack 120 15 "$PREFIX" do_deps_unpack
    step deps-probe 240 30 logs/deps-probe.log do_deps_probe
  else
    log "== deps: skipped: no bundle in $DEPS (scripts/fetch-gpu-deps.sh); the dry run builds against this machine's packages"
    SUM+=("deps-unpack|skipped (no $(basename "$DEPS"))|0|scripts/fetch-gpu-deps.sh")
  fi
fi
if ((SKIP_BUILD)); then
  log "== configure, build: skipped (--skip-build); binaries from $BUILD/bin"
  SUM+=("configure/build|skipped (--skip-build)|0|$BUILD/bin")
else
  selected configure && step configure 240 30 "$BUILD" do_configure
  if selected build; then
    step build-binaries 330 60 "$BUILD/bin" do_build_binaries
    step build-tests 300 60 "$BUILD/bin" do_build_tests
    step provenance 60 10 logs/provenance.log do_provenance
  fi
fi
selected ctest && step ctest-gpu 240 20 logs/ctest-gpu.out do_ctest

for entry in "${RUNS[@]}"; do
  read -r name what limit <<<"$entry"
  base=${name%-cpu}
  selected runs "$name" || selected runs "$base" || continue
  limit=$((limit * SCALE))
  case $what in
    distbench) step "run-$name" "$limit" "$MIN_RUN" "reports/$name-$GPU_SLUG.json" do_distbench_run "$name" "$limit" ;;
    python)    step "python-$name" "$limit" "$MIN_RUN" "baselines/$name-python-$GPU_SLUG.json" do_python_run "$name" ;;
    diff)      step "diff-$name" "$limit" 5 "logs/diff-$name-$GPU_SLUG.txt" do_diff "$name" ;;
  esac
done

{ selected runs || selected compare; } && step compare 60 5 comparison.txt do_compare

# --------------------------------------------------------------------------
# f. the summary
# --------------------------------------------------------------------------
{
  echo "gpu-check ($MODE) summary, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(($(now) - T0)) s of a ${BUDGET} s budget"
  echo "gpu: ${GPU_NAME:-none}; torch ${TORCH_VERSION:-?}; out $OUT_DIR"
  printf '%-36s %-30s %8s  %s\n' "step" "status" "seconds" "report / log"
  for row in "${SUM[@]}"; do
    IFS='|' read -r name status secs path <<<"$row"
    printf '%-36s %-30s %8s  %s\n' "$name" "$status" "$secs" "$path"
  done
} >"$OUT_DIR/summary.txt"
tee -a "$LOG" <"$OUT_DIR/summary.txt"
if [[ -n $PACK ]]; then
  tar -czf "$PACK" -C "$(dirname "$OUT_DIR")" "$(basename "$OUT_DIR")" \
    || { echo "gpu-check: cannot pack $OUT_DIR into $PACK" >&2; FAILED=1; }
fi
exit $FAILED
