#!/usr/bin/env bash
# Builds everything and runs every test: installs the Debian packages if
# needed, builds kube-apiserver for the operator tests if it is not cached
# (scripts/install-kube-apiserver.sh: minutes once, then under a second),
# installs the chart libraries that distbench report embeds if they are not
# cached (scripts/install-chart-libraries.sh: npm ci once, then under a
# second), configures (RelWithDebInfo), builds with ccache, runs ctest.
#   DISTBENCH_BUILD_DIR  build directory (default: build, in the repository)
#   DISTBENCH_JOBS       parallel compile and test jobs (default: 2)
#   CCACHE_DIR           compiler cache (default: ~/.cache/ccache)
#   DISTBENCH_KUBE_CACHE kube-apiserver sources and binaries
#                        (default: ~/.cache/distbench/kube)
#   DISTBENCH_E2E        ON (default) / OFF: the cluster end-to-end suite
#                        (ctest label e2e, e2e/README.md): a real single-node
#                        Kubernetes on this machine, as root; skipped when not
#                        root, except under CI=true, where that fails
#   DISTBENCH_CONTAINER_CHECKS
#                        ON (default) / OFF: the container checks (ctest labels
#                        libtorch2 and cuda-build, dockerfiles/tests): the
#                        worker against LibTorch 2.6 and its CUDA build, in
#                        Debian 13 containers made with debootstrap and podman,
#                        as root; skipped when not root, except under CI=true
#   CI=true              also builds with -DDISTBENCH_WERROR=ON (warnings
#                        are errors, cmake/Warnings.cmake)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=${DISTBENCH_BUILD_DIR:-build}
jobs=${DISTBENCH_JOBS:-2}
source "$root/scripts/ccache-env.sh"

scripts/install-deps.sh
# The e2e node's binaries come from the same Go build as the API server's.
if [[ ${DISTBENCH_E2E:-ON} != OFF ]]; then
  DISTBENCH_KUBE_NODE=1 scripts/install-kube-apiserver.sh
else
  scripts/install-kube-apiserver.sh
fi
scripts/install-helm.sh
scripts/install-chart-libraries.sh
# CI builds with warnings as errors; elsewhere the cache keeps whatever
# DISTBENCH_WERROR a developer chose. The suites, the operator and the report
# pages are turned on explicitly: scripts/run-default.sh configures a new
# build directory without them.
werror=()
[[ ${CI:-} == true ]] && werror=(-DDISTBENCH_WERROR=ON)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDISTBENCH_E2E="${DISTBENCH_E2E:-ON}" \
  -DDISTBENCH_CONTAINER_CHECKS="${DISTBENCH_CONTAINER_CHECKS:-ON}" \
  -DDISTBENCH_BUILD_TESTS=ON -DDISTBENCH_OPERATOR=ON -DDISTBENCH_REPORT_HTML=ON "${werror[@]}"
cmake --build "$build" -j"$jobs"
ctest --test-dir "$build" --output-on-failure --no-tests=error -j"$jobs" --timeout 600
