#!/usr/bin/env bash
# A parameter server whose process exits 1: its pods run the e2e image whose
# distbench-worker exits 1 at once (e2e/images.sh), chosen through the spec's
# own field, spec.podTemplates.parameterServer.image, as a broken image would
# be. With backoffLimit 1 the operator restarts the gang once, then the run
# is Failed with reason BackoffLimitExceeded, and both the condition and an
# Event name the failed rank; the rank's last lines outlive its gang
# (ConfigMap <name>-logs).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
scenario_start ps-fails
new_namespace e2e-ps-fails

apply_bench "$e2e_root/e2e/specs/hybrid-long.yaml" \
  ".spec.runPolicy = {backoffLimit: 1}
   | .spec.podTemplates = {parameterServer: {image: \"$E2E_FAILING_IMAGE\"}}"
wait_phase Failed 300

condition=$(bench_json | jq -c '.status.conditions[] | select(.type == "Failed")')
log "Failed condition: $condition"
jq -e '.status == "True" and .reason == "BackoffLimitExceeded"' <<<"$condition" >/dev/null ||
  { on_failure; die "condition Failed is not True/BackoffLimitExceeded: $condition"; }
# The rank: the pod's name (<name>-ps-0) or the role and index (ps0).
rank_named() { grep -Eq "$BENCH-ps-0|ps-?0|rank 1\b" <<<"$1"; }
rank_named "$(jq -r .message <<<"$condition")" ||
  { on_failure; die "the Failed condition's message does not name the parameter server rank"; }
log "ok: Failed/BackoffLimitExceeded naming the rank"
[[ $(bench_field .status.restartCount) == 1 ]] ||
  { on_failure; die "status.restartCount is '$(bench_field .status.restartCount)', expected 1 (backoffLimit 1)"; }

events=$(kubectl -n "$E2E_NS" get events -o json | jq -r --arg n "$BENCH" \
  '.items[] | select(.involvedObject.kind == "DistBenchmark" and .involvedObject.name == $n
     and .reason == "BackoffLimitExceeded") | .message')
[[ -n $events ]] || { on_failure; die "no BackoffLimitExceeded Event on DistBenchmark $BENCH"; }
rank_named "$events" || { on_failure; die "the BackoffLimitExceeded Event does not name the rank: $events"; }
log "ok: Event BackoffLimitExceeded: $events"

# Gang 0's pods were replaced; the operator kept the failed rank's last lines.
kept=$(kubectl -n "$E2E_NS" get configmap "$BENCH-logs" -o json | jq -r '.data["gang-0.ps0.log"] // ""')
grep -q "exit 1 on purpose" <<<"$kept" ||
  { on_failure; die "ConfigMap $BENCH-logs keeps no gang-0.ps0.log with the rank's last line: '$kept'"; }
[[ -x $E2E_BIN/kubectl-distbench ]] || die "no $E2E_BIN/kubectl-distbench: build the kubectl-distbench target"
shown=$(PATH="$E2E_BIN:$(dirname "$E2E_KUBECTL"):$PATH" "$E2E_KUBECTL" distbench -n "$E2E_NS" \
  logs "$BENCH" --gang 0 --rank ps0) || { on_failure; die "kubectl distbench logs --gang 0"; }
grep -q "ps0 of gang 0, which failed" <<<"$shown" && grep -q "exit 1 on purpose" <<<"$shown" ||
  { on_failure; die "kubectl distbench logs --gang 0 --rank ps0 did not show the kept lines: $shown"; }
log "ok: gang 0's failed rank's log kept in $BENCH-logs and shown by kubectl distbench logs --gang 0"
kubectl delete namespace "$E2E_NS" --wait=false >/dev/null
