#!/usr/bin/env bash
# The control plane down for 30 s on the real node (etcd and kube-apiserver
# stopped, then started again on the same ports and data: cluster-debian.sh
# control-plane stop|start), in the middle of a run and across a schedule's
# firing. The ranks talk to each other, not to the API server, so the run
# goes on; the operator loses its watches and its Lease, keeps its process
# (no crash loop: the replicas' restartCount does not move), and once the
# server is back: the run is Succeeded with its report stored, and the
# schedule makes exactly one run for the minute it missed
# (startingDeadlineSeconds 90). Runs after every other scenario: an outage
# would disturb the other lane's.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
scenario_start control-plane-outage
new_namespace e2e-outage
SCHED=outage
cluster_script=$e2e_root/e2e/cluster-debian.sh
[[ -f $E2E_STATE/cmd/kube-apiserver ]] ||
  die "this cluster records no control-plane command lines (cluster-debian.sh up records them)"

operator_restarts() {
  kubectl -n "$E2E_OPERATOR_NS" get pods -o json |
    jq '[.items[].status.containerStatuses[]?.restartCount] | add // 0'
}
sched_json() { kubectl -n "$E2E_NS" get distbenchmarkschedule "$SCHED" -o json; }
runs_for() {  # runs_for TIME: the schedule's runs annotated as scheduled at TIME
  kubectl -n "$E2E_NS" get distbenchmarks -l "distbench.io/schedule=$SCHED" -o json |
    jq --arg t "$1" '[.items[] | select(.metadata.annotations["distbench.io/scheduled-at"] == $t)] | length'
}
on_failure() {
  dump_bench
  sched_json 2>&1 | jq -c '{status}' 2>&1
  kubectl -n "$E2E_NS" get distbenchmarks -o wide 2>&1
  kubectl -n "$E2E_OPERATOR_NS" get pods -o wide 2>&1
}
# However the scenario ends, the control plane is up again and the schedule
# suspended.
# shellcheck disable=SC2016 # expanded when the scenario exits
at_exit '"$cluster_script" control-plane start >/dev/null 2>&1 || true; kubectl -n "$E2E_NS" patch distbenchmarkschedule "$SCHED" --type merge -p "{\"spec\":{\"suspend\":true}}" >/dev/null 2>&1'

# The schedule: the tiny DDP spec every minute (a run takes seconds, so
# Forbid skips nothing here), 90 s to catch up a missed firing.
template=$(tiny_ddp_template 240)
jq -n --arg name "$SCHED" --argjson spec "$template" '{
    apiVersion: "distbench.io/v1alpha1", kind: "DistBenchmarkSchedule",
    metadata: {name: $name},
    spec: {schedule: "* * * * *", concurrencyPolicy: "Forbid", startingDeadlineSeconds: 90,
           template: {spec: $spec}}}' |
  kubectl apply -n "$E2E_NS" -f - >/dev/null || die "kubectl apply DistBenchmarkSchedule $SCHED"

# The run starts early in a minute, so that it is Running when the outage
# begins at second 45 and the next firing falls inside it.
second=$((10#$(date -u +%S)))
((second <= 10)) || sleep $((70 - second))
apply_bench "$e2e_root/e2e/specs/hybrid-long.yaml" '.spec.benchmark.hybridDDPRPC.epochs = 6000'
wait_phase Running 40
restarts_before=$(operator_restarts)
second=$((10#$(date -u +%S)))
((second < 45)) && sleep $((45 - second))
phase_is Running || { on_failure; die "the run is $(bench_field .status.phase) before the outage; it must last longer"; }
missed=$(date -u -d "@$((($(date +%s) / 60 + 1) * 60))" +%Y-%m-%dT%H:%M:%SZ)

t0=$(now_ms)
"$cluster_script" control-plane stop
sleep 30
"$cluster_script" control-plane start
log "the control plane was down $(($(now_ms) - t0)) ms, across the firing at $missed"

wait_phase Succeeded 420
kubectl -n "$E2E_NS" get configmap "$BENCH-report" >/dev/null 2>&1 ||
  { on_failure; die "the run Succeeded but its report $BENCH-report is not stored"; }
log "ok: $BENCH Succeeded, report stored"

caught_up() { (($(runs_for "$missed") >= 1)); }
wait_for 120 "a run of $SCHED for the missed firing at $missed" caught_up
# Once the schedule has moved past the missed minute, nothing more may come
# for it.
past_missed() { [[ $(sched_json | jq -r '.status.lastScheduleTime // ""') > "$missed" ]]; }
wait_for 150 "$SCHED past the firing at $missed" past_missed
count=$(runs_for "$missed")
((count == 1)) || { on_failure; die "$count runs for the firing at $missed, expected exactly 1"; }
log "ok: exactly one run for the missed firing at $missed"

restarts_after=$(operator_restarts)
((restarts_after == restarts_before)) ||
  { on_failure; die "the operator's containers restarted ($restarts_before before the outage, $restarts_after after)"; }
log "ok: the operator rode the outage out in-process (container restarts: $restarts_after)"
kubectl -n "$E2E_NS" patch distbenchmarkschedule "$SCHED" --type merge -p '{"spec":{"suspend":true}}' >/dev/null
kubectl delete namespace "$E2E_NS" --wait=false >/dev/null
