#!/usr/bin/env bash
# Was the first GPU visit's "null context when constructing CivetServer" the
# libstdc++ interposition of PyTorch's wheel (benchmarks/results/gpu/README.md)?
# On the GPU machine, after scripts/gpu-check.sh has built BUILD:
#
#   benchmarks/gpu/interposition-probe.sh BUILD OUT_FILE [PYTHON]
#
# For the worker as built (cmake/RuntimeFirst.cmake names libstdc++ first)
# and again with LD_PRELOAD putting torch's libtorch_cpu.so ahead of
# libstdc++ (what the binaries' link order did before the fix), it counts the
# dynamic linker's bindings from civetweb and prometheus-cpp to a torch
# library (LD_DEBUG=bindings, everything bound at start), then starts a short
# CPU run whose ranks serve /metrics through civetweb. Both results go to
# OUT_FILE. The cause is proven if the preloaded run fails as the H200 did
# and the built one does not; ruled out if the preloaded run serves.
set -uo pipefail
BUILD=${1:?BUILD} OUT=${2:?OUT_FILE} PY=${3:-python3}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SPEC=$REPO/benchmarks/gpu/hybrid-tutorial-cpu.yaml
TORCH_LIB=$("$PY" -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))') || exit 1
VICTIM=$TORCH_LIB/libtorch_cpu.so
: >"$OUT"
say() { echo "$*" | tee -a "$OUT"; }
say "torch lib: $TORCH_LIB"
say "std:: functions libtorch_cpu.so exports: $(nm -D --defined-only "$VICTIM" 2>/dev/null | c++filt | grep -c ' std::')"

probe() {  # label, env assignments...
  local label=$1; shift
  local trace; trace=$(mktemp -d)
  env "$@" LD_BIND_NOW=1 LD_DEBUG=bindings LD_DEBUG_OUTPUT="$trace/ld" \
    "$BUILD/bin/distbench-worker" --help >/dev/null 2>&1
  local bound
  bound=$(cat "$trace"/ld.* 2>/dev/null |
    grep -E "binding file [^ ]*(civetweb|prometheus)[^ ]* .* to [^ ]*torch" | wc -l)
  say "[$label] bindings from civetweb/prometheus-cpp to a torch library: $bound"
  cat "$trace"/ld.* 2>/dev/null |
    grep -E "binding file [^ ]*(civetweb|prometheus)[^ ]* .* to [^ ]*torch" |
    sed -E 's/.*symbol `([^'"'"']*).*/\1/' | sort -u | head -8 | c++filt | sed 's/^/    /' | tee -a "$OUT"
  rm -rf "$trace"
  local log=$trace.run
  env "$@" timeout 40 "$BUILD/bin/distbench" run "$SPEC" --timeout 30 --report "$log.json" >"$log" 2>&1
  local rc=$?
  say "[$label] distbench run exit $rc; civetweb lines:"
  grep -iE "civet|cannot serve|null context" "$log" | head -4 | sed 's/^/    /' | tee -a "$OUT"
  tail -n 3 "$log" | sed 's/^/    | /' | tee -a "$OUT"
  rm -f "$log" "$log.json"
}

probe "as built" X_PROBE=1
probe "libtorch_cpu.so preloaded" LD_PRELOAD="$VICTIM"
