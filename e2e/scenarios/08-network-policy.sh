#!/usr/bin/env bash
# The gang's NetworkPolicy. Debian 12 packages no CNI plugin that enforces
# NetworkPolicy (no kube-router, Calico, Cilium, Antrea or Weave; the
# bridge plugin ignores policies), so this cluster cannot show a pod outside
# the gang being refused by the master's store port. What it checks instead
# is the object the operator creates, <name>-gang: it selects exactly the
# benchmark's pods, admits every port only from pods of the same benchmark,
# and opens the metrics port (spec.runtime.metricsPort) to any source (the
# chart's networkPolicy.metricsFrom default, empty). On a cluster whose CNI
# enforces policies that object is what blocks the outsider.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
scenario_start network-policy
new_namespace e2e-network-policy

apply_bench "$e2e_root/e2e/specs/hybrid-long.yaml" '.spec.runtime.metricsPort = 9411'
wait_phase Running 180
policy=$(kubectl -n "$E2E_NS" get networkpolicy "$BENCH-gang" -o json) ||
  { on_failure; die "no NetworkPolicy $BENCH-gang"; }
jq '.spec' <<<"$policy"

expect() {  # expect DESCRIPTION JQ-EXPRESSION (on the policy)
  jq -e --arg n "$BENCH" "$2" <<<"$policy" >/dev/null || { on_failure; die "NetworkPolicy $BENCH-gang: $1"; }
  log "ok: $1"
}
expect "selects the benchmark's pods" \
  '.spec.podSelector == {matchLabels: {"distbench.io/benchmark": $n}}'
expect "restricts ingress only" '.spec.policyTypes == ["Ingress"]'
expect "admits the gang's own pods on every port" \
  'any(.spec.ingress[]; .ports == null and .from == [{podSelector: {matchLabels: {"distbench.io/benchmark": $n}}}])'
expect "opens the metrics port 9411 (spec.runtime.metricsPort) to any source" \
  'any(.spec.ingress[]; .from == null and .ports == [{protocol: "TCP", port: 9411}])'
expect "has no other ingress rule" '(.spec.ingress | length) == 2'
expect "is owned by the DistBenchmark" \
  'any(.metadata.ownerReferences[]; .kind == "DistBenchmark" and .name == $n and .controller == true)'

# Its selector picks exactly the gang.
selected=$(kubectl -n "$E2E_NS" get pods -l "distbench.io/benchmark=$BENCH" -o name | sort)
gang=$(kubectl -n "$E2E_NS" get pods -o json |
  jq -r --arg n "$BENCH" '.items[] | select(.metadata.name | startswith($n + "-")) | "pod/\(.metadata.name)"' | sort)
[[ $selected == "$gang" && -n $selected ]] || die "the policy's selector picks '$selected', the gang is '$gang'"
log "ok: the selector picks the gang's $(wc -l <<<"$selected") pods"
log "NOTE: not enforced here (no NetworkPolicy-enforcing CNI in Debian 12); the object is what was checked"
kubectl delete namespace "$E2E_NS" --wait=false >/dev/null
