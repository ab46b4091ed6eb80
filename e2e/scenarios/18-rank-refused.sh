#!/usr/bin/env bash
# A rank that refuses the run: the trainers run the real worker given a flag
# it does not know (the worker-refusing image, as an image of another
# version would pass one), and it exits 2, which the worker means as "this
# run cannot be run here, and another gang would be refused the same way".
# With backoffLimit 3 the operator still restarts nothing: the run is Failed
# at once with reason RankRefused, the condition and an Event naming the
# trainer and the worker's own words, and status.restartCount stays 0.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
scenario_start rank-refused
new_namespace e2e-rank-refused

apply_bench "$e2e_root/e2e/specs/collectives.yaml" \
  ".spec.runPolicy = {backoffLimit: 3}
   | .spec.podTemplates = {trainer: {image: \"$E2E_REFUSING_IMAGE\"}}"
wait_phase Failed 180

condition=$(bench_json | jq -c '.status.conditions[] | select(.type == "Failed")')
log "Failed condition: $condition"
jq -e '.status == "True" and .reason == "RankRefused"' <<<"$condition" >/dev/null ||
  { on_failure; die "condition Failed is not True/RankRefused: $condition"; }
message=$(jq -r .message <<<"$condition")
grep -Eq "$BENCH-trainer-[0-9].*exit code 2.*e2e-flag-of-another-version" <<<"$message" ||
  { on_failure; die "the Failed message does not name the trainer, exit code 2 and the worker's words: $message"; }
condition_true RankRefused RankRefused ||
  { on_failure; die "no condition RankRefused True"; }
[[ $(bench_field .status.restartCount) == 0 ]] ||
  { on_failure; die "status.restartCount is '$(bench_field .status.restartCount)': a refused run was restarted"; }
events=$(kubectl -n "$E2E_NS" get events -o json | jq -r --arg n "$BENCH" \
  '.items[] | select(.involvedObject.kind == "DistBenchmark" and .involvedObject.name == $n
     and .reason == "RankRefused") | .message')
[[ -n $events ]] || { on_failure; die "no RankRefused Event on DistBenchmark $BENCH"; }
log "ok: Failed/RankRefused at once, no gang restart: $message"
kubectl delete namespace "$E2E_NS" --wait=false >/dev/null
