#!/usr/bin/env bash
# Builds distbench's container images with podman, without a Docker engine or
# a registry:
#
#   dockerfiles/build-images.sh [operator] [worker]     (default: both)
#
# gives localhost/distbench/operator:<version> and
# localhost/distbench/worker:<version> (<version> from the top
# CMakeLists.txt). The base of both stages is BASE_IMAGE; by default
# localhost/debian:bookworm, which this script makes when podman does not
# have it: `debootstrap --variant=minbase bookworm` into a tarball cached in
# $DISTBENCH_IMAGE_CACHE (one-off, a few minutes), then `podman import`.
# With a registry at hand, BASE_IMAGE=debian:bookworm skips all that.
#
#   BASE_IMAGE               base image (default: localhost/debian:bookworm)
#   DISTBENCH_IMAGE_PREFIX   repository prefix (default: localhost/distbench)
#   DISTBENCH_IMAGE_TAG      tag (default: the project's version)
#   DISTBENCH_IMAGE_CACHE    debootstrap tarball cache
#                            (default: ~/.cache/distbench/images)
#   DISTBENCH_DEBIAN_MIRROR  debootstrap's mirror (default: http://deb.debian.org/debian)
#   DISTBENCH_JOBS           compile jobs inside the build (default: 2)
#   PODMAN                   the podman command (default: podman --runtime runc)
#   DISTBENCH_PREBUILT_BIN   a host build's bin/ directory (e.g. build/bin): put
#                            its binaries, debug info stripped, on the same
#                            runtime stage (`--target prebuilt`) instead of
#                            compiling in the builder stage. Seconds instead
#                            of minutes; the host must be Debian 12 like the
#                            image (the image's ldd check says otherwise).
#
# Everything heavy (debootstrap, the builds) runs under nice -n 19: the
# machines are shared. The worker image compiles LibTorch code: about 5
# minutes on 2 shared cores the first time; ccache (a build cache mount)
# makes rebuilds fast. Needs root or sudo for debootstrap and, when missing, to
# install podman, runc and debootstrap from Debian.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { echo "build-images: $*"; }
now() { date +%s; }

version=$(sed -n 's/^project(distbench VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
[[ -n $version ]] || { log "cannot read the project version from $root/CMakeLists.txt" >&2; exit 1; }
tag=${DISTBENCH_IMAGE_TAG:-$version}
prefix=${DISTBENCH_IMAGE_PREFIX:-localhost/distbench}
base=${BASE_IMAGE:-localhost/debian:bookworm}
cache=${DISTBENCH_IMAGE_CACHE:-$HOME/.cache/distbench/images}
mirror=${DISTBENCH_DEBIAN_MIRROR:-http://deb.debian.org/debian}
jobs=${DISTBENCH_JOBS:-2}
read -r -a podman <<<"${PODMAN:-podman --runtime runc}"

images=("$@")
((${#images[@]})) || images=(operator worker)
for image in "${images[@]}"; do
  [[ -f $root/dockerfiles/$image.Dockerfile ]] ||
    { log "no dockerfiles/$image.Dockerfile (images: operator, worker)" >&2; exit 2; }
done

source "$root/scripts/apt-as-root.sh"

# 1. podman, runc and debootstrap from Debian, when missing.
missing=()
command -v podman >/dev/null || missing+=(podman)
command -v runc >/dev/null || missing+=(runc)
command -v debootstrap >/dev/null || [[ -x /usr/sbin/debootstrap ]] || missing+=(debootstrap)
if ((${#missing[@]})); then
  [[ ${as_root[0]:-} != false ]] || { log "not root and no sudo; as root, run: apt-get install ${missing[*]}" >&2; exit 1; }
  log "installing ${missing[*]}"
  "${apt_get[@]}" update
  "${apt_get[@]}" install -y --no-install-recommends "${missing[@]}"
fi

# 2. These machines refuse the default ulimits podman sets on containers;
#    an empty list keeps the host's (docs/deploy.md).
conf=/etc/containers/containers.conf
if ! grep -qs '^[[:space:]]*default_ulimits' "$conf"; then
  if [[ ${as_root[0]:-} != false ]]; then
    log "setting default_ulimits = [] in $conf"
    if grep -qs '^\[containers\]' "$conf"; then
      "${as_root[@]}" sed -i '/^\[containers\]/a default_ulimits = []' "$conf"
    else
      printf '[containers]\ndefault_ulimits = []\n' | "${as_root[@]}" tee -a "$conf" >/dev/null
    fi
  else
    log "warning: $conf sets no default_ulimits and there is no root to set it" >&2
  fi
fi

# 3. The base image.
if "${podman[@]}" image exists "$base"; then
  log "base image $base: present"
elif [[ $base == localhost/debian:bookworm ]]; then
  tarball=$cache/debian-bookworm-minbase.tar
  if [[ ! -s $tarball ]]; then
    [[ ${as_root[0]:-} != false ]] || { log "debootstrap needs root" >&2; exit 1; }
    mkdir -p "$cache"
    rootfs=$(mktemp -d "${TMPDIR:-/tmp}/distbench-rootfs.XXXXXX")
    trap '"${as_root[@]}" rm -rf "$rootfs"' EXIT
    log "debootstrap --variant=minbase bookworm from $mirror (one-off; cached in $tarball)"
    t0=$(now)
    "${as_root[@]}" nice -n 19 debootstrap --variant=minbase bookworm "$rootfs" "$mirror"
    # Updates and security fixes too, as a stock debian:bookworm has them;
    # no package lists or downloaded .debs in the image.
    printf '%s\n' "deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
      "deb http://deb.debian.org/debian-security bookworm-security main" |
      "${as_root[@]}" tee "$rootfs/etc/apt/sources.list" >/dev/null
    "${as_root[@]}" rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/archives/*.deb
    "${as_root[@]}" tar -C "$rootfs" --numeric-owner -cf "$tarball.tmp" .
    "${as_root[@]}" chown "$(id -u):$(id -g)" "$tarball.tmp"
    mv -f "$tarball.tmp" "$tarball"
    "${as_root[@]}" rm -rf "$rootfs"
    trap - EXIT
    log "debootstrap took $(($(now) - t0))s"
  fi
  log "podman import $tarball as $base"
  "${podman[@]}" import --change 'CMD ["/bin/bash"]' "$tarball" "$base" >/dev/null
else
  log "base image $base: pulling"
  "${podman[@]}" pull "$base"
fi

# 4. The images, one after another (the shared builder layers are built once).
declare -A prebuilt_binaries=([operator]="distbench-operator" [worker]="distbench-worker distbench")
for image in "${images[@]}"; do
  ref=$prefix/$image:$tag
  context=$root
  target=()
  if [[ -n ${DISTBENCH_PREBUILT_BIN:-} ]]; then
    # A context of just the binaries: the repository's .containerignore
    # leaves build directories out, and nothing else is needed.
    context=$(mktemp -d "${TMPDIR:-/tmp}/distbench-prebuilt.XXXXXX")
    mkdir "$context/bin"
    for b in ${prebuilt_binaries[$image]}; do
      [[ -x $DISTBENCH_PREBUILT_BIN/$b ]] ||
        { log "DISTBENCH_PREBUILT_BIN=$DISTBENCH_PREBUILT_BIN has no $b" >&2; rm -rf "$context"; exit 1; }
      objcopy --strip-debug "$DISTBENCH_PREBUILT_BIN/$b" "$context/bin/$b"
    done
    target=(--target prebuilt)
    log "building $ref from the binaries in $DISTBENCH_PREBUILT_BIN (BASE_IMAGE=$base)"
  else
    log "building $ref (BASE_IMAGE=$base, $jobs jobs, nice 19)"
  fi
  t0=$(now)
  rc=0
  nice -n 19 "${podman[@]}" build \
    --build-arg BASE_IMAGE="$base" \
    --build-arg JOBS="$jobs" \
    --build-arg VERSION="$version" \
    "${target[@]}" \
    -f "$root/dockerfiles/$image.Dockerfile" \
    -t "$ref" \
    "$context" || rc=$?
  [[ $context == "$root" ]] || rm -rf "$context"
  ((rc == 0)) || exit "$rc"
  log "built $ref in $(($(now) - t0))s"
done
"${podman[@]}" images --filter "reference=$prefix/*"
