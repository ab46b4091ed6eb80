#!/usr/bin/env bash
# The e2e suite's cluster: a real single-node Kubernetes 1.20 on this
# machine from Debian packages only (no kind, Docker or registry).
#
#   e2e/cluster-debian.sh up     # packages, binaries, images, then the cluster
#   e2e/cluster-debian.sh down   # stops everything up started, removes its traces
#   e2e/cluster-debian.sh leftovers  # lists what of a cluster is still here; 1 if anything
#   e2e/cluster-debian.sh control-plane stop|start  # etcd and kube-apiserver off, and on
#                                    # again with the arguments `up` gave them
#
# `up` leaves the processes running and writes $E2E_STATE/cluster.env (the
# kubeconfig, kubectl, helm, image names) for the scenarios; `down` stops
# them by the pids `up` recorded and removes kube-proxy's and the kubelet's
# iptables rules, the CNI bridge and the mounts. e2e/README.md has the
# details and the variables:
#
#   E2E_STATE         state directory (default: /tmp/distbench-e2e)
#   E2E_BIN           a host build's bin/ for the images (default: build from source)
#   E2E_API_PORT      kube-apiserver's port (default: 6443)
#   E2E_POD_CIDR      pods (default: 198.18.0.0/24)
#   E2E_SERVICE_CIDR  Service ClusterIPs (default: 198.19.0.0/24)
#   E2E_NODE_IP       the node's address (default: this machine's, from its routes)
#   E2E_SKIP_IMAGES   1: use the images podman already has
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/netns-mounts.sh"
E2E_NAME=cluster-debian

cmd=${1:-}
[[ $cmd == up || $cmd == down || $cmd == leftovers ||
   ( $cmd == control-plane && ( ${2:-} == stop || ${2:-} == start ) ) ]] ||
  { echo "usage: $0 up|down|leftovers|control-plane stop|start" >&2; exit 2; }
require_root

api_port=${E2E_API_PORT:-6443}
# The benchmarking range (RFC 2544), never a private one: nothing here may
# send test traffic to 10/8, 172.16/12 or 192.168/16.
pod_cidr=${E2E_POD_CIDR:-198.18.0.0/24}
service_cidr=${E2E_SERVICE_CIDR:-198.19.0.0/24}
bridge=dbe2e0
cni_name=distbench-e2e
version=$(sed -n 's/^project(distbench VERSION \([0-9.]*\).*/\1/p' "$e2e_root/CMakeLists.txt")
operator_image=localhost/distbench/operator:$version
worker_image=localhost/distbench/worker:$version
failing_image=localhost/distbench/worker-failing:$version
filler_image=localhost/distbench/worker-filler:$version
refusing_image=localhost/distbench/worker-refusing:$version
pause_image=localhost/distbench/pause:1.0
kube_bin=${DISTBENCH_KUBE_CACHE:-$HOME/.cache/distbench/kube}/bin
helm_bin=${DISTBENCH_HELM_CACHE:-$HOME/.cache/distbench/helm}/bin
# containerd's image store outlives the cluster: re-importing the 1.3 GB
# worker image takes a minute, and it is skipped when podman's is unchanged.
image_store=${DISTBENCH_E2E_CACHE:-$HOME/.cache/distbench/e2e}/containerd

state=$E2E_STATE
sock=$state/containerd/containerd.sock
ctr_() { ctr --address "$sock" -n k8s.io "$@"; }
kctl() { "$helm_bin/kubectl" --kubeconfig="$state/admin.kubeconfig" --request-timeout=30s "$@"; }

# ---------------------------------------------------------------------------
# down

stop_pid() {  # SIGTERM, then SIGKILL after 10 s
  local pid=$1 name=$2 i
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  log "$name (pid $pid) ignored SIGTERM for 10 s; SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
}

# Processes: detached (setsid, no inherited output) so they outlive this
# script, and recorded in $state/pids for down; their command lines in
# $state/cmd for control_plane start. The log is appended to: `up` empties
# logs/ first, and a process started again keeps what it said before.
run_bg() {  # run_bg NAME COMMAND...: output to logs/NAME.log, argv in cmd/NAME
  local name=$1
  shift
  mkdir -p "$state/cmd"
  printf '%s\0' "$@" >"$state/cmd/$name"
  setsid "$@" </dev/null >>"$state/logs/$name.log" 2>&1 &
  echo "$! $name" >>"$state/pids"
}

# An outage of the control plane (scenario 19): etcd and kube-apiserver
# stopped, then started with the arguments `up` recorded in $state/cmd/, on
# the same ports and data directory; the rest of the node keeps running.
control_plane() {  # control_plane stop|start
  local name
  case $1 in
    stop)
      stop_named kube-apiserver etcd
      awk '$2 != "kube-apiserver" && $2 != "etcd"' "$state/pids" >"$state/pids.new"
      mv "$state/pids.new" "$state/pids"
      log "control plane stopped"
      ;;
    start)
      if kctl get --raw /readyz >/dev/null 2>&1; then
        log "control plane already up"
        return 0
      fi
      for name in etcd kube-apiserver; do
        [[ -f $state/cmd/$name ]] || die "no $state/cmd/$name: this cluster's up did not record it"
        local argv=()
        mapfile -d '' argv <"$state/cmd/$name"
        run_bg "$name" "${argv[@]}"
      done
      wait_for 120 "kube-apiserver /readyz" kctl get --raw /readyz
      log "control plane started"
      ;;
  esac
}

# Pod addresses are in $pod_cidr: "yes" when $1 is.
in_pod_cidr() { python3 -c 'import ipaddress, sys; sys.exit(ipaddress.ip_address(sys.argv[1]) not in ipaddress.ip_network(sys.argv[2]))' "$1" "$pod_cidr"; }

# The pods' network namespaces: containerd's CRI names them cni-*, and the
# bridge plugin gives each an address in $pod_cidr. Killing a sandbox's
# task through ctr (not the CRI) never calls the plugin's DEL, so they and
# their veth pairs outlive the pods unless removed here.
pod_netns() {
  local ns addr
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
    for addr in $(ip -n "$ns" -4 -o addr show 2>/dev/null | awk '{print $4}' | cut -d/ -f1); do
      if in_pod_cidr "$addr"; then echo "$ns"; break; fi
    done
  done
}
# Host ends of veth pairs on the bridge or into one of the namespaces $@.
pod_veths() {
  local line
  ip -o link show type veth 2>/dev/null | while read -r line; do
    local dev=${line#*: }
    dev=${dev%%[@:]*}
    local ns
    ns=$(sed -n 's/.* link-netns \([^ ]*\).*/\1/p' <<<"$line")
    if [[ $line == *" master $bridge "* ]] || { [[ -n $ns ]] && printf '%s\n' "$@" | grep -Fxq -- "$ns"; }; then
      echo "$dev"
    fi
  done
}

# kube-proxy's rules (its own --cleanup), the chains the kubelet makes
# (KUBE-FIREWALL is hooked into INPUT and OUTPUT), the pods' namespaces and
# veths, the CNI bridge and host-local's leases.
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
  # The bridge plugin's ipMasq rules (CNI-* chains in nat, one per pod).
  iptables -t nat -S POSTROUTING 2>/dev/null | grep -- "-j CNI-" | sed 's/^-A/-D/' |
    while read -r rule; do eval iptables -t nat "$rule" 2>/dev/null; done
  iptables -t nat -S 2>/dev/null | awk '/^-N CNI-/ {print $2}' |
    while read -r chain; do iptables -t nat -F "$chain" 2>/dev/null; iptables -t nat -X "$chain" 2>/dev/null; done
  local namespaces dev ns
  mapfile -t namespaces < <(pod_netns)
  for dev in $(pod_veths "${namespaces[@]}"); do ip link delete "$dev" 2>/dev/null; done
  for ns in "${namespaces[@]}"; do ip netns delete "$ns" 2>/dev/null; done
  ip link delete "$bridge" 2>/dev/null
  rm -rf "/var/lib/cni/networks/$cni_name"
  return 0
}

# Processes of this cluster: those that name its state directory (the
# control plane, containerd, the kubelet, and each containerd-shim through
# its -address), and whatever runs in a container of its containerd: the
# CRI puts each in memory cgroup /k8s.io/<container id> (the CRI's
# namespace; nothing else on a machine running this suite uses it), where
# a pod's processes stay even once their shim is gone.
cluster_pids() {
  local dir pid
  for dir in /proc/[0-9]*; do
    pid=${dir#/proc/}
    ((pid == $$ || pid == BASHPID)) && continue
    if tr '\0' ' ' 2>/dev/null <"$dir/cmdline" | grep -Fq -- "$state/" ||
      grep -Eq '^[0-9]+:memory:/k8s\.io/' "$dir/cgroup" 2>/dev/null; then
      echo "$pid"
    fi
  done
}

# Everything of the cluster still on this machine, one line each; nothing
# when `down` left it clean.
leftovers() {
  local pid ns
  for pid in $(cluster_pids); do
    echo "process $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-160)"
  done
  awk -v s="$state" -v c="$image_store" 'index($2, s) == 1 || index($2, c) == 1 { print "mount " $2 }' /proc/mounts
  for ns in $(pod_netns); do echo "network namespace $ns"; done
  local namespaces
  mapfile -t namespaces < <(pod_netns)
  for dev in $(pod_veths "${namespaces[@]}"); do echo "veth $dev"; done
  ip link show "$bridge" >/dev/null 2>&1 && echo "bridge $bridge"
  # Pod namespaces a later mount of /run/netns hid (e2e/netns-mounts.sh):
  # no path reaches them, so nothing above sees them.
  local hidden
  for hidden in $(netns_shadowed); do
    [[ $(basename "$hidden") == cni-* ]] && echo "shadowed network namespace mount $hidden (under a later mount of $netns_dir)"
  done
  return 0
}
pids_named() { [[ -f $state/pids ]] && awk -v n="$1" '$2 == n { print $1 }' "$state/pids"; }
stop_named() {  # stop_named NAME...: the processes `up` recorded under those names
  local name pid
  for name in "$@"; do
    for pid in $(pids_named "$name"); do stop_pid "$pid" "$name"; done
  done
}
# containerd-shim processes of this cluster's containerd (its -address),
# which by design outlive containerd; and their children.
shim_pids() {
  local dir
  for dir in /proc/[0-9]*; do
    tr '\0' '\n' 2>/dev/null <"$dir/cmdline" | grep -qx -- "$sock" && echo "${dir#/proc/}"
  done
}
children_of() { awk -v p="$1" '{ if ($4 == p) print $1 }' /proc/[0-9]*/stat 2>/dev/null; }

down() {
  set +e
  [[ -d $state ]] || { log "nothing to stop: no $state"; return 0; }
  log "stopping the cluster in $state"
  # What makes pods first: the controller manager recreates the operator's
  # pods (its Deployment) as soon as they are deleted, and the scheduler
  # binds them to the node, where the kubelet would start them after the
  # tasks below were killed. The operator's own new pods stay unbound.
  stop_named kube-controller-manager kube-scheduler
  if [[ -f $state/admin.kubeconfig ]] && kctl get --raw /readyz >/dev/null 2>&1; then
    # The pods, while the kubelet can still stop them (and tear down their
    # networks through the CNI plugin).
    local t0=$SECONDS
    kctl delete pods --all -A --grace-period=2 --wait=false >/dev/null 2>&1
    if wait_until 30 bash -c "[[ -z \$('$helm_bin/kubectl' --kubeconfig='$state/admin.kubeconfig' --request-timeout=5s get pods -A --field-selector spec.nodeName!= -o name 2>/dev/null) ]]"; then
      log "pods off the node in $((SECONDS - t0)) s"
    else
      log "pods still on the node after 30 s: $(kctl get pods -A --field-selector spec.nodeName!= -o name 2>/dev/null | xargs); killing their tasks"
    fi
  fi
  # Nothing starts a container any more.
  stop_named kubelet kube-proxy
  if [[ -S $sock ]]; then
    # Every task, until none is left: kill, then delete (a killed task
    # stays listed until deleted).
    local task i
    for ((i = 0; i < 30; i++)); do
      local tasks
      tasks=$(ctr_ tasks ls -q 2>/dev/null)
      [[ -z $tasks ]] && break
      for task in $tasks; do ctr_ tasks kill -s SIGKILL "$task" >/dev/null 2>&1; done
      sleep 0.5
      for task in $tasks; do ctr_ tasks delete -f "$task" >/dev/null 2>&1; done
    done
    [[ -z $(ctr_ tasks ls -q 2>/dev/null) ]] || log "containerd still lists tasks: $(ctr_ tasks ls -q | xargs)"
    for task in $(ctr_ containers ls -q 2>/dev/null); do ctr_ containers delete "$task" >/dev/null 2>&1; done
  fi
  if [[ -f $state/pids ]]; then
    local pid name
    tac "$state/pids" | while read -r pid name; do stop_pid "$pid" "$name"; done
  fi
  # A shim whose task could not be deleted outlives containerd: what it
  # still runs goes first, then the shim.
  local shim child
  for shim in $(shim_pids); do
    for child in $(children_of "$shim"); do kill -KILL "$child" 2>/dev/null; done
    kill -KILL "$shim" 2>/dev/null
  done
  # A container process whose shim is gone (left by an earlier, older
  # `down`) is still in its container's cgroup.
  local dir
  for dir in /proc/[0-9]*; do
    grep -Eq '^[0-9]+:memory:/k8s\.io/' "$dir/cgroup" 2>/dev/null && kill -KILL "${dir#/proc/}" 2>/dev/null
  done
  cleanup_network
  # Pod namespaces hidden under a later mount of /run/netns (a machine whose
  # first `ip netns add` came after this cluster's, or an earlier suite's,
  # first pod): uncovered and removed, unless someone's live namespace sits
  # in the covering mount (leftovers then names them).
  netns_remove_shadowed 'cni-*' ||
    log "hidden pod namespaces under $netns_dir left: another namespace lives in the mount that covers them"
  # The kubelet's and containerd's mounts, deepest first.
  awk -v s="$state" -v c="$image_store" 'index($2, s) == 1 || index($2, c) == 1 { print $2 }' /proc/mounts |
    sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
  local left
  left=$(leftovers)
  # Logs stay for a look after a failure; everything else goes.
  find "$state" -mindepth 1 -maxdepth 1 ! -name logs -exec rm -rf {} +
  if [[ -n $left ]]; then
    log "FAILED: the cluster left behind:"
    printf '  %s\n' "$left" >&2
    return 1
  fi
  log "stopped, nothing of the cluster left (processes, mounts, namespaces, links); logs in $state/logs"
  return 0
}

if [[ $cmd == down ]]; then
  down
  exit
fi
if [[ $cmd == control-plane ]]; then
  [[ -f $state/pids ]] || die "no cluster in $state"
  control_plane "$2"
  exit
fi
if [[ $cmd == leftovers ]]; then  # what a `down` would have to remove; 1 if anything
  left=$(leftovers)
  [[ -z $left ]] && exit 0
  echo "$left"
  exit 1
fi

# ---------------------------------------------------------------------------
# up: packages, binaries, images

# A live cluster in $state is someone's (another build's suite, a developer
# poking at it): refuse rather than stop it. A dead one's traces go.
if [[ -f $state/pids ]]; then
  live=$(while read -r pid name; do kill -0 "$pid" 2>/dev/null && echo "$name:$pid"; done <"$state/pids" | xargs)
  [[ -z $live ]] || die "a cluster is running in $state ($live); stop it first: $0 down"
  log "a previous cluster's traces are in $state: cleaning up"
  down || die "the previous cluster's traces could not all be removed (above)"
fi
rm -rf "$state/logs"
mkdir -p "$state"/{logs,pki,cni,containerd,kubelet,etcd,helm} "$image_store"
trap 'rc=$?; if ((rc != 0)); then log "up failed; logs in $state/logs"; down; fi' EXIT

"$e2e_root/scripts/install-e2e-deps.sh"
"$e2e_root/scripts/install-helm.sh"
"$(dirname "${BASH_SOURCE[0]}")/node-binaries.sh"
if [[ ${E2E_SKIP_IMAGES:-0} != 1 ]]; then
  "$(dirname "${BASH_SOURCE[0]}")/images.sh"
fi
for image in "$pause_image" "$operator_image" "$worker_image" "$failing_image" "$filler_image" "$refusing_image"; do
  podman --runtime runc image exists "$image" || die "podman has no $image (e2e/images.sh)"
done

# ---------------------------------------------------------------------------
# Certificates and credentials: one CA signs the API server's serving
# certificate; one bearer token of a system:masters user serves every
# component and the scenarios. A throwaway single-node cluster.

node_ip=${E2E_NODE_IP:-$(ip -4 route show default | awk '{for (i = 1; i < NF; i++) if ($i == "dev") print $(i + 1)}' |
  head -n1 | xargs -r ip -4 -o addr show dev | awk '{print $4}' | cut -d/ -f1 | head -n1)}
[[ -n $node_ip ]] || die "cannot tell this machine's address; set E2E_NODE_IP"
node_name=$(hostname | tr '[:upper:]' '[:lower:]')
service_ip=$(python3 -c "import ipaddress, sys; print(ipaddress.ip_network(sys.argv[1])[1])" "$service_cidr")
log "node $node_name at $node_ip; pods $pod_cidr; Services $service_cidr (kubernetes: $service_ip)"

pki=$state/pki
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=distbench-e2e-ca \
  -keyout "$pki/ca.key" -out "$pki/ca.crt" \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign,digitalSignature 2>/dev/null
cat >"$pki/serving.ext" <<EOT
basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth,clientAuth
subjectAltName=IP:127.0.0.1,IP:$node_ip,IP:$service_ip,DNS:localhost,DNS:$node_name,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local
EOT
openssl req -newkey rsa:2048 -nodes -subj /CN=kube-apiserver \
  -keyout "$pki/apiserver.key" -out "$pki/apiserver.csr" 2>/dev/null
openssl x509 -req -in "$pki/apiserver.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -set_serial 2 \
  -days 2 -extfile "$pki/serving.ext" -out "$pki/apiserver.crt" 2>/dev/null
openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
head -c 20 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$pki/token"
echo "$(cat "$pki/token"),distbench-e2e-admin,distbench-e2e-admin,\"system:masters\"" >"$pki/tokens.csv"
chmod 600 "$pki"/*.key "$pki/tokens.csv" "$pki/token"

kubeconfig=$state/admin.kubeconfig
kctl config set-cluster e2e --server="https://127.0.0.1:$api_port" \
  --certificate-authority="$pki/ca.crt" --embed-certs >/dev/null
kctl config set-credentials admin --token="$(cat "$pki/token")" >/dev/null
kctl config set-context e2e --cluster=e2e --user=admin >/dev/null
kctl config use-context e2e >/dev/null

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

etcd_port=$(free_port)
etcd_peer=$(free_port)
run_bg etcd etcd --name e2e --data-dir "$state/etcd" \
  --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
  --listen-peer-urls "http://127.0.0.1:$etcd_peer" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" \
  --initial-cluster "e2e=http://127.0.0.1:$etcd_peer" --log-level warn
wait_for 60 "etcd listening" bash -c "exec 3<>/dev/tcp/127.0.0.1/$etcd_port"

# PodSecurityPolicy admission on: pods are admitted only under a policy
# their creator or ServiceAccount may use (manifests/psp.yaml).
run_bg kube-apiserver "$kube_bin/kube-apiserver" \
  --etcd-servers="http://127.0.0.1:$etcd_port" \
  --bind-address=0.0.0.0 --advertise-address="$node_ip" --secure-port="$api_port" --insecure-port=0 \
  --tls-cert-file="$pki/apiserver.crt" --tls-private-key-file="$pki/apiserver.key" \
  --client-ca-file="$pki/ca.crt" --token-auth-file="$pki/tokens.csv" --anonymous-auth=false \
  --authorization-mode=Node,RBAC \
  --enable-admission-plugins=PodSecurityPolicy \
  --service-account-key-file="$pki/sa.pub" --service-account-signing-key-file="$pki/sa.key" \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-cluster-ip-range="$service_cidr" --allow-privileged=true \
  --kubelet-preferred-address-types=InternalIP \
  --kubelet-client-certificate="$pki/apiserver.crt" --kubelet-client-key="$pki/apiserver.key" \
  --profiling=false --v=1
wait_for 120 "kube-apiserver /readyz" kctl get --raw /readyz
log "kube-apiserver ready at https://127.0.0.1:$api_port"
wait_until 30 kctl apply -f "$e2e_root/e2e/manifests/psp.yaml" ||
  { kctl apply -f "$e2e_root/e2e/manifests/psp.yaml"; die "applying manifests/psp.yaml"; }

run_bg kube-controller-manager "$kube_bin/kube-controller-manager" \
  --kubeconfig="$kubeconfig" --leader-elect=false \
  --service-account-private-key-file="$pki/sa.key" --root-ca-file="$pki/ca.crt" \
  --cluster-cidr="$pod_cidr" --service-cluster-ip-range="$service_cidr" \
  --use-service-account-credentials=false --port=0 --secure-port=0 --profiling=false --v=1
run_bg kube-scheduler "$kube_bin/kube-scheduler" \
  --kubeconfig="$kubeconfig" --leader-elect=false --port=0 --secure-port=0 --v=1
wait_for 120 "the default ServiceAccount (controller-manager)" kctl get serviceaccount default -n default

# ---------------------------------------------------------------------------
# The node: its own containerd (socket and state under $state, so a system
# containerd is left alone), a bridge network, the kubelet, kube-proxy.

# These machines forbid lowering oom_score_adj: restrict_oom_score_adj.
cat >"$state/containerd/config.toml" <<EOT
version = 2
root = "$image_store"
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
EOT
cat >"$state/cni/10-$cni_name.conflist" <<EOT
{
  "cniVersion": "0.4.0",
  "name": "$cni_name",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$bridge",
      "isGateway": true,
      "ipMasq": true,
      "hairpinMode": true,
      "ipam": {"type": "host-local", "ranges": [[{"subnet": "$pod_cidr"}]], "routes": [{"dst": "0.0.0.0/0"}]}
    },
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
EOT
# Pods get this resolv.conf: there is no cluster DNS, and the machine's own
# resolver may sit in a private range no pod may send to.
printf 'nameserver 127.0.0.1\noptions ndots:1 attempts:1 timeout:1\n' >"$state/resolv.conf"
sysctl -qw net.ipv4.ip_forward=1 || log "warning: cannot set net.ipv4.ip_forward=1"
modprobe br_netfilter 2>/dev/null || true
sysctl -qw net.bridge.bridge-nf-call-iptables=1 2>/dev/null ||
  log "note: no br_netfilter; kube-proxy masquerades all Service traffic instead"

# /run/netns a shared mount point before the first pod's namespace is made
# there, so that no later `ip netns add` binds over (and hides) them.
netns_dir_prepare || die "cannot make $netns_dir a shared mount point"
run_bg containerd containerd --config "$state/containerd/config.toml"
wait_for 60 "containerd" ctr_ version

# podman save + ctr import (no registry); skipped when containerd already has
# podman's image of that ID, under that manifest, from a previous cluster
# (the marker holds both). ctr names what it
# imports by the archive's ref annotation or only by digest, so the name is
# set here from the manifest digest the archive's index lists, and checked:
# a prefix match once tagged worker-failing's manifest as the worker image.
manifest_digest() {  # manifest_digest REF: the DIGEST column of `ctr images ls`
  ctr_ images ls | awk -v ref="$1" '$1 == ref { print $3; exit }'
}
for image in "$pause_image" "$operator_image" "$worker_image" "$failing_image" "$filler_image" "$refusing_image"; do
  id=$(podman --runtime runc image inspect --format '{{.Id}}' "$image")
  marker=$image_store/../imported-$(echo "$image" | tr '/:' '__')
  archive=$state/$(echo "$image" | tr '/:' '__').tar
  read -r marked_id marked_digest _ 2>/dev/null <"$marker" || marked_id=
  if [[ $marked_id == "$id" && -n ${marked_digest:-} && $(manifest_digest "$image") == "$marked_digest" ]]; then
    continue
  fi
  log "loading $image into containerd"
  podman --runtime runc save --format oci-archive -o "$archive" "$image"
  digest=$(tar -xOf "$archive" index.json | jq -r '.manifests[0].digest')
  [[ $digest == sha256:* ]] || die "$archive: no manifest digest in its index.json"
  imported=$(ctr_ images import --base-name "${image%:*}" "$archive" 2>&1) ||
    { echo "$imported" >&2; die "ctr images import $archive"; }
  rm -f "$archive"
  if [[ $(manifest_digest "$image") != "$digest" ]]; then
    name=$(ctr_ images ls | awk -v d="$digest" '$3 == d { print $1; exit }')
    [[ -n $name ]] || { echo "$imported" >&2; die "ctr import left no image with manifest $digest ($image)"; }
    ctr_ images tag --force "$name" "$image" >/dev/null
  fi
  [[ $(manifest_digest "$image") == "$digest" ]] || die "$image in containerd is not podman's (manifest $digest)"
  echo "$id $digest" >"$marker"
done

kubelet_dir=$state/kubelet
run_bg kubelet "$kube_bin/kubelet" \
  --kubeconfig="$kubeconfig" --hostname-override="$node_name" --node-ip="$node_ip" \
  --root-dir="$kubelet_dir" --cert-dir="$kubelet_dir/pki" \
  --container-runtime=remote --container-runtime-endpoint="unix://$sock" \
  --cgroup-driver=cgroupfs --cgroups-per-qos=false --enforce-node-allocatable= \
  --fail-swap-on=false --eviction-hard= --image-gc-high-threshold=100 --image-gc-low-threshold=99 \
  --volume-stats-agg-period=5s \
  --pod-infra-container-image="$pause_image" \
  --anonymous-auth=false --client-ca-file="$pki/ca.crt" --authorization-mode=AlwaysAllow --read-only-port=0 \
  --cluster-domain=cluster.local --resolv-conf="$state/resolv.conf" \
  --volume-plugin-dir="$kubelet_dir/volume-plugins" --v=1
# --masquerade-all: without br_netfilter a reply from a pod on the same
# bridge would otherwise bypass the Service's DNAT.
run_bg kube-proxy "$kube_bin/kube-proxy" \
  --kubeconfig="$kubeconfig" --hostname-override="$node_name" --proxy-mode=iptables \
  --masquerade-all=true --cluster-cidr="$pod_cidr" \
  --conntrack-max-per-core=0 --conntrack-tcp-timeout-established=0 --conntrack-tcp-timeout-close-wait=0 \
  --metrics-bind-address="127.0.0.1:$(free_port)" --healthz-bind-address="127.0.0.1:$(free_port)" --v=1
wait_for 180 "node $node_name Ready" kctl wait --for=condition=Ready "node/$node_name" --timeout=5s

cat >"$state/cluster.env" <<EOT
E2E_CLUSTER=debian
KUBECONFIG=$kubeconfig
E2E_KUBECTL=$helm_bin/kubectl
E2E_HELM=$helm_bin/helm
E2E_VERSION=$version
E2E_OPERATOR_IMAGE=$operator_image
E2E_WORKER_IMAGE=$worker_image
E2E_FAILING_IMAGE=$failing_image
E2E_FILLER_IMAGE=$filler_image
E2E_REFUSING_IMAGE=$refusing_image
E2E_NODE_NAME=$node_name
E2E_API_URL=https://127.0.0.1:$api_port
E2E_CA_FILE=$pki/ca.crt
E2E_TOKEN_FILE=$pki/token
E2E_POD_CIDR=$pod_cidr
E2E_SERVICE_CIDR=$service_cidr
E2E_CTR="ctr --address $sock -n k8s.io"
EOT
trap - EXIT
log "cluster up: node $node_name Ready; environment in $state/cluster.env"
