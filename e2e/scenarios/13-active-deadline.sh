#!/usr/bin/env bash
# spec.runPolicy.activeDeadlineSeconds on a run that would take longer: the
# run is Failed with reason DeadlineExceeded soon after the deadline, and
# (cleanPodPolicy Running, the default) its running pods are deleted.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
scenario_start active-deadline
new_namespace e2e-active-deadline

deadline=10
# Far longer than the deadline however fast the node: hybrid-long's 300
# epochs take about 10 s on an idle 2-core node, and trainers that finish
# by the deadline are Succeeded pods, which cleanPodPolicy Running keeps.
apply_bench "$e2e_root/e2e/specs/hybrid-long.yaml" \
  ".spec.runPolicy = {activeDeadlineSeconds: $deadline} | .spec.benchmark.hybridDDPRPC.epochs = 30000"
wait_phase Failed 120
condition=$(bench_json | jq -c '.status.conditions[] | select(.type == "Failed")')
log "Failed condition: $condition"
jq -e '.status == "True" and .reason == "DeadlineExceeded"' <<<"$condition" >/dev/null ||
  { on_failure; die "condition Failed is not True/DeadlineExceeded: $condition"; }
check "condition DeadlineExceeded is True" condition_true DeadlineExceeded DeadlineExceeded
# Whole seconds: from the first pod's creation (startTime) to the verdict.
took=$(bench_json | jq '(.status.completionTime | fromdate) - (.status.startTime | fromdate)')
log "Failed ${took}s after startTime (activeDeadlineSeconds $deadline)"
((took >= deadline && took <= deadline + 15)) ||
  { on_failure; die "the run failed ${took}s after it started, not soon after its ${deadline}s deadline"; }
no_pods_left() { [[ $(pods_of | jq '.items | length') == 0 ]]; }
wait_for 60 "the running pods deleted (cleanPodPolicy Running)" no_pods_left
log "ok: Failed/DeadlineExceeded after ${took}s; its pods deleted"
kubectl delete namespace "$E2E_NS" --wait=false >/dev/null
