#!/usr/bin/env bash
# The chart, as a user installs it: helm install with the local operator
# image (pullPolicy Never: no registry), two replicas; one takes the
# leader-election Lease. The fixture every scenario after it needs.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
scenario_start operator-install

on_failure() {
  kubectl -n "$E2E_OPERATOR_NS" get pods -o wide 2>&1
  kubectl -n "$E2E_OPERATOR_NS" describe pods 2>&1 | tail -n 40
  kubectl -n "$E2E_OPERATOR_NS" get events --sort-by=.lastTimestamp 2>&1 | tail -n 20
  kubectl -n "$E2E_OPERATOR_NS" logs -l app.kubernetes.io/instance="$E2E_RELEASE" --tail=60 --prefix 2>&1
}

if helm status "$E2E_RELEASE" -n "$E2E_OPERATOR_NS" >/dev/null 2>&1; then
  helm uninstall "$E2E_RELEASE" -n "$E2E_OPERATOR_NS" --wait --timeout 120s >/dev/null
fi
t0=$(now_ms)
helm install "$E2E_RELEASE" "$e2e_root/charts/distbench-operator" \
  --namespace "$E2E_OPERATOR_NS" --create-namespace \
  --set image.repository="${E2E_OPERATOR_IMAGE%:*}" --set image.tag="$E2E_VERSION" \
  --set image.pullPolicy=Never --set logFormat=text --set progressIntervalSeconds=1 \
  --timeout 120s >/dev/null ||
  { on_failure; die "helm install"; }
log "helm install $E2E_RELEASE done"

lease_holder() { kubectl -n "$E2E_OPERATOR_NS" get lease distbench-operator -o jsonpath='{.spec.holderIdentity}'; }
has_leader() { [[ -n $(lease_holder 2>/dev/null) ]]; }
wait_for 180 "a replica holds the Lease $E2E_OPERATOR_NS/distbench-operator" has_leader
log "leader $(lease_holder) after $((($(now_ms) - t0) / 1000))s"
two_running() {
  [[ $(kubectl -n "$E2E_OPERATOR_NS" get pods -l app.kubernetes.io/instance="$E2E_RELEASE" \
    --field-selector=status.phase=Running -o name | wc -l) -eq 2 ]]
}
wait_for 120 "both operator replicas Running" two_running
check "the CRDs are installed and Established" \
  kubectl wait --for=condition=Established crd/distbenchmarks.distbench.io \
    crd/distbenchmarkschedules.distbench.io --timeout=30s
kubectl -n "$E2E_OPERATOR_NS" get pods -o wide
