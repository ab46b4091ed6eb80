#!/usr/bin/env bash
# The images the e2e cluster runs, in podman: the operator and worker images
# (dockerfiles/build-images.sh; from a host build's binaries when E2E_BIN
# is set, which takes seconds, else compiled from source, minutes), and a
# pause image for pod sandboxes (no registry to pull one from).
#
#   E2E_BIN  a Debian 12 host build's bin/ (default: none: from source)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
E2E_NAME=images

version=$(sed -n 's/^project(distbench VERSION \([0-9.]*\).*/\1/p' "$e2e_root/CMakeLists.txt")
pause_image=localhost/distbench/pause:1.0
podman=(podman --runtime runc)

t0=$(date +%s)
if [[ -n ${E2E_BIN:-} ]]; then
  DISTBENCH_PREBUILT_BIN=$E2E_BIN "$e2e_root/dockerfiles/build-images.sh" operator worker
else
  "$e2e_root/dockerfiles/build-images.sh" operator worker
fi
log "operator and worker images in $(($(date +%s) - t0))s"

# A static program that sleeps and reaps children, FROM scratch.
if ! "${podman[@]}" image exists "$pause_image"; then
  dir=$(mktemp -d "${TMPDIR:-/tmp}/distbench-pause.XXXXXX")
  cat >"$dir/pause.c" <<'C'
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static void reap(int sig) { (void)sig; while (waitpid(-1, NULL, WNOHANG) > 0) {} }
static void quit(int sig) { (void)sig; _exit(0); }
int main(void) {
  signal(SIGINT, quit);
  signal(SIGTERM, quit);
  signal(SIGCHLD, reap);
  for (;;) pause();
}
C
  gcc -Os -static -o "$dir/pause" "$dir/pause.c"
  printf 'FROM scratch\nCOPY pause /pause\nUSER 65535:65535\nENTRYPOINT ["/pause"]\n' >"$dir/Containerfile"
  "${podman[@]}" build -q -t "$pause_image" "$dir" >/dev/null
  rm -rf "$dir"
  log "built $pause_image"
fi

# A worker image whose distbench-worker is the shell script $2, on top of
# the real worker image (whose binary stays at distbench-worker.real).
wrapper_image() {  # image script
  local image=$1 dir
  dir=$(mktemp -d "${TMPDIR:-/tmp}/distbench-wrapper.XXXXXX")
  printf '%s\n' "$2" >"$dir/distbench-worker"
  chmod 755 "$dir/distbench-worker"
  printf 'FROM localhost/distbench/worker:%s\nCOPY --from=localhost/distbench/worker:%s /usr/local/bin/distbench-worker /usr/local/bin/distbench-worker.real\nCOPY distbench-worker /usr/local/bin/distbench-worker\n' \
    "$version" "$version" >"$dir/Containerfile"
  "${podman[@]}" build -q -t "$image" "$dir" >/dev/null
  rm -rf "$dir"
  log "built $image"
}

# Exits 1 at once: scenario 04 gives it to the parameter servers
# (spec.podTemplates.parameterServer.image), a rank that really fails, as a
# broken image or a crashing binary would.
wrapper_image "localhost/distbench/worker-failing:$version" '#!/bin/sh
echo "distbench-worker (e2e failing image): exit 1 on purpose" >&2
exit 1'

# Writes past the 1 GiB sizeLimit of the pod's scratch emptyDir (/tmp,
# desired_objects.h) and waits: the kubelet's local-storage check evicts the
# pod (scenario 17). fallocate allocates the blocks the kubelet's du counts
# without writing 1.2 GB.
wrapper_image "localhost/distbench/worker-filler:$version" '#!/bin/sh
echo "distbench-worker (e2e filler image): 1200 MiB into /tmp" >&2
fallocate -l 1200M /tmp/fill || dd if=/dev/zero of=/tmp/fill bs=1M count=1200 2>/dev/null
exec sleep 600'

# The real worker, given a flag it does not know, as an image of another
# version would be: it refuses the run with exit 2 (scenario 18).
wrapper_image "localhost/distbench/worker-refusing:$version" '#!/bin/sh
exec /usr/local/bin/distbench-worker.real --e2e-flag-of-another-version "$@"'

