#!/usr/bin/env bash
# End-to-end: a real single-node Kubernetes on this machine, without kind,
# Docker or a registry (e2e/README.md), the distbench images loaded into its
# container runtime, the chart installed, a DistBenchmark run to Succeeded,
# and its status.results printed.
#
#   e2e/run-kind-free.sh
#
# Long-running and system-changing (as root: it starts containerd, a kubelet
# and kube-proxy, which writes iptables rules); not part of ctest or CI. Run
# it on a machine you may change. Everything it starts is stopped, and the
# iptables rules removed, when it exits, unless E2E_KEEP=1.
#
#   E2E_EXAMPLE       the DistBenchmark to run (default: examples/small.yaml)
#   E2E_TIMEOUT       seconds to wait for the benchmark to finish (default: 1800)
#   E2E_NAMESPACE     namespace of the benchmark (default: distbench-e2e)
#   E2E_STATE         working directory: certificates, data, logs
#                     (default: a new directory under ${TMPDIR:-/tmp})
#   E2E_KEEP          1: leave the cluster running at the end (prints how to
#                     use it and how to stop it)
#   E2E_API_PORT      kube-apiserver's port (default: 6443)
#   E2E_POD_CIDR      the node's pod subnet (default: 10.244.0.0/24)
#   E2E_SERVICE_CIDR  Service ClusterIPs (default: 10.96.0.0/24)
#   E2E_SKIP_IMAGES   1: use the images already in podman as they are
#   DISTBENCH_KUBE_CACHE, DISTBENCH_HELM_CACHE, BASE_IMAGE, ...: as for
#                     scripts/install-kube-apiserver.sh, scripts/install-helm.sh
#                     and dockerfiles/build-images.sh
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
start_time=$(date +%s)
log() { printf 'e2e [%4ds]: %s\n' "$(($(date +%s) - start_time))" "$*"; }
die() { log "FAILED: $*" >&2; exit 1; }

[[ $(id -u) -eq 0 ]] || die "run as root: containerd, the kubelet and kube-proxy need it"

example=${E2E_EXAMPLE:-examples/small.yaml}
timeout=${E2E_TIMEOUT:-1800}
bench_ns=${E2E_NAMESPACE:-distbench-e2e}
api_port=${E2E_API_PORT:-6443}
pod_cidr=${E2E_POD_CIDR:-10.244.0.0/24}
service_cidr=${E2E_SERVICE_CIDR:-10.96.0.0/24}
keep=${E2E_KEEP:-0}
release=distbench-operator
operator_ns=distbench-system

version=$(sed -n 's/^project(distbench VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
operator_image=localhost/distbench/operator:$version
worker_image=localhost/distbench/worker:$version
pause_image=localhost/distbench/pause:1.0

kube_cache=${DISTBENCH_KUBE_CACHE:-$HOME/.cache/distbench/kube}
kube_bin=$kube_cache/bin
helm_bin=${DISTBENCH_HELM_CACHE:-$HOME/.cache/distbench/helm}/bin

state=${E2E_STATE:-$(mktemp -d "${TMPDIR:-/tmp}/distbench-e2e.XXXXXX")}
mkdir -p "$state"/{logs,pki,images,cni,containerd,kubelet,etcd}
state=$(cd "$state" && pwd)
sock=$state/containerd/containerd.sock
kubeconfig=$state/admin.kubeconfig
export KUBECONFIG=$kubeconfig
kubectl() { "$helm_bin/kubectl" --cache-dir="$state/kube-cache" "$@"; }
helm() {
  HELM_CACHE_HOME=$state/helm/cache HELM_CONFIG_HOME=$state/helm/config \
    HELM_DATA_HOME=$state/helm/data "$helm_bin/helm" "$@"
}
ctr() { command ctr --address "$sock" -n k8s.io "$@"; }

log "state, certificates and logs in $state"

# ---------------------------------------------------------------------------
# Teardown: every process this script started, by the pid it recorded.

pids=()
names=()
started() { pids+=("$1"); names+=("$2"); }

stop_pid() {
  local pid=$1 name=$2 i
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  log "$name (pid $pid) ignored SIGTERM for 10 s; SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
}

# What the node leaves in the machine's network: kube-proxy's rules (its own
# --cleanup), the chains the kubelet makes (KUBE-FIREWALL is hooked into
# INPUT and OUTPUT and drops non-loopback packets to 127.0.0.0/8), both
# canaries, the CNI bridge and host-local's address leases.
cleanup_network() {
  [[ -x $kube_bin/kube-proxy ]] && "$kube_bin/kube-proxy" --cleanup >/dev/null 2>&1
  local ipt table chain
  for ipt in iptables ip6tables; do
    command -v "$ipt" >/dev/null || continue
    "$ipt" -t filter -D INPUT -j KUBE-FIREWALL 2>/dev/null
    "$ipt" -t filter -D OUTPUT -j KUBE-FIREWALL 2>/dev/null
    for table in filter nat mangle; do
      for chain in KUBE-FIREWALL KUBE-MARK-DROP KUBE-MARK-MASQ KUBE-POSTROUTING \
                   KUBE-KUBELET-CANARY KUBE-PROXY-CANARY; do
        "$ipt" -t "$table" -F "$chain" 2>/dev/null && "$ipt" -t "$table" -X "$chain" 2>/dev/null
      done
    done
  done
  ip link delete dbe2e0 2>/dev/null
  rm -rf /var/lib/cni/networks/distbench-e2e
  return 0
}

teardown() {
  local rc=$?
  set +e
  if [[ $keep == 1 ]]; then
    log "E2E_KEEP=1: the cluster stays up. KUBECONFIG=$kubeconfig"
    log "stop it with: kill ${pids[*]} (then kube-proxy --cleanup, and remove $state)"
    exit "$rc"
  fi
  log "tearing down"
  # The pods first, while the kubelet can still stop them.
  if [[ -f $kubeconfig ]] && kubectl get --raw /readyz >/dev/null 2>&1; then
    kubectl delete namespace "$bench_ns" --wait=false >/dev/null 2>&1
    helm uninstall "$release" -n "$operator_ns" >/dev/null 2>&1
    kubectl delete pods --all -A --grace-period=5 --timeout=60s >/dev/null 2>&1
  fi
  # Whatever containers are left, through containerd, so their shims exit.
  if [[ -S $sock ]]; then
    local task
    for task in $(ctr tasks ls -q 2>/dev/null); do
      ctr tasks kill -s SIGKILL "$task" >/dev/null 2>&1
    done
    sleep 1
    for task in $(ctr tasks ls -q 2>/dev/null); do ctr tasks delete -f "$task" >/dev/null 2>&1; done
    for task in $(ctr containers ls -q 2>/dev/null); do ctr containers delete "$task" >/dev/null 2>&1; done
  fi
  local i
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do stop_pid "${pids[i]}" "${names[i]}"; done
  cleanup_network
  # The kubelet's and containerd's mounts under $state, deepest first.
  awk -v s="$state" 'index($2, s) == 1 { print $2 }' /proc/mounts | sort -r |
    while read -r m; do umount -l "$m" 2>/dev/null; done
  if ((rc == 0)); then
    rm -rf "$state"
  else
    log "logs kept in $state/logs"
  fi
  log "done (exit $rc)"
  exit "$rc"
}
trap teardown EXIT
trap 'exit 130' INT TERM

wait_until() {  # wait_until SECONDS COMMAND...: 0 once COMMAND succeeds, 1 at the deadline
  local deadline=$(($(date +%s) + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    (($(date +%s) < deadline)) || return 1
    sleep 1
  done
}
wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...: dies at the deadline
  local limit=$1 what=$2
  shift 2
  wait_until "$limit" "$@" || die "$what: not within ${limit}s"
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# ---------------------------------------------------------------------------
# 1. Packages, binaries, images.

source scripts/apt-as-root.sh
packages=(containerd runc containernetworking-plugins iptables conntrack podman debootstrap
          openssl jq gcc libc6-dev iproute2 python3 util-linux)
missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  [[ $status == installed ]] || missing+=("$pkg")
done
if ((${#missing[@]})); then
  log "installing ${missing[*]}"
  "${apt_get[@]}" update
  "${apt_get[@]}" install -y --no-install-recommends "${missing[@]}"
fi

scripts/install-kube-apiserver.sh
scripts/install-helm.sh

# The node's binaries, from the same Debian source tree and Go build cache
# install-kube-apiserver.sh used.
node_binaries=(kube-scheduler kubelet kube-proxy)
need_build=()
for b in "${node_binaries[@]}"; do
  "$kube_bin/$b" --version >/dev/null 2>&1 || need_build+=("cmd/$b")
done
if ((${#need_build[@]})); then
  src=$(find "$kube_cache/src" -mindepth 1 -maxdepth 1 -type d -name 'kubernetes-*' | sort | tail -n1)
  [[ -n $src && -f $src/.distbench-reflect2 ]] || die "no patched kubernetes source in $kube_cache/src"
  kube_version=$("$kube_bin/kube-apiserver" --version | awk '{print $2}')
  log "building ${need_build[*]} ($kube_version) under nice; minutes the first time"
  (cd "$src" && KUBE_GIT_VERSION=$kube_version KUBE_GIT_TREE_STATE=clean \
    nice -n 19 make WHAT="${need_build[*]}") >"$state/logs/kube-build.log" 2>&1 ||
    { tail -n 30 "$state/logs/kube-build.log" >&2; die "make WHAT=${need_build[*]}"; }
  for target in "${need_build[@]}"; do
    b=${target#cmd/}
    out=$(find "$src/_output" -type f -name "$b" -perm -u+x | head -n1)
    [[ -n $out ]] || die "make left no $b under $src/_output"
    install -m 0755 "$out" "$kube_bin/$b"
  done
fi
log "kubernetes binaries: $("$kube_bin/kubelet" --version)"

if [[ ${E2E_SKIP_IMAGES:-0} != 1 ]]; then
  dockerfiles/build-images.sh operator worker
fi
podman_=(podman --runtime runc)
for image in "$operator_image" "$worker_image"; do
  "${podman_[@]}" image exists "$image" || die "podman has no $image (dockerfiles/build-images.sh)"
done

# The pause image every pod sandbox runs: a static program that sleeps and
# reaps children, FROM scratch. No registry here to pull one from.
if ! "${podman_[@]}" image exists "$pause_image"; then
  log "building $pause_image"
  mkdir -p "$state/pause"
  cat >"$state/pause/pause.c" <<'EOF'
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static void reap(int sig) { (void)sig; while (waitpid(-1, NULL, WNOHANG) > 0) {} }
static void quit(int sig) { (void)sig; _exit(0); }
int main(void) {
  signal(SIGINT, quit);
  signal(SIGTERM, quit);
  signal(SIGCHLD, reap);
  for (;;) pause();
}
EOF
  gcc -Os -static -o "$state/pause/pause" "$state/pause/pause.c"
  printf 'FROM scratch\nCOPY pause /pause\nUSER 65535:65535\nENTRYPOINT ["/pause"]\n' >"$state/pause/Containerfile"
  "${podman_[@]}" build -q -t "$pause_image" "$state/pause" >/dev/null
fi

# ---------------------------------------------------------------------------
# 2. Certificates and credentials. One CA signs the API server's serving
#    certificate (for loopback, the node's address and the kubernetes
#    Service's ClusterIP); one bearer token of a system:masters user serves
#    every component. A throwaway single-node cluster, not a hardened one.

node_ip=$(ip -4 route get 1.1.1.1 2>/dev/null | awk '{for (i = 1; i < NF; i++) if ($i == "src") print $(i + 1)}' | head -n1)
[[ -n $node_ip ]] || node_ip=$(hostname -I | awk '{print $1}')
[[ -n $node_ip ]] || die "cannot tell this machine's IP address"
node_name=$(hostname | tr '[:upper:]' '[:lower:]')
service_ip=$(python3 -c "import ipaddress, sys; print(ipaddress.ip_network(sys.argv[1])[1])" "$service_cidr")
log "node $node_name at $node_ip; Services in $service_cidr (kubernetes: $service_ip); pods in $pod_cidr"

pki=$state/pki
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=distbench-e2e-ca \
  -keyout "$pki/ca.key" -out "$pki/ca.crt" \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign,digitalSignature \
  2>/dev/null
cat >"$pki/serving.ext" <<EOF
basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth,clientAuth
subjectAltName=IP:127.0.0.1,IP:$node_ip,IP:$service_ip,DNS:localhost,DNS:$node_name,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local
EOF
openssl req -newkey rsa:2048 -nodes -subj /CN=kube-apiserver \
  -keyout "$pki/apiserver.key" -out "$pki/apiserver.csr" 2>/dev/null
openssl x509 -req -in "$pki/apiserver.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -set_serial 2 \
  -days 2 -extfile "$pki/serving.ext" -out "$pki/apiserver.crt" 2>/dev/null
openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
token=$(head -c 20 /dev/urandom | od -An -tx1 | tr -d ' \n')
echo "$token,distbench-e2e-admin,distbench-e2e-admin,\"system:masters\"" >"$pki/tokens.csv"
chmod 600 "$pki"/*.key "$pki/tokens.csv"

kubectl config set-cluster e2e --server="https://127.0.0.1:$api_port" \
  --certificate-authority="$pki/ca.crt" --embed-certs >/dev/null
kubectl config set-credentials admin --token="$token" >/dev/null
kubectl config set-context e2e --cluster=e2e --user=admin >/dev/null
kubectl config use-context e2e >/dev/null

# ---------------------------------------------------------------------------
# 3. The control plane: etcd, kube-apiserver, controller-manager, scheduler.

run_bg() {  # run_bg NAME COMMAND...: output to logs/NAME.log
  local name=$1
  shift
  "$@" >"$state/logs/$name.log" 2>&1 &
  started $! "$name"
}
alive() { kill -0 "${pids[$1]}" 2>/dev/null; }

etcd_port=$(free_port)
etcd_peer=$(free_port)
run_bg etcd etcd --name e2e --data-dir "$state/etcd" \
  --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
  --listen-peer-urls "http://127.0.0.1:$etcd_peer" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" \
  --initial-cluster "e2e=http://127.0.0.1:$etcd_peer" --log-level warn
wait_for 60 "etcd listening" bash -c "exec 3<>/dev/tcp/127.0.0.1/$etcd_port"

run_bg kube-apiserver "$kube_bin/kube-apiserver" \
  --etcd-servers="http://127.0.0.1:$etcd_port" \
  --bind-address=0.0.0.0 --advertise-address="$node_ip" --secure-port="$api_port" --insecure-port=0 \
  --cert-dir="$pki/apiserver-certs" \
  --tls-cert-file="$pki/apiserver.crt" --tls-private-key-file="$pki/apiserver.key" \
  --client-ca-file="$pki/ca.crt" --token-auth-file="$pki/tokens.csv" --anonymous-auth=false \
  --authorization-mode=Node,RBAC \
  --service-account-key-file="$pki/sa.pub" --service-account-signing-key-file="$pki/sa.key" \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-cluster-ip-range="$service_cidr" --allow-privileged=true \
  --kubelet-preferred-address-types=InternalIP \
  --kubelet-client-certificate="$pki/apiserver.crt" --kubelet-client-key="$pki/apiserver.key" \
  --profiling=false --v=1
wait_for 120 "kube-apiserver /readyz" kubectl get --raw /readyz
log "kube-apiserver ready at https://127.0.0.1:$api_port"

run_bg kube-controller-manager "$kube_bin/kube-controller-manager" \
  --kubeconfig="$kubeconfig" --leader-elect=false \
  --service-account-private-key-file="$pki/sa.key" --root-ca-file="$pki/ca.crt" \
  --use-service-account-credentials=false --port=0 --secure-port=0 --profiling=false --v=1
run_bg kube-scheduler "$kube_bin/kube-scheduler" \
  --kubeconfig="$kubeconfig" --leader-elect=false --port=0 --secure-port=0 --v=1
wait_for 120 "the default ServiceAccount (controller-manager)" kubectl get serviceaccount default -n default

# ---------------------------------------------------------------------------
# 4. The node: containerd (its own socket, root and CNI configuration under
#    $state, so the machine's own containerd, if any, is left alone), the
#    kubelet, kube-proxy.

# No swap accounting or oom_score_adj lowering here: restrict_oom_score_adj.
cat >"$state/containerd/config.toml" <<EOF
version = 2
root = "$state/containerd/root"
state = "$state/containerd/state"
[grpc]
  address = "$sock"
[ttrpc]
  address = "$state/containerd/ttrpc.sock"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$pause_image"
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$state/cni"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
EOF
cat >"$state/cni/10-distbench-e2e.conflist" <<EOF
{
  "cniVersion": "0.4.0",
  "name": "distbench-e2e",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "dbe2e0",
      "isGateway": true,
      "ipMasq": true,
      "hairpinMode": true,
      "ipam": {"type": "host-local", "ranges": [[{"subnet": "$pod_cidr"}]], "routes": [{"dst": "0.0.0.0/0"}]}
    },
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
EOF
sysctl -qw net.ipv4.ip_forward=1 || log "warning: cannot set net.ipv4.ip_forward=1"
modprobe br_netfilter 2>/dev/null || true
sysctl -qw net.bridge.bridge-nf-call-iptables=1 2>/dev/null ||
  log "note: no br_netfilter; kube-proxy masquerades all Service traffic instead"

run_bg containerd containerd --config "$state/containerd/config.toml"
wait_for 60 "containerd" ctr version

# The images, through podman save and ctr import (no registry); the pods use
# them with imagePullPolicy Never / IfNotPresent.
for image in "$pause_image" "$operator_image" "$worker_image"; do
  archive=$state/images/$(echo "$image" | tr '/:' '__').tar
  log "loading $image into containerd"
  "${podman_[@]}" save --format oci-archive -o "$archive" "$image"
  imported=$(ctr images import --base-name "${image%:*}" "$archive" 2>&1) ||
    { echo "$imported" >&2; die "ctr images import $archive"; }
  rm -f "$archive"
  if ! ctr images ls -q | grep -Fxq "$image"; then
    name=$(ctr images ls -q | grep -F "${image%:*}" | head -n1)
    [[ -n $name ]] || { echo "$imported" >&2; die "ctr import did not name $image"; }
    ctr images tag --force "$name" "$image" >/dev/null
  fi
done

kubelet_dir=$state/kubelet
run_bg kubelet "$kube_bin/kubelet" \
  --kubeconfig="$kubeconfig" --hostname-override="$node_name" --node-ip="$node_ip" \
  --root-dir="$kubelet_dir" --cert-dir="$kubelet_dir/pki" \
  --container-runtime=remote --container-runtime-endpoint="unix://$sock" \
  --cgroup-driver=cgroupfs --cgroups-per-qos=false --enforce-node-allocatable= \
  --fail-swap-on=false --eviction-hard= --image-gc-high-threshold=100 --image-gc-low-threshold=99 \
  --pod-infra-container-image="$pause_image" \
  --anonymous-auth=false --client-ca-file="$pki/ca.crt" --authorization-mode=AlwaysAllow --read-only-port=0 \
  --cluster-domain=cluster.local --resolv-conf=/etc/resolv.conf \
  --volume-plugin-dir="$kubelet_dir/volume-plugins" --v=1
# Masquerade everything that goes through a Service: without br_netfilter a
# reply from a pod on the same bridge would otherwise bypass the DNAT.
run_bg kube-proxy "$kube_bin/kube-proxy" \
  --kubeconfig="$kubeconfig" --hostname-override="$node_name" --proxy-mode=iptables \
  --masquerade-all=true --cluster-cidr="$pod_cidr" \
  --conntrack-max-per-core=0 --conntrack-tcp-timeout-established=0 --conntrack-tcp-timeout-close-wait=0 \
  --metrics-bind-address="127.0.0.1:$(free_port)" --healthz-bind-address="127.0.0.1:$(free_port)" --v=1
wait_for 180 "node $node_name Ready" \
  kubectl wait --for=condition=Ready "node/$node_name" --timeout=5s
log "node $node_name is Ready"

# ---------------------------------------------------------------------------
# 5. The chart.

log "helm install $release charts/distbench-operator (images $operator_image)"
helm install "$release" charts/distbench-operator --namespace "$operator_ns" --create-namespace \
  --set image.repository="${operator_image%:*}" --set image.tag="$version" \
  --set image.pullPolicy=Never --set logFormat=text
lease_holder() { kubectl -n "$operator_ns" get lease distbench-operator -o jsonpath='{.spec.holderIdentity}'; }
has_leader() { [[ -n $(lease_holder 2>/dev/null) ]]; }
if ! wait_until 300 has_leader; then
  kubectl -n "$operator_ns" get pods -o wide
  kubectl -n "$operator_ns" describe pods | tail -n 40
  kubectl -n "$operator_ns" logs -l app.kubernetes.io/instance="$release" --tail=60 --prefix
  die "no operator replica took the Lease $operator_ns/distbench-operator within 300s"
fi
kubectl -n "$operator_ns" get pods -o wide
log "leader: $(lease_holder)"

# ---------------------------------------------------------------------------
# 6. The benchmark: the example, with the worker image loaded above.

name=$(kubectl create --dry-run=client -o jsonpath='{.metadata.name}' -f "$example")
kubectl create namespace "$bench_ns" >/dev/null
kubectl create --dry-run=client -o json -f "$example" |
  jq --arg image "$worker_image" \
    'del(.metadata.namespace) | .spec.runtime = ((.spec.runtime // {}) + {image: $image})' |
  kubectl apply -n "$bench_ns" -f -
log "waiting up to ${timeout}s for DistBenchmark $bench_ns/$name to finish"

dump() {
  log "--- DistBenchmark"
  kubectl -n "$bench_ns" get distbenchmark "$name" -o yaml
  log "--- pods"
  kubectl -n "$bench_ns" get pods -o wide
  log "--- events"
  kubectl -n "$bench_ns" get events --sort-by=.lastTimestamp | tail -n 40
  log "--- operator logs"
  kubectl -n "$operator_ns" logs -l app.kubernetes.io/instance="$release" --tail=60 --prefix
  local pod
  for pod in $(kubectl -n "$bench_ns" get pods -o name); do
    log "--- $pod"
    kubectl -n "$bench_ns" logs "$pod" --tail=30
  done
}

deadline=$(($(date +%s) + timeout))
phase=""
shown=""
while :; do
  phase=$(kubectl -n "$bench_ns" get distbenchmark "$name" -o jsonpath='{.status.phase}' 2>/dev/null || true)
  [[ $phase == Succeeded || $phase == Failed ]] && break
  if (($(date +%s) > deadline)); then
    dump
    die "DistBenchmark $name still '${phase:-no phase}' after ${timeout}s"
  fi
  for i in "${!pids[@]}"; do alive "$i" || { dump; die "${names[i]} exited; see $state/logs/${names[i]}.log"; }; done
  sleep 5
  now_shown="phase ${phase:-none}; pods: $(kubectl -n "$bench_ns" get pods --no-headers 2>/dev/null |
    awk '{print $3}' | sort | uniq -c | xargs)"
  [[ $now_shown == "$shown" ]] || log "$now_shown"
  shown=$now_shown
done
if [[ $phase != Succeeded ]]; then
  dump
  die "DistBenchmark $name ended $phase"
fi
log "DistBenchmark $name Succeeded"
kubectl -n "$bench_ns" get distbenchmark "$name"
log "status.results:"
kubectl -n "$bench_ns" get distbenchmark "$name" -o json | jq '.status.results'
log "PASSED in $(($(date +%s) - start_time))s"
