#!/usr/bin/env bash
# A local run watched as docs/local-prometheus.md says: Debian's prometheus
# with the shipped docs/prometheus/prometheus.yml (only the target file's path
# changed), three `distbench run --prometheus-sd` runs (HybridDDPRPC,
# Collectives, DDP: each kind feeds other panels), then every worker panel's
# PromQL of the shipped dashboard is evaluated through the HTTP API over each
# run's window (e2e/dashboard_queries.py) and must return data; the target
# file must be an empty list once the runs are over.
#   local_prometheus_test.sh BIN_DIR
# Exit 77 (skipped) without prometheus, except under CI=true, where that fails.
set -euo pipefail
bin=$1
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
log() { echo "local-prometheus [$((SECONDS))s]: $*"; }
if ! command -v prometheus >/dev/null; then
  [[ ${CI:-} == true ]] && { log "FAILED: no prometheus (scripts/install-e2e-deps.sh installs Debian's)"; exit 1; }
  log "SKIPPED: no prometheus on PATH"
  exit 77
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/distbench-local-prometheus.XXXXXX")
prom_pid=
cleanup() { [[ -n $prom_pid ]] && kill "$prom_pid" 2>/dev/null && wait "$prom_pid" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT

targets=$dir/targets.json
sed "s|/tmp/distbench-targets.json|$targets|" "$root/docs/prometheus/prometheus.yml" >"$dir/prometheus.yml"
grep -qF "$targets" "$dir/prometheus.yml" || { log "FAILED: the shipped prometheus.yml no longer names /tmp/distbench-targets.json"; exit 1; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port
prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
  --web.listen-address="127.0.0.1:$port" --log.level=warn </dev/null >"$dir/prometheus.log" 2>&1 &
prom_pid=$!
for ((i = 0; i < 120; i++)); do curl -sf "$url/-/ready" >/dev/null && break; sleep 0.5; done
curl -sf "$url/-/ready" >/dev/null || { log "FAILED: Prometheus not ready in 60 s"; cat "$dir/prometheus.log"; exit 1; }

windows=()
run() {  # run ARGS...: one local run, its window recorded
  local start=$EPOCHREALTIME
  if ! "$bin/distbench" run "$@" --prometheus-sd "$targets" --no-report --timeout 300 \
      >"$dir/run.out" 2>"$dir/run.err"; then
    log "FAILED: distbench run $*"; tail -n 30 "$dir/run.err"; exit 1
  fi
  windows+=("$start:$EPOCHREALTIME")
  log "ran $*"
  # Over: the file lists no target, so Prometheus stops scraping the run.
  [[ $(tr -d ' \n' <"$targets") == "[]" ]] || { log "FAILED: $targets after the run: $(cat "$targets")"; exit 1; }
}
spec=$dir/tutorial.yaml
sed 's/^      denseLayers: \[8\]$/      denseLayers: [8]\n      epochs: 20\n      warmupEpochs: 2/' \
  "$root/examples/tutorial.yaml" >"$spec"
grep -q "epochs: 20" "$spec" || { log "FAILED: examples/tutorial.yaml changed shape"; exit 1; }
run "$spec"
run "$root/e2e/specs/collectives.yaml"
run "$root/e2e/specs/ddp.yaml"

python3 "$root/e2e/dashboard_queries.py" --only worker "$url" \
  "$root/charts/distbench-operator/dashboards/distbench.json" "${windows[@]}" ||
  { log "FAILED: see above"; curl -s "$url/api/v1/targets" | jq -c '.data.droppedTargets[]?, .data.activeTargets[]? | {health, lastError, labels}' | tail -n 20; exit 1; }
log "ok: every worker panel returns data from local runs"
