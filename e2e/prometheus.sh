# shellcheck shell=bash
# Sourced by the scenarios that need Prometheus (09, 16), after lib.sh:
# Debian's Prometheus on the host, its targets discovered through this
# cluster's API (pods, with the cluster's CA and a token; see discover() for
# why not kubernetes_sd_configs), scraping every benchmark pod's `metrics`
# port and the operator's `http` port at their pod IPs on the bridge, with
# the chart's alerting rules loaded.
#
#   start_prometheus    sets PROM_URL and PROM_DIR; stopped when the scenario exits
#   prom_query EXPR     the /api/v1/query answer (JSON)
#   alert_firing NAME [JQ-CONDITION]  0 when an alert NAME is firing (and
#                       its labels meet the condition, e.g. '.schedule == "x"')

# Scraped and evaluated every 2 s: tiny runs last seconds, and a rule's
# `for` should be what delays an alert, not the evaluation interval.
PROM_INTERVAL=2s
PROM_RULES=$e2e_root/charts/distbench-operator/rules/distbench-rules.yaml

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

start_prometheus() {
  command -v prometheus >/dev/null || die "no prometheus (scripts/install-e2e-deps.sh installs Debian's)"
  PROM_DIR=$E2E_STATE/prometheus-$E2E_NAME
  rm -rf "$PROM_DIR"
  mkdir -p "$PROM_DIR/data"
  echo '[]' >"$PROM_DIR/workers.json"
  echo '[]' >"$PROM_DIR/operator.json"
  ( while :; do
      discover distbench.io/benchmark metrics "$PROM_DIR/workers.json"
      discover "app.kubernetes.io/instance=$E2E_RELEASE" http "$PROM_DIR/operator.json"
      sleep 1
    done ) </dev/null >/dev/null 2>&1 &
  # shellcheck disable=SC2034 # read by the exit hook below
  prom_sd_pid=$!
  # The operator job honours the scraped labels, as the chart's
  # ServiceMonitor does: the schedule gauges' namespace label is the
  # schedule's, not the operator pod's that discovery adds.
  cat >"$PROM_DIR/prometheus.yml" <<EOT
global: {scrape_interval: $PROM_INTERVAL, scrape_timeout: $PROM_INTERVAL, evaluation_interval: $PROM_INTERVAL}
rule_files: ["$PROM_RULES"]
scrape_configs:
  - job_name: distbench-workers
    file_sd_configs: [{files: ["$PROM_DIR/workers.json"], refresh_interval: 1s}]
  - job_name: distbench-operator
    honor_labels: true
    file_sd_configs: [{files: ["$PROM_DIR/operator.json"], refresh_interval: 1s}]
EOT
  local port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  PROM_URL=http://127.0.0.1:$port
  prometheus --config.file="$PROM_DIR/prometheus.yml" --storage.tsdb.path="$PROM_DIR/data" \
    --web.listen-address="127.0.0.1:$port" --log.level=warn </dev/null >"$PROM_DIR/prometheus.log" 2>&1 &
  # shellcheck disable=SC2034
  prom_pid=$!
  # shellcheck disable=SC2016 # expanded when the scenario exits
  at_exit 'kill "$prom_pid" "$prom_sd_pid" 2>/dev/null; wait "$prom_pid" "$prom_sd_pid" 2>/dev/null'
  wait_for 60 "Prometheus ready at $PROM_URL" curl -sf "$PROM_URL/-/ready"
  # The rules file loaded: a rules file Prometheus refuses leaves no group.
  check "Prometheus loaded the alerting rules of $PROM_RULES" rules_loaded
  wait_for 60 "Prometheus scraping both operator replicas" operator_up
}
# Every alert of the file, by name: a rule Prometheus refuses is missing.
rules_loaded() {
  local want
  want=$(sed -n 's/^ *- alert: *//p' "$PROM_RULES" | jq -Rsc 'split("\n") | map(select(. != "")) | sort')
  curl -s "$PROM_URL/api/v1/rules" |
    jq -e --argjson want "$want" \
      '[.data.groups[].rules[] | select(.type == "alerting") | .name] | sort == $want' >/dev/null
}
operator_up() {
  prom_query 'up{job="distbench-operator"} == 1' | jq -e '.data.result | length == 2' >/dev/null
}
prom_query() { curl -s "$PROM_URL/api/v1/query" --data-urlencode "query=$1"; }
alert_firing() {  # alert_firing NAME [JQ-CONDITION on .labels]
  curl -s "$PROM_URL/api/v1/alerts" | jq -e --arg name "$1" \
    "[.data.alerts[] | select(.state == \"firing\" and .labels.alertname == \$name) | .labels | select(${2:-true})] | length > 0" >/dev/null
}
dump_prometheus() {
  log "--- Prometheus targets"
  curl -s "$PROM_URL/api/v1/targets" | jq -c '.data.activeTargets[]? | {job: .labels.job, pod: .labels.pod, health, lastError}' 2>&1 | tail -n 30 || true
  log "--- Prometheus alerts"
  curl -s "$PROM_URL/api/v1/alerts" | jq -c '.data.alerts[]? | {state, labels, activeAt}' 2>&1 | tail -n 20 || true
  log "--- Prometheus log"
  tail -n 20 "$PROM_DIR/prometheus.log"
}
