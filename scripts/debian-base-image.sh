#!/usr/bin/env bash
# Makes the podman image localhost/debian:SUITE without a registry:
#
#   scripts/debian-base-image.sh SUITE        (SUITE: bookworm | trixie)
#
# `debootstrap --variant=minbase SUITE` into a tarball cached in
# $DISTBENCH_IMAGE_CACHE (one-off: about a minute on these machines), then
# `podman import`. Does nothing when podman already has the image; imports
# the cached tarball (seconds) when only the image was lost.
#
#   bookworm  Debian 12, component main (with bookworm-updates and
#             bookworm-security), what dockerfiles/build-images.sh builds on
#   trixie    Debian 13, components main, contrib and non-free (and
#             trixie-updates, trixie-security): LibTorch 2.6 (libtorch-dev,
#             main) and its CUDA build (libtorch-cuda-dev, contrib), CUDA 12.4
#             and NCCL (non-free), for scripts/check-libtorch2.sh and
#             scripts/check-cuda-build.sh
#
# The image has apt's sources but no package lists or downloaded .debs, as a
# stock debian:SUITE has; its CMD is /bin/bash.
#
#   DISTBENCH_IMAGE_CACHE    tarball cache (default: ~/.cache/distbench/images)
#   DISTBENCH_DEBIAN_MIRROR  debootstrap's and apt's mirror
#                            (default: http://deb.debian.org/debian)
#   PODMAN                   the podman command (default: podman --runtime runc)
#
# Needs root or sudo for debootstrap (and to install podman, runc and
# debootstrap from Debian when missing). Runs debootstrap under nice -n 19.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { echo "debian-base-image: $*"; }
now() { date +%s; }

suite=${1:-}
case $suite in
  bookworm) components=main ;;
  trixie) components=main,contrib,non-free ;;
  *) echo "usage: $0 bookworm|trixie" >&2; exit 2 ;;
esac
image=localhost/debian:$suite
cache=${DISTBENCH_IMAGE_CACHE:-$HOME/.cache/distbench/images}
mirror=${DISTBENCH_DEBIAN_MIRROR:-http://deb.debian.org/debian}

source "$root/dockerfiles/podman-env.sh"

if "${podman[@]}" image exists "$image"; then
  log "$image: present"
  exit 0
fi

# The container checks may ask for the same suite at once (ctest runs
# libtorch2 beside cuda-build-deps): one debootstrap, the other waits.
mkdir -p "$cache"
exec 8>"$cache/debian-$suite.lock"
flock 8
if "${podman[@]}" image exists "$image"; then
  log "$image: present"
  exit 0
fi

tarball=$cache/debian-$suite-minbase.tar
if [[ ! -s $tarball ]]; then
  [[ ${as_root[0]:-} != false ]] || { log "debootstrap needs root" >&2; exit 1; }
  rootfs=$(mktemp -d "${TMPDIR:-/tmp}/distbench-rootfs.XXXXXX")
  trap '"${as_root[@]}" rm -rf "$rootfs"' EXIT
  log "debootstrap --variant=minbase --components=$components $suite from $mirror (one-off; cached in $tarball)"
  t0=$(now)
  "${as_root[@]}" nice -n 19 debootstrap --variant=minbase --components="$components" \
    "$suite" "$rootfs" "$mirror"
  # Updates and security fixes too, as a stock debian:SUITE has them.
  comps=${components//,/ }
  printf '%s\n' "deb $mirror $suite $comps" "deb $mirror $suite-updates $comps" \
    "deb http://deb.debian.org/debian-security $suite-security $comps" |
    "${as_root[@]}" tee "$rootfs/etc/apt/sources.list" >/dev/null
  "${as_root[@]}" rm -f "$rootfs/etc/apt/sources.list.d/debian.sources"
  "${as_root[@]}" rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/archives/*.deb
  "${as_root[@]}" tar -C "$rootfs" --numeric-owner -cf "$tarball.tmp" .
  "${as_root[@]}" chown "$(id -u):$(id -g)" "$tarball.tmp"
  mv -f "$tarball.tmp" "$tarball"
  "${as_root[@]}" rm -rf "$rootfs"
  trap - EXIT
  log "debootstrap took $(($(now) - t0))s"
fi
log "podman import $tarball as $image"
"${podman[@]}" import --change 'CMD ["/bin/bash"]' "$tarball" "$image" >/dev/null
log "$image: $("${podman[@]}" images --format '{{.ID}}, {{.Size}}' "$image")"
