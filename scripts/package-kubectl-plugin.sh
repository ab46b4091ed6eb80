#!/usr/bin/env bash
# kubectl-distbench as one archive that runs on another Linux amd64 machine,
# and the krew manifest that installs it:
#
#   scripts/package-kubectl-plugin.sh BIN_DIR OUT_DIR [URI]
#
# BIN_DIR holds the built kubectl-distbench (build/bin). OUT_DIR gets
# kubectl-distbench_linux_amd64.tar.gz (the binary, the completion script
# and, in lib/, every shared library it loads but glibc's: libstdc++,
# cpprest, yaml-cpp, OpenSSL, brotli, zlib; the binary's DT_RPATH is
# $ORIGIN/lib, which applies to those libraries' own dependencies too) and
# distbench.yaml, a krew manifest whose uri is URI (default: the archive as
# a file:// URI) and whose sha256 is the archive's (spec.homepage from
# $DISTBENCH_HOMEPAGE, which krew's index asks for). Install from them with
#   kubectl krew install --manifest=OUT_DIR/distbench.yaml \
#     --archive=OUT_DIR/kubectl-distbench_linux_amd64.tar.gz
# The machine needs glibc as new as the building one's (said in the
# manifest's caveats). Then the archive is checked: unpacked elsewhere, it
# must load nothing outside itself but glibc, and answer --help with an
# empty environment.
set -euo pipefail
bin_dir=${1:?usage: package-kubectl-plugin.sh BIN_DIR OUT_DIR [URI]}
out_dir=${2:?usage: package-kubectl-plugin.sh BIN_DIR OUT_DIR [URI]}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
plugin=$bin_dir/kubectl-distbench
[[ -x $plugin ]] || { echo "package-kubectl-plugin: no $plugin: build the kubectl-distbench target" >&2; exit 2; }
# 77: ctest's skip (SKIP_RETURN_CODE), not a failure, elsewhere.
[[ $(uname -m) == x86_64 ]] || { echo "package-kubectl-plugin: builds linux/amd64 only, this is $(uname -m)" >&2; exit 77; }

# glibc's own libraries stay the system's: they cannot be mixed with another glibc.
is_glibc() {
  case $(basename "$1") in
    libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*.so.* | libresolv.so.* | \
      libutil.so.* | libanl.so.* | libmvec.so.* | libnss_*.so.* | libthread_db.so.* | libBrokenLocale.so.*) return 0 ;;
  esac
  return 1
}

mkdir -p "$out_dir"
out_dir=$(cd "$out_dir" && pwd)
stage=$(mktemp -d)
check=$(mktemp -d)
trap 'rm -rf "$stage" "$check"' EXIT
name=kubectl-distbench_linux_amd64
mkdir -p "$stage/$name/lib"
install -m 0755 "$plugin" "$root/plugin/kubectl_complete-distbench" "$stage/$name/"
deps=$(ldd "$plugin")
if grep 'not found' <<<"$deps" >/dev/null; then
  echo "package-kubectl-plugin: $plugin needs libraries this machine lacks:" >&2
  grep 'not found' <<<"$deps" >&2
  exit 1
fi
while read -r lib; do
  is_glibc "$lib" && continue
  install -m 0644 "$(readlink -f "$lib")" "$stage/$name/lib/$(basename "$lib")"
done < <(awk '$2 == "=>" && $3 ~ /^\// { print $3 }' <<<"$deps")
# grep without -q throughout: it reads its whole input, so the writer never
# dies of SIGPIPE under pipefail.
# Exactly that: an empty entry (a trailing ':') would load from the working
# directory.
readelf -d "$plugin" | grep '(RPATH) *Library rpath: \[\$ORIGIN/lib\]$' >/dev/null || {
  echo "package-kubectl-plugin: $plugin's DT_RPATH is not exactly \$ORIGIN/lib (plugin/CMakeLists.txt links it so): $(readelf -d "$plugin" | grep -E 'R(UN)?PATH')" >&2
  exit 1
}
archive=$out_dir/$name.tar.gz
# Reproducible: fixed order, owner and times.
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$stage" -cf - "$name" |
  gzip -n >"$archive"
sha=$(sha256sum "$archive" | cut -d' ' -f1)
version=$("$plugin" --version | awk '{ print $2 }')
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+ ]] ||
  { echo "package-kubectl-plugin: '$plugin --version' gave no version: '$version'" >&2; exit 1; }
uri=${3:-file://$archive}
glibc=$(getconf GNU_LIBC_VERSION | awk '{ print $2 }')
# krew's index wants a homepage; a manifest installed by hand does not.
homepage=${DISTBENCH_HOMEPAGE:+  homepage: \"$DISTBENCH_HOMEPAGE\"
}
cat >"$out_dir/distbench.yaml" <<MANIFEST
apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: distbench
spec:
  version: v$version
$homepage  shortDescription: Run and read distbench benchmarks of distributed PyTorch
  description: |
    kubectl distbench applies a DistBenchmark and follows it to its end
    (phase, progress, gang restarts), prints the master's table, writes the
    HTML page of a run or of a schedule's trend, compares runs, predicts a
    run at another link speed, and shows a rank's log across gang restarts.
    Every request goes through your kubectl, so kubeconfig, context and
    credential plugins apply as they do for kubectl.
  caveats: |
    Needs the distbench operator in the cluster (its Helm chart), and glibc
    $glibc or newer on this machine.
  platforms:
    - selector:
        matchLabels:
          os: linux
          arch: amd64
      uri: "$uri"
      sha256: $sha
      bin: kubectl-distbench
      files:
        - from: $name/*
          to: .
MANIFEST

# The check: unpacked elsewhere, with nothing of this machine's environment.
tar -C "$check" -xzf "$archive"
unpacked=$check/$name
loaded=$(env -i ldd "$unpacked/kubectl-distbench")
outside=$(awk '$2 == "=>" { print $1 " => " $3 }' <<<"$loaded" | while read -r soname _ lib; do
  [[ $lib == "$unpacked/lib/"* ]] || is_glibc "$lib" || echo "$soname ($lib)"
done)
[[ -z $outside ]] || { echo "package-kubectl-plugin: the unpacked plugin loads from outside itself: $outside" >&2; exit 1; }
(cd / && env -i "$unpacked/kubectl-distbench" --help) | grep '^usage: kubectl distbench' >/dev/null ||
  { echo "package-kubectl-plugin: the unpacked plugin does not answer --help" >&2; exit 1; }
python3 - "$out_dir/distbench.yaml" "$sha" <<'PY'
import sys, yaml
m = yaml.safe_load(open(sys.argv[1]))
assert m["apiVersion"] == "krew.googlecontainertools.github.com/v1alpha2" and m["kind"] == "Plugin", m
s = m["spec"]
for field in ("version", "shortDescription", "platforms"):
    assert s.get(field), "spec." + field + " missing"
assert s["version"].startswith("v"), "krew wants a v-prefixed semver: " + s["version"]
p = s["platforms"][0]
assert p["sha256"] == sys.argv[2] and p["bin"] == "kubectl-distbench" and p["uri"], p
PY
echo "package-kubectl-plugin: $archive ($(du -h "$archive" | cut -f1), sha256 $sha), $out_dir/distbench.yaml; unpacked elsewhere it loads only itself and glibc"
