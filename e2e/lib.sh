# Sourced by the cluster scripts and every scenario (e2e/README.md): logging,
# deadlines, the cluster's environment, and what to print when a check fails.
# No command here waits without a deadline.

e2e_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
e2e_t0=$(date +%s)
E2E_STATE=${E2E_STATE:-${TMPDIR:-/tmp}/distbench-e2e}
# ctest's SKIP_RETURN_CODE for the e2e tests (e2e/CMakeLists.txt).
E2E_SKIP=77

log() { printf '%s [%4ds]: %s\n' "${E2E_NAME:-e2e}" "$(($(date +%s) - e2e_t0))" "$*"; }
die() { log "FAILED: $*" >&2; exit 1; }

# The suite needs root (containerd, the kubelet, iptables). Elsewhere it is
# skipped with the reason, except under CI (CI=true), where a suite that
# cannot run must fail rather than pass unnoticed.
require_root() {
  [[ $(id -u) -eq 0 ]] && return 0
  if [[ ${CI:-} == true ]]; then
    die "the cluster e2e suite needs root (containerd, kubelet, iptables); CI=true, so this is a failure, not a skip"
  fi
  log "SKIPPED: the cluster e2e suite needs root (containerd, kubelet, iptables)"
  exit "$E2E_SKIP"
}

wait_until() {  # wait_until SECONDS COMMAND...: 0 once COMMAND succeeds, 1 at the deadline
  local deadline=$(($(date +%s) + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    (($(date +%s) < deadline)) || return 1
    sleep 1
  done
}
wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...: dies (after on_failure) at the deadline
  local limit=$1 what=$2
  shift 2
  wait_until "$limit" "$@" && return 0
  declare -F on_failure >/dev/null && on_failure
  die "$what: not within ${limit}s"
}
check() {  # check DESCRIPTION COMMAND...: dies (after on_failure) unless COMMAND succeeds
  local what=$1
  shift
  "$@" >/dev/null 2>&1 && { log "ok: $what"; return 0; }
  declare -F on_failure >/dev/null && on_failure
  die "$what"
}
now_ms() { date +%s%3N; }

# at_exit COMMAND: run COMMAND (eval'd) when the scenario exits, however it
# exits, after the ones registered before it; the exit status is kept.
e2e_exit_hooks=()
at_exit() {
  e2e_exit_hooks+=("$1")
  trap e2e_run_exit_hooks EXIT
}
e2e_run_exit_hooks() {
  local rc=$? hook
  for hook in "${e2e_exit_hooks[@]}"; do eval "$hook" || true; done
  exit "$rc"
}

# The environment cluster-<kind>.sh up wrote: KUBECONFIG, the kubectl and
# helm binaries, image names, the node, the cluster's CA and token.
load_cluster_env() {
  [[ -f $E2E_STATE/cluster.env ]] ||
    die "no cluster: $E2E_STATE/cluster.env is missing (run e2e/cluster-debian.sh up, or the e2e_cluster_up test)"
  # shellcheck disable=SC1091
  source "$E2E_STATE/cluster.env"
  export KUBECONFIG
}
kubectl() { "$E2E_KUBECTL" --request-timeout=30s "$@"; }
helm() {
  HELM_CACHE_HOME=$E2E_STATE/helm/cache HELM_CONFIG_HOME=$E2E_STATE/helm/config \
    HELM_DATA_HOME=$E2E_STATE/helm/data "$E2E_HELM" "$@"
}

E2E_RELEASE=distbench-operator
E2E_OPERATOR_NS=distbench-system

# ---------------------------------------------------------------------------
# Benchmarks. Each scenario runs in its own namespace, made fresh.

new_namespace() {  # new_namespace NS: deleted first if a previous run left it
  if kubectl get namespace "$1" >/dev/null 2>&1; then
    kubectl delete namespace "$1" --timeout=120s >/dev/null || die "namespace $1 left over and not deletable"
  fi
  kubectl create namespace "$1" >/dev/null
  E2E_NS=$1
}

# apply_bench FILE [JQ-FILTER]: the DistBenchmark in FILE with the local
# worker image, no metrics linger (unless the filter sets one), then the
# filter; applied in $E2E_NS with kubectl apply. Sets BENCH to its name.
apply_bench() {
  local file=$1 filter=${2:-.} doc
  # The filter may rename it: BENCH is the name applied.
  doc=$(kubectl create --dry-run=client -o json -f "$file" |
    jq --arg image "$E2E_WORKER_IMAGE" \
      "del(.metadata.namespace)
       | .spec.runtime = ({metricsLingerSeconds: 0} + (.spec.runtime // {}) + {image: \$image})
       | $filter") || die "cannot read $file"
  BENCH=$(jq -r .metadata.name <<<"$doc")
  kubectl apply -n "$E2E_NS" -f - <<<"$doc" >/dev/null || die "kubectl apply $file"
  log "applied DistBenchmark $E2E_NS/$BENCH (from $file)"
}
# The tiny DDP spec as a schedule's template (scenarios 16 and 19): the
# local worker image, no metrics linger (nothing reads the ranks' metrics),
# and a deadline, so a stuck run cannot hold the schedule (Forbid).
tiny_ddp_template() {  # tiny_ddp_template DEADLINE_SECONDS: the spec as JSON
  kubectl create --dry-run=client -o json -f "$e2e_root/e2e/specs/ddp.yaml" |
    jq --arg image "$E2E_WORKER_IMAGE" --argjson deadline "$1" '.spec
      | .runtime = ({metricsLingerSeconds: 0} + (.runtime // {}) + {image: $image})
      | .runPolicy = ((.runPolicy // {}) + {activeDeadlineSeconds: $deadline})' ||
    die "cannot read e2e/specs/ddp.yaml"
}
bench_json() { kubectl -n "$E2E_NS" get distbenchmark "$BENCH" -o json; }
bench_field() { kubectl -n "$E2E_NS" get distbenchmark "$BENCH" -o jsonpath="{$1}" 2>/dev/null; }
phase_is() { [[ $(bench_field .status.phase) == "$1" ]]; }
condition_true() {  # condition_true TYPE [REASON]
  bench_json | jq -e --arg t "$1" --arg r "${2:-}" \
    '.status.conditions[]? | select(.type == $t and .status == "True" and ($r == "" or .reason == $r))' >/dev/null
}
# The gang's pods by role (distbench.io/role label), phase Running.
pods_of() { kubectl -n "$E2E_NS" get pods -l "distbench.io/benchmark=$BENCH${1:+,$1}" -o json; }
all_running() {  # all_running COUNT: COUNT pods of the benchmark, none deleting, all Running
  pods_of | jq -e --argjson n "$1" \
    '[.items[] | select(.metadata.deletionTimestamp == null and .status.phase == "Running")] | length == $n' >/dev/null
}

wait_phase() {  # wait_phase PHASE SECONDS: dies if the run ends in another phase
  local want=$1 limit=$2 deadline=$(($(date +%s) + $2)) phase=""
  while :; do
    phase=$(bench_field .status.phase)
    [[ $phase == "$want" ]] && { log "ok: $BENCH is $want"; return 0; }
    if [[ $phase == Succeeded || $phase == Failed ]]; then
      on_failure
      die "$BENCH ended $phase, expected $want: $(bench_field .status.message)"
    fi
    if (($(date +%s) >= deadline)); then
      on_failure
      die "$BENCH not $want within ${limit}s (phase '${phase:-none}': $(bench_field .status.message))"
    fi
    sleep 1
  done
}

# What a failed scenario prints: the resource, its pods, the namespace's
# events, the operator's log, each pod's log.
dump_bench() {
  [[ -n ${E2E_NS:-} ]] || return 0
  # What says why comes first (CI keeps only part of a long output): the
  # events, then the status without its result rows, then the rest.
  log "--- events"
  kubectl -n "$E2E_NS" get events --sort-by=.lastTimestamp 2>&1 | tail -n 40
  log "--- DistBenchmarks in $E2E_NS (status.results left out)"
  kubectl -n "$E2E_NS" get distbenchmarks -o json 2>&1 |
    jq '.items[] | {name: .metadata.name, spec, status: (.status // {} | del(.results))}' 2>&1 |
    head -n 150
  log "--- pods"
  kubectl -n "$E2E_NS" get pods -o wide -L distbench.io/gang 2>&1
  log "--- operator logs"
  kubectl -n "$E2E_OPERATOR_NS" logs -l app.kubernetes.io/instance="$E2E_RELEASE" --tail=60 --prefix 2>&1
  local pod
  for pod in $(kubectl -n "$E2E_NS" get pods -o name 2>/dev/null); do
    log "--- $pod"
    kubectl -n "$E2E_NS" logs "$pod" --tail=30 2>&1
  done
}
on_failure() { dump_bench; }

# A scenario's preamble: root, the cluster's environment, the API server up.
scenario_start() {
  E2E_NAME=$1
  require_root
  load_cluster_env
  kubectl get --raw /readyz >/dev/null 2>&1 || die "the cluster's API server does not answer (KUBECONFIG=$KUBECONFIG)"
}
