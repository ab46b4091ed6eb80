#!/usr/bin/env bash
# The tutorial preset (examples/tutorial.yaml, local worker image) applied
# with kubectl under an enforced restricted PodSecurityPolicy
# (manifests/psp.yaml): Running, then Succeeded with status.results, and the
# printer columns in `kubectl get dbench`. Every gang pod must have been
# admitted under `restricted`, never `privileged`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
scenario_start tutorial-psp
new_namespace e2e-tutorial

sa=system:serviceaccount:$E2E_NS:default
check "the namespace's pods may use PSP restricted" \
  kubectl auth can-i use podsecuritypolicy/restricted --as="$sa" -n "$E2E_NS"
check "the namespace's pods may not use PSP privileged" \
  bash -c "! '$E2E_KUBECTL' auth can-i use podsecuritypolicy/privileged --as='$sa' -n '$E2E_NS'"

apply_bench "$e2e_root/examples/tutorial.yaml" \
  '.spec.benchmark.hybridDDPRPC += {epochs: 20, warmupEpochs: 2}'

# A pod the PSP refuses never exists: the operator reports the refusal as a
# condition and an Event (reason CreateFailed), which the dump shows.
wait_phase Running 180
# 1 master, 1 parameter server, 2 trainers.
wait_for 60 "4 gang pods Running" all_running 4
psps=$(pods_of | jq -r '[.items[].metadata.annotations["kubernetes.io/psp"]] | unique | join(",")')
[[ $psps == restricted ]] || { on_failure; die "gang pods admitted under PSP '$psps', expected restricted"; }
log "ok: every gang pod was admitted under PSP restricted"

wait_phase Succeeded 600
results=$(bench_json | jq -c '.status.results')
[[ $results != null && $results != '{}' ]] || { on_failure; die "Succeeded without status.results"; }
log "status.results: $results"

table=$(kubectl -n "$E2E_NS" get dbench "$BENCH")
echo "$table"
header=$(head -n1 <<<"$table")
for column in NAME PHASE TRAINERS PS P50 AGE; do
  grep -qw "$column" <<<"$header" || die "kubectl get dbench lacks column $column: $header"
done
row=$(sed -n 2p <<<"$table")
read -r -a cells <<<"$row"
[[ ${cells[0]} == "$BENCH" && ${cells[1]} == Succeeded && ${cells[2]} == 2 && ${cells[3]} == 1 ]] ||
  die "printer columns: expected '$BENCH Succeeded 2 1 <p50> <age>', got: $row"
[[ -n ${cells[4]} && ${cells[4]} != "<none>" && ${cells[4]} == "$(bench_field .status.results.p50)" ]] ||
  die "p50 column is '${cells[4]}', expected status.results.p50 '$(bench_field .status.results.p50)'"
log "ok: kubectl get dbench shows Phase, Trainers, PS, p50"
kubectl delete namespace "$E2E_NS" --wait=false >/dev/null
