#!/usr/bin/env bash
# The inside of scripts/check-libtorch2.sh, run in the build-env image
# (dockerfiles/build-env.Dockerfile): the checkout read-only at /src, a
# build directory at /build, gpu-check.sh's at /gpucheck and ccache at
# /ccache (all kept between runs), the GPU machine's Debian bundle at
# /gpu-deps, logs to /logs. Configures, builds the worker, the distbench CLI
# and every test executable of worker/tests, runs the worker's unit tests
# with ctest, then one short `distbench run` of each benchmark kind
# (dockerfiles/tests/tiny-*.yaml), then scripts/gpu-check.sh --dry-run
# against the bundle. Prints the time of each step; exits non-zero when one
# failed, naming it (a failed configure or build ends the run at once).
#
#   JOBS          compile and test jobs (default 2)
#   WERROR        ON/OFF: -DDISTBENCH_WERROR (default OFF)
#   CMAKE_ARGS    more configure arguments
#   GPU_CHECK_ARGS  more arguments for scripts/gpu-check.sh --dry-run
set -uo pipefail

jobs=${JOBS:-2}
logs=/logs
mkdir -p "$logs"
steps=()
t_all=$(date +%s)

summary() {
  echo "check-libtorch2: steps (in the container):"
  printf '  %s\n' "${steps[@]}"
  echo "check-libtorch2: container total $(($(date +%s) - t_all))s"
}
# step [--fatal] NAME COMMAND...: runs it and records its time. A failed
# --fatal step (configure, build) ends the run; after any other failure the
# later steps still run, so one run reports every failure; the exit status
# is 1 if any step failed.
failed=()
step() {
  local fatal=0 name t0 rc
  [[ $1 == --fatal ]] && { fatal=1; shift; }
  name=$1
  shift
  echo "=== check-libtorch2: $name"
  t0=$(date +%s)
  "$@"
  rc=$?
  steps+=("$(printf '%-34s %4ss  %s' "$name" "$(($(date +%s) - t0))" "$([[ $rc == 0 ]] && echo ok || echo "FAILED (exit $rc)")")")
  if ((rc != 0)); then
    failed+=("$name")
    if ((fatal)); then
      summary
      echo "check-libtorch2: FAILED at step '$name' (exit $rc); later steps not run" >&2
      exit 1
    fi
  fi
}

echo "$(. /etc/os-release; echo "$PRETTY_NAME"), libtorch-dev $(dpkg-query -W -f='${Version}' libtorch-dev), $(g++ --version | head -1), $(cmake --version | head -1)" >"$logs/env.txt"
echo "check-libtorch2: $(cat "$logs/env.txt")"

configure() {
  # shellcheck disable=SC2086  # CMAKE_ARGS: words
  cmake -S /src -B /build -DCMAKE_BUILD_TYPE=Release \
    -DDISTBENCH_BUILD_TESTS=ON -DDISTBENCH_REPORT_HTML=OFF -DDISTBENCH_E2E=OFF \
    -DDISTBENCH_CUDA=OFF -DDISTBENCH_OPERATOR=OFF -DDISTBENCH_CONTAINER_CHECKS=OFF \
    -DDISTBENCH_WERROR="${WERROR:-OFF}" ${CMAKE_ARGS:-} >"$logs/configure.log" 2>&1
  local rc=$?
  # The configure's own summary lines (CUDA, LibTorch, ...) and, on failure, all of it.
  if ((rc != 0)); then cat "$logs/configure.log"; else grep -E '^-- (distbench|Found Torch|Torch|CUDA|NCCL)' "$logs/configure.log"; fi
  return $rc
}
step --fatal configure configure

# Every executable worker/tests defines (the unit tests, the cluster tests,
# whatever else is added there), so all of worker/ compiles against this
# LibTorch; only the unit tests run (below).
mapfile -t test_targets < <(make -C /build/worker/tests help 2>/dev/null |
  sed -n 's/^\.\.\. \(distbench_[A-Za-z0-9_]*\)$/\1/p')
echo "check-libtorch2: worker test executables: ${test_targets[*]:-none}"
build() {
  ccache -z >/dev/null 2>&1
  # -k: every translation unit that fails, not just the first.
  nice -n 10 cmake --build /build -j"$jobs" --target distbench-worker distbench "${test_targets[@]}" \
    -- -k >"$logs/build.log" 2>&1
  local rc=$?
  ccache --print-stats 2>/dev/null | awk '
    $1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { hits += $2 }
    $1 == "cache_miss" { misses += $2 }
    END { printf "ccache, this build: %d hits, %d misses\n", hits, misses }'
  if ((rc != 0)); then
    grep -E '(error|Error)' "$logs/build.log" | head -80
  fi
  return $rc
}
step --fatal "build (worker, distbench, tests)" build

unit_tests() {
  # Tests of worker/tests but the cluster ones (label cluster: whole
  # benchmarks as processes, minutes; the short runs below stand in for
  # them) and the placeholder of an executable that was not built.
  nice -n 10 ctest --test-dir /build/worker/tests -LE cluster -E '_NOT_BUILT$' \
    --no-tests=error --output-on-failure -j"$jobs" --timeout 300 >"$logs/ctest.log" 2>&1
  local rc=$?
  if ((rc != 0)); then cat "$logs/ctest.log"; else tail -4 "$logs/ctest.log"; fi
  return $rc
}
step "worker unit tests (ctest)" unit_tests

short_run() {
  local kind=$1 spec=/src/dockerfiles/tests/tiny-$1.yaml report=/tmp/runs/$1-report.json rc
  mkdir -p /tmp/runs
  rm -f "$report"
  /build/bin/distbench run "$spec" --report "$report" --timeout 300 \
    >"$logs/run-$kind.out" 2>"$logs/run-$kind.err"
  rc=$?
  if ((rc != 0)); then
    echo "distbench run $spec: exit $rc"
    cat "$logs/run-$kind.out"
    tail -40 "$logs/run-$kind.err"
    return 1
  fi
  if [[ ! -s $report ]]; then
    echo "distbench run $spec: exit 0 but no report at $report"
    tail -40 "$logs/run-$kind.err"
    return 1
  fi
  cat "$logs/run-$kind.out"
  echo "report: $report ($(wc -c <"$report") bytes)"
}
for kind in hybrid ddp collectives; do
  step "distbench run tiny-$kind.yaml" short_run "$kind"
done

# The GPU machine's prepared command, on a CPU (its own configure and build,
# DISTBENCH_CUDA=OFF, Release like ours; its build directory /gpucheck is as
# deep as /build, so ccache serves it what the build above compiled).
gpu_dry_run() {
  local rc
  rm -rf "$logs/gpu-check"
  # shellcheck disable=SC2086
  bash /src/scripts/gpu-check.sh --dry-run --build-dir /gpucheck --deps /gpu-deps \
    --out "$logs/gpu-check" --jobs "$jobs" ${GPU_CHECK_ARGS:-} >"$logs/gpu-check.out" 2>&1
  rc=$?
  if [[ -f $logs/gpu-check/summary.txt ]]; then cat "$logs/gpu-check/summary.txt"; else tail -30 "$logs/gpu-check.out"; fi
  ((rc == 0)) || echo "gpu-check.sh --dry-run: exit $rc; its logs: $logs/gpu-check/logs (on the host: the cache's logs/gpu-check/logs)"
  return $rc
}
step "scripts/gpu-check.sh --dry-run" gpu_dry_run

summary
if ((${#failed[@]})); then
  echo "check-libtorch2: FAILED: $(printf '%s; ' "${failed[@]}" | sed 's/; $//')" >&2
  exit 1
fi
echo "check-libtorch2: passed"
