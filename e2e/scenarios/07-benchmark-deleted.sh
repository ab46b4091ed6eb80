#!/usr/bin/env bash
# The DistBenchmark deleted mid-run: every child it owns (pods, the
# <name>-workers and <name>-master Services, the ConfigMap, the
# NetworkPolicy <name>-gang) is gone within a bounded wait, through the
# owner references and the garbage collector. Reports how long it took.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
scenario_start benchmark-deleted
new_namespace e2e-benchmark-deleted

apply_bench "$e2e_root/e2e/specs/hybrid-long.yaml"
wait_phase Running 180
wait_for 60 "4 gang pods Running" all_running 4

children() {  # every object the benchmark's label or its owner reference ties to it
  kubectl -n "$E2E_NS" get pods,services,configmaps,networkpolicies -o json |
    jq -r --arg n "$BENCH" '.items[]
      | select(.metadata.labels["distbench.io/benchmark"] == $n
               or any(.metadata.ownerReferences[]?; .kind == "DistBenchmark" and .name == $n))
      | "\(.kind)/\(.metadata.name)"'
}
before=$(children | sort)
log "children before: $(xargs <<<"$before")"
for want in "Service/$BENCH-workers" "Service/$BENCH-master" "NetworkPolicy/$BENCH-gang" "Pod/$BENCH-master-0"; do
  grep -Fxq "$want" <<<"$before" || { on_failure; die "expected child $want before the deletion"; }
done
grep -q '^ConfigMap/' <<<"$before" || { on_failure; die "expected the benchmark's ConfigMap before the deletion"; }

t0=$(now_ms)
kubectl -n "$E2E_NS" delete distbenchmark "$BENCH" --wait=false >/dev/null
no_children() { [[ -z $(children) ]]; }
if ! wait_until 60 no_children; then
  log "left after 60s: $(children | xargs)"
  on_failure
  die "children of the deleted DistBenchmark still there after 60s"
fi
t1=$(now_ms)
log "MEASURED: DistBenchmark deleted -> every child gone: $(((t1 - t0) / 1000)).$(((t1 - t0) % 1000 / 100))s"
kubectl delete namespace "$E2E_NS" --wait=false >/dev/null
