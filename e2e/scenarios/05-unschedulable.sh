#!/usr/bin/env bash
# A trainer that no node can take (spec.podTemplates.trainer.nodeSelector
# names a label no node has): the gang never forms, and after
# spec.runtime.rendezvousTimeoutSeconds the run is Failed with reason
# Unschedulable (the cause) and the scheduler's own message; the rule that
# ended it, RendezvousTimeout, is a condition of its own.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
scenario_start unschedulable
new_namespace e2e-unschedulable

apply_bench "$e2e_root/e2e/specs/hybrid-long.yaml" \
  '.spec.runtime.rendezvousTimeoutSeconds = 20
   | .spec.podTemplates = {trainer: {nodeSelector: {"distbench.io/e2e-no-such-node": "true"}}}'
unschedulable() {
  kubectl -n "$E2E_NS" get pod "$BENCH-trainer-0" -o json | jq -e \
    '.status.conditions[]? | select(.type == "PodScheduled" and .reason == "Unschedulable")' >/dev/null
}
wait_for 60 "the scheduler reports $BENCH-trainer-0 Unschedulable" unschedulable
scheduler_message=$(kubectl -n "$E2E_NS" get pod "$BENCH-trainer-0" -o json |
  jq -r '.status.conditions[] | select(.type == "PodScheduled") | .message')
log "scheduler: $scheduler_message"

wait_phase Failed 180
condition=$(bench_json | jq -c '.status.conditions[] | select(.type == "Failed")')
log "Failed condition: $condition"
jq -e '.status == "True" and .reason == "Unschedulable"' <<<"$condition" >/dev/null ||
  { on_failure; die "condition Failed is not True/Unschedulable: $condition"; }
# The scheduler's own words (1.20: "0/1 nodes are available: 1 node(s)
# didn't match Pod's node affinity.") reach the user through the condition
# or status.message.
said=$(jq -r .message <<<"$condition")$'\n'$(bench_field .status.message)
grep -Fq "$scheduler_message" <<<"$said" ||
  { on_failure; die "neither the Failed condition nor status.message carries the scheduler's message '$scheduler_message': $said"; }
log "ok: Failed/Unschedulable with the scheduler's message"
kubectl delete namespace "$E2E_NS" --wait=false >/dev/null
