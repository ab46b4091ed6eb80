#!/usr/bin/env bash
# Debian's Prometheus on the host (e2e/prometheus.sh: targets discovered
# through this cluster's API, every benchmark pod's `metrics` port and the
# operator's `http` port scraped at their pod IPs on the bridge, the chart's
# alerting rules loaded). A HybridDDPRPC, a Collectives and a DDP run (each
# kind feeds different panels), then every expression of the shipped Grafana
# dashboard is evaluated through /api/v1/query_range over each run's window,
# as Grafana draws its panels: each must parse, and every worker and
# operator panel must return data (e2e/dashboard_queries.py). The schedule
# panels must parse too; scenario 16 checks their data.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
source "$e2e_root/e2e/prometheus.sh"
scenario_start prometheus-dashboard
new_namespace e2e-prometheus
on_failure() {
  dump_bench
  dump_prometheus
}
start_prometheus

# Each run's window, from its apply to its Succeeded: the dashboard's time
# range when someone watches that run (see dashboard_queries.py for why
# windows, not instants).
windows=()
run() {  # run FILE [JQ-FILTER]
  local start=$EPOCHREALTIME
  apply_bench "$1" ".spec.runtime.metricsLingerSeconds = 15 | ${2:-.}"
  wait_phase Running 180
  wait_phase Succeeded 300
  windows+=("$start:$EPOCHREALTIME")
}
run "$e2e_root/examples/tutorial.yaml" '.spec.benchmark.hybridDDPRPC += {epochs: 20, warmupEpochs: 2}'
run "$e2e_root/e2e/specs/collectives.yaml"
run "$e2e_root/e2e/specs/ddp.yaml"
log "evaluating the dashboard's expressions over ${windows[*]}"
python3 "$e2e_root/e2e/dashboard_queries.py" --data-optional schedule "$PROM_URL" \
  "$e2e_root/charts/distbench-operator/dashboards/distbench.json" "${windows[@]}" ||
  { on_failure; die "dashboard expressions: see above"; }
log "ok: every expression parses and every worker and operator panel returns data"
kubectl delete namespace "$E2E_NS" --wait=false >/dev/null
