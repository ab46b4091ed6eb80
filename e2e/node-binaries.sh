#!/usr/bin/env bash
# kube-scheduler, kubelet and kube-proxy for the e2e node, built from the
# Debian `kubernetes` source tree scripts/install-kube-apiserver.sh unpacked
# and patched (same version, same Go build cache), into its bin/. Minutes
# the first time (nice 19), under a second once they answer --version.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
E2E_NAME=node-binaries

kube_cache=${DISTBENCH_KUBE_CACHE:-$HOME/.cache/distbench/kube}
kube_bin=$kube_cache/bin
"$e2e_root/scripts/install-kube-apiserver.sh"

need=()
for b in kube-scheduler kubelet kube-proxy; do
  "$kube_bin/$b" --version >/dev/null 2>&1 || need+=("cmd/$b")
done
((${#need[@]})) || { log "cached in $kube_bin ($("$kube_bin/kubelet" --version))"; exit 0; }

src=$(find "$kube_cache/src" -mindepth 1 -maxdepth 1 -type d -name 'kubernetes-*' | sort | tail -n1)
[[ -n $src && -f $src/.distbench-reflect2 ]] || die "no patched kubernetes source in $kube_cache/src"
version=$("$kube_bin/kube-apiserver" --version | awk '{print $2}')
log "building ${need[*]} ($version) under nice 19; minutes the first time"
t0=$(date +%s)
buildlog=$(mktemp "${TMPDIR:-/tmp}/distbench-kube-build.XXXXXX")
(cd "$src" && KUBE_GIT_VERSION=$version KUBE_GIT_TREE_STATE=clean \
  nice -n 19 make WHAT="${need[*]}") >"$buildlog" 2>&1 ||
  { tail -n 30 "$buildlog" >&2; die "make WHAT=${need[*]} (log: $buildlog)"; }
for target in "${need[@]}"; do
  b=${target#cmd/}
  out=$(find "$src/_output" -type f -name "$b" -perm -u+x | head -n1)
  [[ -n $out ]] || die "make left no $b under $src/_output"
  install -m 0755 "$out" "$kube_bin/$b"
done
rm -f "$buildlog"
log "built ${need[*]} in $(($(date +%s) - t0))s"
