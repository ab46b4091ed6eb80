#!/usr/bin/env bash
# Debian's Prometheus on the host, its targets discovered through this
# cluster's API (pods, with the cluster's CA and a token; see discover()
# below for why not kubernetes_sd_configs), scraping every benchmark pod's `metrics` port and the operator's
# `http` port at their pod IPs on the bridge. A HybridDDPRPC, a Collectives
# and a DDP run (each kind feeds different panels), then every expression of
# the shipped Grafana dashboard is evaluated through /api/v1/query_range over
# each run's window, as Grafana draws its panels: each must parse, and every
# worker and operator panel must return data (e2e/dashboard_queries.py).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
scenario_start prometheus-dashboard
command -v prometheus >/dev/null || die "no prometheus (scripts/install-e2e-deps.sh installs Debian's)"
new_namespace e2e-prometheus

dir=$E2E_STATE/prometheus
rm -rf "$dir"
mkdir -p "$dir/data"
# Debian's prometheus is built without Kubernetes service discovery
# ("field kubernetes_sd_configs not found"), so the same discovery is done
# here: a loop lists pods through the cluster's API (its CA and token, as
# kubernetes_sd_configs role pod would) and writes file_sd target files;
# Prometheus re-reads them within a second. Worker pods: the container port
# named metrics; the operator's: the port named http.
discover() {  # discover LABEL-SELECTOR PORT-NAME OUT
  local json
  json=$("$E2E_KUBECTL" --server="$E2E_API_URL" --certificate-authority="$E2E_CA_FILE" \
    --token="$(cat "$E2E_TOKEN_FILE")" --kubeconfig=/dev/null --request-timeout=5s \
    get pods -A -l "$1" -o json) || return 0
  jq --arg port "$2" '[.items[] | select(.status.podIP != null and .status.phase == "Running")
    | . as $p | .spec.containers[].ports[]? | select(.name == $port)
    | {targets: ["\($p.status.podIP):\(.containerPort)"],
       labels: {namespace: $p.metadata.namespace, pod: $p.metadata.name}}]' <<<"$json" >"$3.tmp" &&
    mv -f "$3.tmp" "$3"
}
echo '[]' >"$dir/workers.json"
echo '[]' >"$dir/operator.json"
( while :; do
    discover distbench.io/benchmark metrics "$dir/workers.json"
    discover "app.kubernetes.io/instance=$E2E_RELEASE" http "$dir/operator.json"
    sleep 1
  done ) </dev/null >/dev/null 2>&1 &
sd_pid=$!
cat >"$dir/prometheus.yml" <<EOT
global: {scrape_interval: 2s, scrape_timeout: 2s}
scrape_configs:
  - job_name: distbench-workers
    file_sd_configs: [{files: ["$dir/workers.json"], refresh_interval: 1s}]
  - job_name: distbench-operator
    file_sd_configs: [{files: ["$dir/operator.json"], refresh_interval: 1s}]
EOT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port
prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
  --web.listen-address="127.0.0.1:$port" --log.level=warn </dev/null >"$dir/prometheus.log" 2>&1 &
prom_pid=$!
trap 'rc=$?; kill "$prom_pid" "$sd_pid" 2>/dev/null || true; wait "$prom_pid" "$sd_pid" 2>/dev/null || true; exit $rc' EXIT
on_failure() {
  dump_bench
  log "--- Prometheus targets"
  curl -s "$url/api/v1/targets" | jq -c '.data.activeTargets[]? | {job: .labels.job, pod: .labels.pod, health, lastError}' 2>&1 | tail -n 30 || true
  log "--- Prometheus log"
  tail -n 20 "$dir/prometheus.log"
}
wait_for 60 "Prometheus ready at $url" curl -sf "$url/-/ready"
operator_up() {
  curl -s "$url/api/v1/query" --data-urlencode 'query=up{job="distbench-operator"} == 1' |
    jq -e '.data.result | length == 2' >/dev/null
}
wait_for 60 "Prometheus scraping both operator replicas" operator_up

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
python3 "$e2e_root/e2e/dashboard_queries.py" "$url" \
  "$e2e_root/charts/distbench-operator/dashboards/distbench.json" "${windows[@]}" ||
  { on_failure; die "dashboard expressions: see above"; }
log "ok: every expression parses and every panel returns data"
kubectl delete namespace "$E2E_NS" --wait=false >/dev/null
