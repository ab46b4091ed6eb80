#!/usr/bin/env bash
# kubectl distbench on the real node, as a user runs it: kubectl-distbench
# on the PATH beside kubectl, `kubectl distbench run -f examples/small.yaml
# --wait` (the example with the local worker image) follows the run, its
# progress bar included, to the master's table, then `kubectl distbench report small` writes the page, which must be
# the page `distbench report` writes from the same report saved at the
# source it names (configmap/small-report); get, list and logs answer.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
scenario_start kubectl-plugin
new_namespace e2e-plugin
[[ -x $E2E_BIN/kubectl-distbench ]] || die "no $E2E_BIN/kubectl-distbench: build the kubectl-distbench target"
export PATH="$E2E_BIN:$(dirname "$E2E_KUBECTL"):$PATH"
work=$(mktemp -d)
on_failure() { dump_bench; ls -la "$work"; }
BENCH=small

kubectl create --dry-run=client -o json -f "$e2e_root/examples/small.yaml" |
  jq --arg image "$E2E_WORKER_IMAGE" 'del(.metadata.namespace) | .spec.runtime = {image: $image, metricsLingerSeconds: 0}' \
    >"$work/small.json"
t0=$(date +%s)
rc=0
"$E2E_KUBECTL" distbench -n "$E2E_NS" run -f "$work/small.json" --wait --timeout 600 \
  >"$work/run.out" 2>"$work/run.err" || rc=$?
log "kubectl distbench run --wait: exit $rc after $(($(date +%s) - t0)) s"
sed 's/^/  | /' "$work/run.out" "$work/run.err"
check "run --wait exits 0 (Succeeded, no baseline)" test "$rc" -eq 0
check "it followed the run: Running" grep -q "Running, gang 0, ranks [0-6]/6 ready" "$work/run.out"
check "it drew the progress of trainer 0's epochs to the end" \
  grep -q "progress \[#*\]  105/105 epochs  100%" "$work/run.out"
check "it ended with the master's own table, from the report" grep -q "Trainer0:  p50:" "$work/run.out"
check "status.progress says every epoch is done" \
  test "$(kubectl -n "$E2E_NS" get dbench small -o jsonpath='{.status.progress.done}/{.status.progress.total} {.status.progress.unit}')" = "105/105 epochs"
check "and where the page is" grep -q "report: kubectl distbench report small" "$work/run.out"

(cd "$work" && "$E2E_KUBECTL" distbench -n "$E2E_NS" report small) || die "kubectl distbench report"
mkdir -p "$work/configmap"
kubectl -n "$E2E_NS" get configmap small-report -o jsonpath='{.data.report\.json}' >"$work/configmap/small-report"
(cd "$work" && "$E2E_BIN/distbench" report configmap/small-report -o local.html 2>/dev/null) ||
  die "distbench report of the saved report"
check "the page from the cluster is the page from the same report locally" cmp "$work/small.html" "$work/local.html"
log "page: $(wc -c <"$work/small.html") bytes, equal"

check "get shows the run" bash -c "'$E2E_KUBECTL' distbench -n $E2E_NS get small | grep -q 'small: Succeeded'"
check "list shows the run" bash -c "'$E2E_KUBECTL' distbench -n $E2E_NS list | grep -q '^small '"
check "logs shows the master's log" bash -c "'$E2E_KUBECTL' distbench -n $E2E_NS logs small --tail 20 | grep -q ."
check "logs of a trainer" bash -c "'$E2E_KUBECTL' distbench -n $E2E_NS logs small --rank trainer2 --tail 5 | grep -q ."
rm -rf "$work"
log "ok: run --wait to the rows, the page equal to the local one, get, list, logs"
kubectl delete namespace "$E2E_NS" --wait=false >/dev/null
