#!/usr/bin/env bash
# One DistBenchmark on a real single-node cluster, by hand: the e2e suite's
# pieces (e2e/README.md) without ctest. Brings the cluster up
# (cluster-debian.sh), installs the chart (scenarios/00-operator-install.sh),
# runs E2E_EXAMPLE to Succeeded and prints status.results, then tears the
# cluster down unless E2E_KEEP=1.
#
#   sudo E2E_BIN=build/bin e2e/run-kind-free.sh
#
#   E2E_EXAMPLE  the DistBenchmark (default: examples/small.yaml)
#   E2E_TIMEOUT  seconds to wait for Succeeded (default: 1800)
#   E2E_KEEP     1: leave the cluster up (stop it with e2e/cluster-debian.sh down)
#   and cluster-debian.sh's variables (E2E_STATE, E2E_BIN, E2E_SKIP_IMAGES, ...)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/lib.sh"
E2E_NAME=run-kind-free
require_root

"$here/cluster-debian.sh" up
[[ ${E2E_KEEP:-0} == 1 ]] || trap '"$here/cluster-debian.sh" down' EXIT
"$here/scenarios/00-operator-install.sh"

load_cluster_env
new_namespace distbench-e2e
example=${E2E_EXAMPLE:-examples/small.yaml}
[[ $example == /* ]] || example=$e2e_root/$example
apply_bench "$example"
wait_phase Succeeded "${E2E_TIMEOUT:-1800}"
kubectl -n "$E2E_NS" get dbench "$BENCH"
bench_json | jq '.status.results'
[[ ${E2E_KEEP:-0} != 1 ]] || log "the cluster stays up: KUBECONFIG=$KUBECONFIG; stop it with $here/cluster-debian.sh down"
