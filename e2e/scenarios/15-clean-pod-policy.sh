#!/usr/bin/env bash
# spec.runPolicy.cleanPodPolicy, both ends, side by side in one namespace:
# All deletes every pod of a finished run, the Succeeded ones too, and its
# ConfigMap; None deletes nothing, not even the pods still running when the
# run failed (activeDeadlineSeconds). The All run's clean-up is the sign the
# operator has acted on a finished run; the None run finished before it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
scenario_start clean-pod-policy
new_namespace e2e-clean-pod-policy

apply_bench "$e2e_root/e2e/specs/hybrid-long.yaml" \
  '.metadata.name = "keep" | .spec.runPolicy = {activeDeadlineSeconds: 5, cleanPodPolicy: "None"}
   | .spec.benchmark.hybridDDPRPC.epochs = 30000'  # outlasts the deadline on any node
keep=$BENCH
wait_phase Failed 120
apply_bench "$e2e_root/e2e/specs/collectives.yaml" '.metadata.name = "clean" | .spec.runPolicy = {cleanPodPolicy: "All"}'
clean=$BENCH
wait_phase Succeeded 180

live_pods() {  # live_pods NAME: pods of benchmark NAME not being deleted
  kubectl -n "$E2E_NS" get pods -l "distbench.io/benchmark=$1" -o json |
    jq '[.items[] | select(.metadata.deletionTimestamp == null)] | length'
}
no_live_pods() { [[ $(live_pods "$1") == 0 ]]; }
wait_for 60 "every pod of $clean deleted (cleanPodPolicy All)" no_live_pods "$clean"
config_gone() { ! kubectl -n "$E2E_NS" get configmap "$clean-config" >/dev/null 2>&1; }
wait_for 30 "$clean's ConfigMap deleted (cleanPodPolicy All)" config_gone
log "ok: cleanPodPolicy All: no pod and no ConfigMap of $clean left"

BENCH=$keep
n=$(live_pods "$keep")
[[ $n == 4 ]] || { on_failure; die "cleanPodPolicy None: $n of 4 pods of $keep left, expected all"; }
services=$(kubectl -n "$E2E_NS" get services -l "distbench.io/benchmark=$keep" -o name | wc -l)
((services >= 1)) || { on_failure; die "cleanPodPolicy None: the Services of $keep were deleted"; }
log "ok: cleanPodPolicy None: all 4 pods and $services Service(s) of the failed $keep left"
kubectl delete namespace "$E2E_NS" --wait=false >/dev/null
