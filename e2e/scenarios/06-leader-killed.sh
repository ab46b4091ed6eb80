#!/usr/bin/env bash
# The leading operator replica's process SIGKILLed mid-run (through the
# node's containerd, so it cannot hand its Lease back), and its pod
# force-deleted so the kubelet does not restart it under the same identity:
# another replica takes the Lease distbench-operator once it expires, and
# the benchmark still completes. Reports kill -> new leader and kill -> run
# Succeeded.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
scenario_start leader-killed
new_namespace e2e-leader-killed
# The node's containerd client, as cluster.env gives it (ctr on its socket
# here; `docker exec NODE ctr` for kind).
read -r -a ctr_cmd <<<"$E2E_CTR"
ctr_() { "${ctr_cmd[@]}" "$@"; }

lease_holder() { kubectl -n "$E2E_OPERATOR_NS" get lease distbench-operator -o jsonpath='{.spec.holderIdentity}' 2>/dev/null; }
on_failure() {
  dump_bench
  kubectl -n "$E2E_OPERATOR_NS" get lease distbench-operator -o yaml 2>&1
  kubectl -n "$E2E_OPERATOR_NS" get pods -o wide 2>&1
}

apply_bench "$e2e_root/e2e/specs/hybrid-long.yaml"
wait_phase Running 180
leader=$(lease_holder)
[[ -n $leader ]] || die "no operator replica holds the Lease"
# The leader pod's running application container (not its pause sandbox).
container=""
for c in $(ctr_ containers ls -q \
    "labels.\"io.kubernetes.pod.name\"==$leader,labels.\"io.cri-containerd.kind\"==container"); do
  ctr_ tasks ls | awk -v c="$c" '$1 == c && $3 == "RUNNING" {found = 1} END {exit !found}' && container=$c
done
[[ -n $container ]] || { on_failure; die "no running container of the leader pod $leader in containerd"; }

t0=$(now_ms)
ctr_ tasks kill -s SIGKILL "$container"
kubectl -n "$E2E_OPERATOR_NS" delete pod "$leader" --grace-period=0 --force >/dev/null 2>&1
log "SIGKILLed the leader $leader (container ${container:0:12}) and force-deleted its pod"

new_leader() { local h; h=$(lease_holder); [[ -n $h && $h != "$leader" ]]; }
wait_for 120 "another replica takes the Lease" new_leader
t1=$(now_ms)
log "MEASURED: leader killed -> $(lease_holder) holds the Lease: $(((t1 - t0) / 1000))s"

wait_phase Succeeded 600
t2=$(now_ms)
log "MEASURED: leader killed -> run Succeeded: $(((t2 - t0) / 1000))s"
wait_for 120 "the operator back to two replicas Running" bash -c \
  "[[ \$('$E2E_KUBECTL' -n '$E2E_OPERATOR_NS' get pods -l app.kubernetes.io/instance='$E2E_RELEASE' \
     --field-selector=status.phase=Running -o name | wc -l) -eq 2 ]]"
kubectl delete namespace "$E2E_NS" --wait=false >/dev/null
