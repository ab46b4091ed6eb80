#!/usr/bin/env bash
# Builds kube-apiserver and kube-controller-manager (Kubernetes 1.20.2, from
# Debian's source package) for the operator tests, which start a real API
# server and etcd on loopback (testing/include/distbench/testing/kube/kube_test_cluster.h).
#
#   DISTBENCH_KUBE_CACHE  where the sources and binaries live
#                         (default: ~/.cache/distbench/kube); the binaries
#                         end up in $DISTBENCH_KUBE_CACHE/bin
#   DISTBENCH_KUBE_NODE   1: also kube-scheduler, kubelet and kube-proxy for
#                         the e2e node (scripts/test.sh sets it when the e2e
#                         suite is on), in the same build: the code
#                         generators run once and shared packages compile once
#
# Safe to run again: when both binaries are in the cache and answer
# --version, and etcd is on PATH, it exits in well under a second without
# touching apt. The first run is the Go build, under nice: 192 s for all
# five binaries on a quiet 2-vCPU machine (docs/testing.md). Debian ships no kube-apiserver binary; only the
# source package builds, and only with the reflect2 fix below (see
# docs/testing.md).
set -euo pipefail

start=$EPOCHREALTIME
cache=${DISTBENCH_KUBE_CACHE:-$HOME/.cache/distbench/kube}
bin=$cache/bin
binaries=(kube-apiserver kube-controller-manager)
[[ ${DISTBENCH_KUBE_NODE:-0} == 1 ]] && binaries+=(kube-scheduler kubelet kube-proxy)

log() { echo "install-kube-apiserver: $*"; }
elapsed() { awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1fs", b - a }'; }

answers() { [[ -x $bin/$1 ]] && "$bin/$1" --version >/dev/null 2>&1; }
built() {
  local b
  for b in "${binaries[@]}"; do answers "$b" || return 1; done
}
cached() { command -v etcd >/dev/null && built; }

if cached; then
  log "cached in $bin ($("$bin/kube-apiserver" --version)), etcd at $(command -v etcd); took $(elapsed)"
  exit 0
fi

source "$(dirname "${BASH_SOURCE[0]}")/apt-as-root.sh"

# 1. Packages: the Go toolchain and what Kubernetes' make rules call, etcd,
#    the reflect2 sources, openssl (the test fixture makes its certificates
#    with it) and dpkg-dev (apt-get source unpacks with dpkg-source).
PACKAGES=(golang-go rsync jq etcd-server golang-github-modern-go-reflect2-dev
          openssl dpkg-dev make)
source "$(dirname "${BASH_SOURCE[0]}")/missing-packages.sh"
missing_packages "${PACKAGES[@]}"

# 2. deb-src: add it to the Types: lines of the deb822 sources (Debian 12's
#    default) or, with a classic sources.list, mirror each deb line.
updated=0
sources=/etc/apt/sources.list.d/debian.sources
if ! apt-cache showsrc kubernetes 2>/dev/null | grep -q '^Package: kubernetes'; then
  if [[ -f $sources ]]; then
    if grep -q '^Types: deb$' "$sources"; then
      log "enabling deb-src in $sources"
      "${as_root[@]}" sed -i 's/^Types: deb$/Types: deb deb-src/' "$sources"
    fi
  elif [[ -f /etc/apt/sources.list ]] && ! grep -q '^deb-src ' /etc/apt/sources.list; then
    log "enabling deb-src in /etc/apt/sources.list"
    grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' |
      "${as_root[@]}" tee -a /etc/apt/sources.list >/dev/null
  fi
  log "apt-get update"
  "${apt_get[@]}" update
  updated=1
fi

if ((${#missing[@]})); then
  log "installing ${missing[*]}"
  ((updated)) || "${apt_get[@]}" update
  "${apt_get[@]}" install -y --no-install-recommends "${missing[@]}"
fi

if built; then
  log "binaries already in $bin; only the packages were missing"
else
  # 3. The source package, unpacked once into the cache.
  mkdir -p "$cache/src" "$bin"
  src=$(find "$cache/src" -mindepth 1 -maxdepth 1 -type d -name 'kubernetes-*' | sort | tail -n1)
  if [[ -z $src || ! -f $src/.distbench-unpacked ]]; then
    log "apt-get source kubernetes into $cache/src"
    rm -rf "$cache/src"/kubernetes-*
    (cd "$cache/src" && apt-get -q source kubernetes)
    src=$(find "$cache/src" -mindepth 1 -maxdepth 1 -type d -name 'kubernetes-*' | sort | tail -n1)
    [[ -n $src ]] || { log "apt-get source left no kubernetes-* directory in $cache/src" >&2; exit 1; }
    touch "$src/.distbench-unpacked"
  fi
  log "sources: $src"

  # 4. The vendored reflect2 (1.0.1) crashes with SIGSEGV under Go 1.18+;
  #    Debian's packaged one (1.0.2) works. Its go.mod and tests must go: the
  #    vendor tree has neither.
  if [[ ! -f $src/.distbench-reflect2 ]]; then
    log "replacing vendor/github.com/modern-go/reflect2 with Debian's"
    vendored=$src/vendor/github.com/modern-go/reflect2
    rm -rf "$vendored"
    cp -r /usr/share/gocode/src/github.com/modern-go/reflect2 "$vendored"
    rm -f "$vendored/go.mod" "$vendored/go.sum"
    find "$vendored" -name '*_test.go' -delete
    touch "$src/.distbench-reflect2"
  fi

  # 5. Build. KUBE_GIT_VERSION stands in for the git tree the version script
  #    looks for. Debian's version reads like 1.20.5+really1.20.2-1: the
  #    upstream one is what follows "really".
  version=$(cd "$src" && dpkg-parsechangelog -S Version 2>/dev/null || true)
  version=${version#*:}
  version=${version##*really}
  version=${version%%[-+~]*}
  [[ -n $version ]] || version=1.20.2
  unbuilt=()
  for b in "${binaries[@]}"; do answers "$b" || unbuilt+=("$b"); done
  targets=()
  for b in "${unbuilt[@]}"; do targets+=("cmd/$b"); done
  log "building ${targets[*]} (v$version) under nice; the first build takes minutes"
  build_start=$EPOCHREALTIME
  # providerless and dockerless leave out the in-tree cloud providers and
  # the kubelet's dockershim (the e2e node runs containerd over CRI): 39 %
  # fewer lines of Go to compile (2.74 M to 1.67 M for the five binaries),
  # Kubernetes' own supported build tags (hack/verify-typecheck-providerless.sh).
  (cd "$src" &&
    KUBE_GIT_VERSION=v$version KUBE_GIT_TREE_STATE=clean GOFLAGS=-tags=providerless,dockerless \
    nice -n 19 make WHAT="${targets[*]}")
  log "build took $(awk -v a="$build_start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0fs", b - a }')"

  for b in "${unbuilt[@]}"; do
    output=$(find "$src/_output" -type f -name "$b" -perm -u+x | head -n1)
    [[ -n $output ]] || { log "make left no $b under $src/_output" >&2; exit 1; }
    install -m 0755 "$output" "$bin/$b"
    log "installed $bin/$b: $("$bin/$b" --version)"
  done
fi

command -v etcd >/dev/null || { log "etcd is not on PATH (etcd-server installs /usr/bin/etcd)" >&2; exit 1; }
cached || { log "the installed binaries do not answer --version" >&2; exit 1; }
log "done in $(elapsed); etcd at $(command -v etcd)"
