#!/usr/bin/env bash
# The e2e suite's cluster on kind (Kubernetes in Docker), for machines with
# Docker and kind: the same scenarios, another set-up. UNTESTED on the
# project's machines (no Docker there); e2e/cluster-debian.sh is the one CI
# runs. Configure with -DDISTBENCH_E2E_CLUSTER=kind to use it.
#
#   e2e/cluster-kind.sh up|down
#
# Kubernetes 1.24 (the last with PodSecurityPolicy, which scenario 01
# needs): E2E_KIND_IMAGE (default kindest/node:v1.24.15). Pods and Services
# in 198.18.0.0/24 and 198.19.0.0/24 as on the Debian cluster, and a host
# route to the pod network through the node container, so Prometheus on the
# host (scenario 09) reaches pod IPs. Images from podman or docker,
# `kind load image-archive`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
E2E_NAME=cluster-kind

cmd=${1:-}
[[ $cmd == up || $cmd == down ]] || { echo "usage: $0 up|down" >&2; exit 2; }
require_root
command -v kind >/dev/null || die "no kind in PATH (https://kind.sigs.k8s.io)"
command -v docker >/dev/null || die "no docker in PATH"

cluster=distbench-e2e
node=$cluster-control-plane
pod_cidr=${E2E_POD_CIDR:-198.18.0.0/24}
service_cidr=${E2E_SERVICE_CIDR:-198.19.0.0/24}
state=$E2E_STATE
version=$(sed -n 's/^project(distbench VERSION \([0-9.]*\).*/\1/p' "$e2e_root/CMakeLists.txt")
helm_bin=${DISTBENCH_HELM_CACHE:-$HOME/.cache/distbench/helm}/bin

if [[ $cmd == down ]]; then
  ip route del "$pod_cidr" 2>/dev/null || true
  kind delete cluster --name "$cluster" || true
  find "$state" -mindepth 1 -maxdepth 1 ! -name logs -exec rm -rf {} + 2>/dev/null || true
  exit 0
fi

mkdir -p "$state"/{logs,pki,helm}
"$e2e_root/scripts/install-helm.sh"
[[ ${E2E_SKIP_IMAGES:-0} == 1 ]] || "$(dirname "${BASH_SOURCE[0]}")/images.sh"
kind delete cluster --name "$cluster" >/dev/null 2>&1 || true
cat >"$state/kind.yaml" <<EOT
kind: Cluster
apiVersion: kind.x-k8s.io/v1alpha4
networking: {podSubnet: "$pod_cidr", serviceSubnet: "$service_cidr"}
kubeadmConfigPatches:
  - |
    kind: ClusterConfiguration
    apiServer:
      extraArgs:
        enable-admission-plugins: NodeRestriction,PodSecurityPolicy
EOT
# With PodSecurityPolicy on, kube-system's pods need a policy before they
# can start: kind creates the cluster, then the manifest goes in at once.
kind create cluster --name "$cluster" --image "${E2E_KIND_IMAGE:-kindest/node:v1.24.15}" \
  --config "$state/kind.yaml" --kubeconfig "$state/admin.kubeconfig" --wait 0s
kctl() { "$helm_bin/kubectl" --kubeconfig="$state/admin.kubeconfig" "$@"; }
wait_for 120 "applying manifests/psp.yaml" kctl apply -f "$e2e_root/e2e/manifests/psp.yaml"
wait_for 300 "node $node Ready" kctl wait --for=condition=Ready "node/$node" --timeout=5s

for image in operator worker worker-failing worker-filler worker-refusing; do
  archive=$state/$image.tar
  podman --runtime runc save --format oci-archive -o "$archive" "localhost/distbench/$image:$version"
  kind load image-archive "$archive" --name "$cluster"
  rm -f "$archive"
done
node_ip=$(docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$node")
ip route replace "$pod_cidr" via "$node_ip"

# A token and the CA for Prometheus (scenario 09): the admin's client
# certificate is not a bearer token, so a ServiceAccount with cluster-admin.
kctl -n kube-system create serviceaccount e2e-admin >/dev/null 2>&1 || true
kctl create clusterrolebinding e2e-admin --clusterrole=cluster-admin \
  --serviceaccount=kube-system:e2e-admin >/dev/null 2>&1 || true
kctl -n kube-system create token e2e-admin --duration=24h >"$state/pki/token"
kctl config view --raw -o jsonpath='{.clusters[0].cluster.certificate-authority-data}' |
  base64 -d >"$state/pki/ca.crt"
cat >"$state/cluster.env" <<EOT
E2E_CLUSTER=kind
KUBECONFIG=$state/admin.kubeconfig
E2E_KUBECTL=$helm_bin/kubectl
E2E_HELM=$helm_bin/helm
E2E_VERSION=$version
E2E_OPERATOR_IMAGE=localhost/distbench/operator:$version
E2E_WORKER_IMAGE=localhost/distbench/worker:$version
E2E_FAILING_IMAGE=localhost/distbench/worker-failing:$version
E2E_FILLER_IMAGE=localhost/distbench/worker-filler:$version
E2E_REFUSING_IMAGE=localhost/distbench/worker-refusing:$version
E2E_NODE_NAME=$node
E2E_API_URL=$(kctl config view -o jsonpath='{.clusters[0].cluster.server}')
E2E_CA_FILE=$state/pki/ca.crt
E2E_TOKEN_FILE=$state/pki/token
E2E_POD_CIDR=$pod_cidr
E2E_SERVICE_CIDR=$service_cidr
E2E_CTR="docker exec $node ctr -n k8s.io"
EOT
log "cluster up (kind): environment in $state/cluster.env"
