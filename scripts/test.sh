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
#   DISTBENCH_E2E        ON / OFF: the cluster end-to-end suite (ctest label
#                        e2e, e2e/README.md): a real single-node Kubernetes on
#                        this machine, as root (its own containerd, kubelet,
#                        iptables rules and mounts, all removed at the end;
#                        kube-scheduler, kubelet and kube-proxy built once);
#                        skipped when not root, except under CI=true, where
#                        that fails. Default: ON under CI=true, else OFF
#                        (docs/testing.md)
#   DISTBENCH_CONTAINER_CHECKS
#                        ON / OFF: the container checks (ctest labels
#                        libtorch2 and cuda-build, dockerfiles/tests): the
#                        worker against LibTorch 2.6 and its CUDA build, in
#                        Debian 13 containers made with debootstrap and podman,
#                        as root (about 13 GB of images and 3 GB downloaded
#                        when cold); skipped when not root, except under
#                        CI=true. Default: ON under CI=true, else OFF (they
#                        check other LibTorch builds than the one you run;
#                        docs/testing.md)
#   CI=true              also builds with -DDISTBENCH_WERROR=ON (warnings
#                        are errors, cmake/Warnings.cmake) and turns the e2e
#                        suite and the container checks on
#
# ctest runs in two passes, each printing its summary: every suite but the
# long ones (-j$DISTBENCH_JOBS), then the long ones side by side (the e2e
# suite's two lanes and the container checks, which wait on the network,
# the node and pods more than they compute). The exit status is non-zero
# when either pass failed.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=${DISTBENCH_BUILD_DIR:-build}
jobs=${DISTBENCH_JOBS:-2}
source "$root/scripts/ccache-env.sh"

scripts/install-deps.sh
containers=OFF
e2e=OFF
if [[ ${CI:-} == true ]]; then
  containers=ON
  e2e=ON
fi
containers=${DISTBENCH_CONTAINER_CHECKS:-$containers}
e2e=${DISTBENCH_E2E:-$e2e}
# The e2e node's binaries come from the same Go build as the API server's.
if [[ $e2e != OFF ]]; then
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
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDISTBENCH_E2E="$e2e" \
  -DDISTBENCH_CONTAINER_CHECKS="$containers" \
  -DDISTBENCH_BUILD_TESTS=ON -DDISTBENCH_OPERATOR=ON -DDISTBENCH_REPORT_HTML=ON "${werror[@]}"
cmake --build "$build" -j"$jobs"

long='^(e2e|libtorch2|cuda-build)$'
rc=0
echo "test.sh: ctest, pass 1 of 2: every suite but the e2e suite and the container checks"
ctest --test-dir "$build" --output-on-failure --no-tests=error -j"$jobs" --timeout 600 -LE "$long" || rc=1
if [[ $e2e != OFF || $containers != OFF ]]; then
  # Four at once: the e2e suite's two lanes, the LibTorch 2.6 check and the
  # CUDA build's downloads (e2e/CMakeLists.txt, dockerfiles/tests/CMakeLists.txt).
  echo "test.sh: ctest, pass 2 of 2: the e2e suite and the container checks, side by side"
  ctest --test-dir "$build" --output-on-failure --no-tests=error -j4 --timeout 600 -L "$long" || rc=1
fi
exit "$rc"
