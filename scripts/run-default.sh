#!/usr/bin/env bash
# Runs the default benchmark (the seed: 8 trainers, 8 parameter servers) on
# this machine: installs the Debian packages and the chart libraries that
# `distbench report` embeds if needed, builds only distbench and
# distbench-worker, then `distbench run --preset default`. Extra arguments
# go to `distbench run` (e.g. --report FILE, --metrics-linger 30). The report
# is written to default-report.json in the current directory.
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
"$root/scripts/install-deps.sh" >&2
"$root/scripts/install-chart-libraries.sh" >&2
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$jobs" --target distbench distbench-worker >&2
exec "$build/bin/distbench" run --preset default "$@"
