#!/usr/bin/env bash
# A trainer whose memory limit (spec.podTemplates.trainer.resources.limits)
# is far below what the worker needs: the kernel OOM-kills it as LibTorch
# loads. With backoffLimit 0 the run is Failed with reason OOMKilled, and
# the message names the rank and the limit, not only "backoff limit".
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
scenario_start oom-killed
new_namespace e2e-oom-killed

limit=40Mi
apply_bench "$e2e_root/e2e/specs/collectives.yaml" \
  ".spec.runPolicy = {backoffLimit: 0}
   | .spec.podTemplates = {trainer: {resources: {limits: {memory: \"$limit\"}}}}"
wait_phase Failed 120

condition=$(bench_json | jq -c '.status.conditions[] | select(.type == "Failed")')
log "Failed condition: $condition"
jq -e '.status == "True" and .reason == "OOMKilled"' <<<"$condition" >/dev/null ||
  { on_failure; die "condition Failed is not True/OOMKilled: $condition"; }
message=$(jq -r .message <<<"$condition")
grep -Eq "$BENCH-trainer-[0-9].*OOMKilled \(memory limit $limit\)" <<<"$message" ||
  { on_failure; die "the Failed message does not name the trainer and its limit $limit: $message"; }
condition_true BackoffLimitExceeded OOMKilled ||
  { on_failure; die "no condition BackoffLimitExceeded True with reason OOMKilled"; }
log "ok: Failed/OOMKilled naming the trainer and its limit"
kubectl delete namespace "$E2E_NS" --wait=false >/dev/null
