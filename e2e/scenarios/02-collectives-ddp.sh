#!/usr/bin/env bash
# A Collectives and a DDP benchmark (tiny versions of the presets) through
# the operator, one after the other, each to Succeeded with status.results.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
scenario_start collectives-ddp
new_namespace e2e-collectives-ddp

for spec in collectives ddp; do
  apply_bench "$e2e_root/e2e/specs/$spec.yaml"
  wait_phase Succeeded 420
  results=$(bench_json | jq -c '.status.results')
  [[ $results != null && $results != '{}' ]] || { on_failure; die "$BENCH Succeeded without status.results"; }
  log "$BENCH status.results: $results"
done
kubectl delete namespace "$E2E_NS" --wait=false >/dev/null
