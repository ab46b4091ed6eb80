#!/usr/bin/env bash
# The Fabric kind through the operator on the real node. First with the
# default onePerNode: the scheduler keeps the second rank off the node the
# first holds (required anti-affinity on kubernetes.io/hostname), which is
# what spreads ranks over nodes in a real cluster. Then with onePerNode
# false, so the one node holds every rank: the run Succeeds, every pair is
# measured, status.fabric carries the verdict (the line, pairs measured,
# suspects) and an Event says it, and the report names the node each rank
# ran on (DISTBENCH_NODE_NAME from the downward API).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
scenario_start fabric
new_namespace e2e-fabric

apply_bench "$e2e_root/e2e/specs/fabric.yaml" \
  '.metadata.name = "fabric-spread" | .spec.topology.trainers = 2
   | .spec.benchmark.fabric.onePerNode = true | .spec.runtime.rendezvousTimeoutSeconds = 60'
# Which trainer the scheduler places first is its choice: one of the two waits.
one_unschedulable() {
  pods_of distbench.io/role=trainer | jq -e \
    '[.items[] | .status.conditions[]? | select(.type == "PodScheduled" and .reason == "Unschedulable")
      | .message] | length == 1' >/dev/null
}
wait_for 60 "one of $BENCH's two trainers Unschedulable by the anti-affinity" one_unschedulable
log "scheduler: $(pods_of distbench.io/role=trainer | jq -r '[.items[] | .status.conditions[]?
  | select(.reason == "Unschedulable") | .message][0]')"
kubectl -n "$E2E_NS" delete distbenchmark "$BENCH" --wait=false >/dev/null

apply_bench "$e2e_root/e2e/specs/fabric.yaml"
wait_phase Succeeded 420
fabric=$(bench_json | jq -c '.status.fabric')
log "status.fabric: $fabric"
check "every pair of 4 nodes measured" \
  jq -e '.pairsMeasured == 6 and .pairsTotal == 6' <<<"$fabric"
check "a line to judge by" jq -e '.line.bandwidthBytesPerSecond > 0 and .line.computeFlops > 0' <<<"$fabric"
check "suspects, each with where, interval and evidence" \
  jq -e '.suspects | all(.where != "" and .estimate.low <= .estimate.high and .evidence != "")' <<<"$fabric"
verdict_event() {
  kubectl -n "$E2E_NS" get events --field-selector "involvedObject.name=$BENCH" -o json | jq -e \
    '[.items[] | select(.reason | IN("FabricHealthy", "SuspectNode", "SuspectLink", "SlowCompute",
      "FabricInconclusive"))] | length > 0' >/dev/null
}
wait_for 30 "an Event with the fabric verdict" verdict_event
node=$(kubectl get nodes -o jsonpath='{.items[0].metadata.name}')
report_nodes=$(kubectl -n "$E2E_NS" get configmap "$BENCH-report" -o jsonpath='{.data.report\.json}' |
  jq -c '[.results.fabric.nodes[].node] | unique')
check "the report names node $node for every rank (got $report_nodes)" \
  jq -e --arg n "$node" '. == [$n]' <<<"$report_nodes"
log "ok: Fabric through the operator, verdict in status, nodes named"
kubectl delete namespace "$E2E_NS" --wait=false >/dev/null
