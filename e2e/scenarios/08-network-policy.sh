#!/usr/bin/env bash
# The gang's NetworkPolicy, and who is in the gang. Debian 12 packages no CNI plugin that enforces
# NetworkPolicy (no kube-router, Calico, Cilium, Antrea or Weave; the
# bridge plugin ignores policies), so this cluster cannot show a pod outside
# the gang being refused by the master's store port. What it checks instead
# is the object the operator creates, <name>-gang: it selects exactly the
# benchmark's pods, admits every port only from pods of the same benchmark,
# and opens the metrics port (spec.runtime.metricsPort) to any source (the
# chart's networkPolicy.metricsFrom default, empty). On a cluster whose CNI
# enforces policies that object is what blocks the outsider.
#
# A pod of someone else's labelled as the benchmark's master (the pause
# image) is planted beside the run: the master Service's Endpoints must be
# the operator's master pod alone, the headless Service's (kept by the
# node's endpoints controller, from its selector) the gang alone, and the
# impostor must be left running.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
scenario_start network-policy
new_namespace e2e-network-policy

apply_bench "$e2e_root/e2e/specs/hybrid-long.yaml" '.spec.runtime.metricsPort = 9411'
kubectl -n "$E2E_NS" apply -f - >/dev/null <<YAML || die "cannot create the impostor pod"
apiVersion: v1
kind: Pod
metadata:
  name: $BENCH-impostor
  labels: {distbench.io/benchmark: $BENCH, distbench.io/role: master, distbench.io/rank: "0"}
spec:
  automountServiceAccountToken: false
  securityContext: {runAsNonRoot: true, runAsUser: 65532, seccompProfile: {type: RuntimeDefault}}
  containers:
    - name: pause
      image: localhost/distbench/pause:1.0
      imagePullPolicy: Never
      securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
YAML
wait_phase Running 180
uid=$(bench_field .metadata.uid)
policy=$(kubectl -n "$E2E_NS" get networkpolicy "$BENCH-gang" -o json) ||
  { on_failure; die "no NetworkPolicy $BENCH-gang"; }
jq '.spec' <<<"$policy"

expect() {  # expect DESCRIPTION JQ-EXPRESSION (on the policy)
  jq -e --arg n "$BENCH" --arg uid "$uid" "$2" <<<"$policy" >/dev/null || { on_failure; die "NetworkPolicy $BENCH-gang: $1"; }
  log "ok: $1"
}
expect "selects the benchmark's pods of this run" \
  '.spec.podSelector == {matchLabels: {"distbench.io/benchmark": $n, "distbench.io/run": $uid}}'
expect "restricts ingress only" '.spec.policyTypes == ["Ingress"]'
expect "admits the gang's own pods on every port" \
  'any(.spec.ingress[]; .ports == null and .from == [{podSelector: {matchLabels: {"distbench.io/benchmark": $n, "distbench.io/run": $uid}}}])'
expect "opens the metrics port 9411 (spec.runtime.metricsPort) to any source" \
  'any(.spec.ingress[]; .from == null and .ports == [{protocol: "TCP", port: 9411}])'
expect "has no other ingress rule" '(.spec.ingress | length) == 2'
expect "is owned by the DistBenchmark" \
  'any(.metadata.ownerReferences[]; .kind == "DistBenchmark" and .name == $n and .controller == true)'

# Its selector picks exactly the gang.
selected=$(kubectl -n "$E2E_NS" get pods -l "distbench.io/benchmark=$BENCH,distbench.io/run=$uid" -o name | sort)
gang=$(kubectl -n "$E2E_NS" get pods -o json |
  jq -r --arg n "$BENCH" '.items[] | select(.metadata.name | startswith($n + "-"))
    | select(.metadata.name != $n + "-impostor") | "pod/\(.metadata.name)"' | sort)
[[ $selected == "$gang" && -n $selected ]] || die "the policy's selector picks '$selected', the gang is '$gang'"
log "ok: the selector picks the gang's $(wc -l <<<"$selected") pods"

# The master Service's Endpoints: the master pod the operator created, alone.
ip_of() { kubectl -n "$E2E_NS" get pod "$1" -o jsonpath='{.status.podIP}'; }
endpoints_of() {  # endpoints_of SERVICE: its addresses as "ip pod" lines, sorted
  kubectl -n "$E2E_NS" get endpoints "$1" -o json |
    jq -r '[.subsets[]?.addresses[]?, .subsets[]?.notReadyAddresses[]?] | .[] | "\(.ip) \(.targetRef.name)"' | sort
}
impostor_has_ip() { [[ -n $(ip_of "$BENCH-impostor") ]]; }
workers_listed() { [[ $(endpoints_of "$BENCH-workers" | wc -l) -ge $(wc -l <<<"$gang") ]]; }
wait_until 60 impostor_has_ip || { on_failure; die "the impostor pod never got an address"; }
master_ip=$(ip_of "$BENCH-master-0")
[[ $(endpoints_of "$BENCH-master") == "$master_ip $BENCH-master-0" ]] ||
  { on_failure; die "Endpoints $BENCH-master are '$(endpoints_of "$BENCH-master")', not the master pod ($master_ip)"; }
log "ok: the master Service's Endpoints are $BENCH-master-0 ($master_ip) alone, not the impostor ($(ip_of "$BENCH-impostor"))"
# The headless Service's, once the endpoints controller has listed the gang.
wait_until 30 workers_listed ||
  { on_failure; die "Endpoints $BENCH-workers never listed the gang: $(endpoints_of "$BENCH-workers" | xargs)"; }
if endpoints_of "$BENCH-workers" | grep -q " $BENCH-impostor\$"; then
  on_failure; die "the headless Service $BENCH-workers selects the impostor"
fi
log "ok: the headless Service's Endpoints are the gang: $(endpoints_of "$BENCH-workers" | awk '{print $2}' | xargs)"
impostor_running() { [[ $(kubectl -n "$E2E_NS" get pod "$BENCH-impostor" -o jsonpath='{.status.phase}') == Running ]]; }
wait_until 30 impostor_running || { on_failure; die "the impostor pod is not running: the operator touched it?"; }
log "ok: the impostor is left running"
log "NOTE: not enforced here (no NetworkPolicy-enforcing CNI in Debian 12); the object is what was checked"
kubectl delete namespace "$E2E_NS" --wait=false >/dev/null
