#!/usr/bin/env bash
# Installs the chart libraries that `distbench report` bundles into its HTML
# page (Vega, Vega-Lite, vega-embed), at the exact versions of
# cli/chart-libraries/package-lock.json, into a cache that the build embeds
# into the distbench binary (cli/CMakeLists.txt, DISTBENCH_REPORT_HTML).
#
#   DISTBENCH_CHART_LIBRARIES_CACHE  cache directory (default:
#                                    ~/.cache/distbench/chart-libraries); the
#                                    files end up in a subdirectory named after
#                                    the lockfile's SHA-256, which is where
#                                    CMake looks for them
#
# Safe to run again: when that subdirectory is complete it exits in well
# under a second without touching npm or apt. Otherwise it installs nodejs
# and npm from Debian if `npm` is missing, runs `npm ci` on a copy of
# cli/chart-libraries (so npm checks every tarball against the lockfile's
# integrity hash, and installs nothing the lockfile does not name), and
# copies the minified builds and their licences into the cache.
set -euo pipefail

start=$EPOCHREALTIME
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
manifest=$root/cli/chart-libraries
cache=${DISTBENCH_CHART_LIBRARIES_CACHE:-$HOME/.cache/distbench/chart-libraries}
# Named by the lockfile's hash: a change of versions is a new directory, so a
# stale cache can never be mistaken for the pinned one. CMake computes the same name.
lock_hash=$(sha256sum "$manifest/package-lock.json" | cut -c1-16)
dir=$cache/$lock_hash
# package name, file inside the package, file in the cache
files=(
  "vega build/vega.min.js vega.min.js"
  "vega-lite build/vega-lite.min.js vega-lite.min.js"
  "vega-embed build/vega-embed.min.js vega-embed.min.js"
  "vega LICENSE vega.LICENSE"
  "vega-lite LICENSE vega-lite.LICENSE"
  "vega-embed LICENSE vega-embed.LICENSE"
)

log() { echo "install-chart-libraries: $*"; }
elapsed() { awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2fs", b - a }'; }

# .complete is written last, so an interrupted install is never trusted.
if [[ -f $dir/.complete ]]; then
  log "cached in $dir ($(cat "$dir/.complete")); took $(elapsed)"
  exit 0
fi

# 1. npm from Debian when the command is missing. Checked by command, not by
#    package: a NodeSource nodejs ships its own npm and conflicts with
#    Debian's npm package.
if ! command -v npm >/dev/null; then
  source "$root/scripts/apt-as-root.sh"
  apt_install_missing nodejs npm || exit 1
fi

# 2. npm ci in a scratch copy: the repository stays free of node_modules.
#    --ignore-scripts: nothing from the registry runs here. Engine checks off:
#    only the prebuilt browser files are used, never run by this node.
work=$(mktemp -d "${TMPDIR:-/tmp}/distbench-chart-libraries.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$manifest/package.json" "$manifest/package-lock.json" "$work/"
log "npm ci (cli/chart-libraries/package-lock.json)"
(cd "$work" && npm ci --ignore-scripts --no-audit --no-fund --engine-strict=false \
  --loglevel=error >npm.out 2>&1) || {
  cat "$work/npm.out" >&2
  log "npm ci failed" >&2
  exit 1
}

# 3. Into the cache: assembled beside it, then renamed into place.
mkdir -p "$cache"
stage=$(mktemp -d "$cache/.incoming.XXXXXX")
chmod 755 "$stage"
versions=()
for entry in "${files[@]}"; do
  read -r package path name <<<"$entry"
  src=$work/node_modules/$package/$path
  [[ -s $src ]] || { log "npm ci left no $package/$path" >&2; rm -rf "$stage"; exit 1; }
  cp "$src" "$stage/$name"
done
for package in vega vega-lite vega-embed; do
  versions+=("$package $(node -p "require('$work/node_modules/$package/package.json').version")")
done
summary=$(IFS=,; echo "${versions[*]}" | sed 's/,/, /g')
echo "$summary" >"$stage/.complete"
rm -rf "$dir"
mv "$stage" "$dir"
log "installed $summary in $dir; took $(elapsed)"
