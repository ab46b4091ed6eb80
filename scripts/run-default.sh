#!/usr/bin/env bash
# Runs the default benchmark (the seed: 8 trainers, 8 parameter servers) on
# this machine: installs the Debian packages that building and running need
# if they are missing (scripts/install-deps.sh --run: not the test, Python or
# browser packages, which scripts/test.sh installs), builds only distbench
# and distbench-worker, then `distbench run --preset default`. Extra
# arguments go to `distbench run` (e.g. --report FILE, --metrics-linger 30).
# The report is written to default-report.json in the current directory.
#   DISTBENCH_BUILD_DIR  build directory (default: build, in the repository)
#   DISTBENCH_JOBS       parallel compile jobs (default: 2)
#   CCACHE_DIR           compiler cache (default: ~/.cache/ccache)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${DISTBENCH_BUILD_DIR:-build}
[[ $build == /* ]] || build=$root/$build
jobs=${DISTBENCH_JOBS:-2}
source "$root/scripts/ccache-env.sh"

# Set-up output goes to stderr: stdout carries only what the master prints, so
# `scripts/run-default.sh > results.txt` captures the master's banner and table.
"$root/scripts/install-deps.sh" --run >&2

# A build directory configured here for the first time gets neither the test
# suites nor the operator: their packages are not installed (scripts/test.sh
# turns both on), nor debug info. One configured before keeps its settings.
configure=()
if [[ ! -f $build/CMakeCache.txt ]]; then
  configure=(-DDISTBENCH_BUILD_TESTS=OFF -DDISTBENCH_OPERATOR=OFF)
  # RelWithDebInfo's -O2 (the same code, so the same timings) without -g:
  # debug info nearly doubles the compile of a LibTorch source (19 s against
  # 10 s for worker/src/hybrid/dense_model.cpp), and a run needs none.
  configure+=("-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG")
  # `distbench report`'s HTML page embeds the chart libraries when
  # scripts/install-chart-libraries.sh has cached them (it installs nodejs
  # and npm for that); running needs neither, so without them distbench is
  # built without pages, and `distbench report` says so.
  cache=${DISTBENCH_CHART_LIBRARIES_CACHE:-$HOME/.cache/distbench/chart-libraries}
  lock_hash=$(sha256sum "$root/cli/chart-libraries/package-lock.json" | cut -c1-16)
  if [[ ! -f $cache/$lock_hash/.complete ]]; then
    echo "run-default: chart libraries not cached: building distbench without report pages" \
      "(scripts/install-chart-libraries.sh, then a new build directory, for them)" >&2
    configure+=(-DDISTBENCH_REPORT_HTML=OFF)
  fi
fi
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${configure[@]}" >/dev/null
cmake --build "$build" -j"$jobs" --target distbench distbench-worker >&2
exec "$build/bin/distbench" run --preset default "$@"
