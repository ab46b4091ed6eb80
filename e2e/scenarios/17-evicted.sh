#!/usr/bin/env bash
# A trainer that writes past its scratch volume's sizeLimit (the 1 GiB
# emptyDir every gang pod has at /tmp): the kubelet's local-storage check
# evicts the pod (the e2e kubelet totals volume usage every 5 s,
# --volume-stats-agg-period). With backoffLimit 0 the run is Failed with
# reason Evicted, and the message carries the kubelet's own words.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
scenario_start evicted
new_namespace e2e-evicted

apply_bench "$e2e_root/e2e/specs/collectives.yaml" \
  ".spec.runPolicy = {backoffLimit: 0}
   | .spec.podTemplates = {trainer: {image: \"$E2E_FILLER_IMAGE\"}}"
wait_phase Failed 240

condition=$(bench_json | jq -c '.status.conditions[] | select(.type == "Failed")')
log "Failed condition: $condition"
jq -e '.status == "True" and .reason == "Evicted"' <<<"$condition" >/dev/null ||
  { on_failure; die "condition Failed is not True/Evicted: $condition"; }
message=$(jq -r .message <<<"$condition")
grep -Eq "$BENCH-trainer-[0-9].*Evicted.*Usage of EmptyDir volume \"scratch\" exceeds the limit \"1Gi\"" <<<"$message" ||
  { on_failure; die "the Failed message does not name the trainer and the kubelet's reason: $message"; }
condition_true BackoffLimitExceeded Evicted ||
  { on_failure; die "no condition BackoffLimitExceeded True with reason Evicted"; }
log "ok: Failed/Evicted naming the trainer and the kubelet's message"
kubectl delete namespace "$E2E_NS" --wait=false >/dev/null
