#!/usr/bin/env bash
# spec.runPolicy.ttlSecondsAfterFinished: once the run has Succeeded the
# operator deletes the DistBenchmark itself after that many seconds, not
# before, and its pods go with it (owner references).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
scenario_start ttl-after-finished
new_namespace e2e-ttl-after-finished

ttl=5
apply_bench "$e2e_root/e2e/specs/collectives.yaml" ".spec.runPolicy = {ttlSecondsAfterFinished: $ttl}"
wait_phase Succeeded 180
completed=$(bench_field .status.completionTime)
gone() { ! kubectl -n "$E2E_NS" get distbenchmark "$BENCH" >/dev/null 2>&1; }
wait_for 60 "DistBenchmark $BENCH deleted after its TTL" gone
after=$(($(date +%s) - $(date -d "$completed" +%s)))
log "deleted ${after}s after completionTime $completed (ttlSecondsAfterFinished $ttl)"
# Polled once a second, completionTime in whole seconds: at least ttl - 1.
((after >= ttl - 1)) || die "deleted ${after}s after it finished, before its ${ttl}s TTL"
no_pods_left() { [[ $(pods_of | jq '.items | length') == 0 ]]; }
wait_for 60 "its pods deleted with it" no_pods_left
log "ok: deleted after its TTL, with its pods"
kubectl delete namespace "$E2E_NS" --wait=false >/dev/null
