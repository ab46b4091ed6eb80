#!/usr/bin/env bash
# A trainer pod deleted mid-run (as an eviction or a lost node would): the
# operator restarts the whole gang (status.restartCount 1) and the run still
# Succeeds. Reports the time from the deletion to the new gang all Running:
# the goal is 15 s or less (7-8 s measured here); the test fails past 30 s,
# which is what waiting for the kubelet to drop the old pods costs (the
# operator removes them once their containers have exited).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
scenario_start trainer-deleted
new_namespace e2e-trainer-deleted

apply_bench "$e2e_root/e2e/specs/hybrid-long.yaml" '.spec.runPolicy = {backoffLimit: 2}'
wait_phase Running 180
wait_for 60 "4 gang pods Running" all_running 4

victim=$BENCH-trainer-0
t0=$(now_ms)
kubectl -n "$E2E_NS" delete pod "$victim" --wait=false >/dev/null
log "deleted $victim"

gang1_running() {
  pods_of distbench.io/gang=1 | jq -e \
    '[.items[] | select(.metadata.deletionTimestamp == null and .status.phase == "Running")] | length == 4' >/dev/null
}
wait_for 180 "the new gang (distbench.io/gang=1) all Running" gang1_running
t1=$(now_ms)
log "MEASURED: trainer deleted -> new gang all Running: $(((t1 - t0) / 1000)).$(((t1 - t0) % 1000 / 100))s (goal <= 15s)"
(((t1 - t0) <= 30000)) || { on_failure; die "the new gang took over 30 s to be Running"; }
[[ $(bench_field .status.restartCount) == 1 ]] ||
  { on_failure; die "status.restartCount is '$(bench_field .status.restartCount)', expected 1"; }
log "ok: status.restartCount 1"

wait_phase Succeeded 600
[[ $(bench_field .status.restartCount) == 1 ]] ||
  { on_failure; die "status.restartCount ended '$(bench_field .status.restartCount)', expected 1"; }
log "ok: Succeeded after one gang restart"
kubectl delete namespace "$E2E_NS" --wait=false >/dev/null
