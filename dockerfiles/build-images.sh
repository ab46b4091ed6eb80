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
# have it with scripts/debian-base-image.sh: `debootstrap --variant=minbase
# bookworm` into a tarball cached in $DISTBENCH_IMAGE_CACHE (one-off, a few
# minutes), then `podman import`. With a registry at hand,
# BASE_IMAGE=debian:bookworm skips all that.
#
#   BASE_IMAGE               base image (default: localhost/debian:bookworm)
#   DISTBENCH_IMAGE_PREFIX   repository prefix (default: localhost/distbench)
#   DISTBENCH_IMAGE_TAG      tag (default: the project's version)
#   DISTBENCH_IMAGE_CACHE    debootstrap tarball cache
#                            (default: ~/.cache/distbench/images; scripts/debian-base-image.sh)
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
jobs=${DISTBENCH_JOBS:-2}

images=("$@")
((${#images[@]})) || images=(operator worker)
for image in "${images[@]}"; do
  [[ -f $root/dockerfiles/$image.Dockerfile ]] ||
    { log "no dockerfiles/$image.Dockerfile (images: operator, worker)" >&2; exit 2; }
done

# 1. podman, runc and debootstrap from Debian when missing, and podman's
#    default_ulimits (dockerfiles/podman-env.sh).
source "$root/dockerfiles/podman-env.sh"

# 2. The base image: scripts/debian-base-image.sh makes localhost/debian:SUITE
#    (debootstrap, cached as a tarball); any other is pulled.
if "${podman[@]}" image exists "$base"; then
  log "base image $base: present"
elif [[ $base =~ ^localhost/debian:(bookworm|trixie)$ ]]; then
  "$root/scripts/debian-base-image.sh" "${BASH_REMATCH[1]}"
else
  log "base image $base: pulling"
  "${podman[@]}" pull "$base"
fi

# 3. The images, one after another (the shared builder layers are built once).
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
