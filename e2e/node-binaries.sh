#!/usr/bin/env bash
# kube-scheduler, kubelet and kube-proxy for the e2e node, with the API
# server and controller-manager: scripts/install-kube-apiserver.sh builds
# all five from Debian's `kubernetes` source in one Go build (the code
# generators once, shared packages once). scripts/test.sh asks for them
# before ctest when the e2e suite is on; here they are only checked, or
# built when e2e/cluster-debian.sh runs on its own. Under a second once
# they answer --version.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
E2E_NAME=node-binaries

DISTBENCH_KUBE_NODE=1 "$e2e_root/scripts/install-kube-apiserver.sh"
