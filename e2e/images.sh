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

# A worker image whose distbench-worker exits 1 at once: scenario 04 gives it
# to the parameter servers (spec.podTemplates.parameterServer.image), a rank
# that really fails, as a broken image or a crashing binary would.
failing=localhost/distbench/worker-failing:$version
dir=$(mktemp -d "${TMPDIR:-/tmp}/distbench-failing.XXXXXX")
printf '#!/bin/sh\necho "distbench-worker (e2e failing image): exit 1 on purpose" >&2\nexit 1\n' >"$dir/distbench-worker"
chmod 755 "$dir/distbench-worker"
printf 'FROM localhost/distbench/worker:%s\nCOPY distbench-worker /usr/local/bin/distbench-worker\n' "$version" >"$dir/Containerfile"
"${podman[@]}" build -q -t "$failing" "$dir" >/dev/null
rm -rf "$dir"
log "built $failing"

# A worker image whose distbench-worker writes past the 1 GiB sizeLimit of
# the pod's scratch emptyDir (/tmp, desired_objects.h) and waits: the
# kubelet's local-storage check evicts the pod (scenario 17). fallocate
# allocates the blocks the kubelet's du counts without writing 1.2 GB.
filler=localhost/distbench/worker-filler:$version
dir=$(mktemp -d "${TMPDIR:-/tmp}/distbench-filler.XXXXXX")
printf '#!/bin/sh\necho "distbench-worker (e2e filler image): 1200 MiB into /tmp" >&2\nfallocate -l 1200M /tmp/fill || dd if=/dev/zero of=/tmp/fill bs=1M count=1200 2>/dev/null\nexec sleep 600\n' >"$dir/distbench-worker"
chmod 755 "$dir/distbench-worker"
printf 'FROM localhost/distbench/worker:%s\nCOPY distbench-worker /usr/local/bin/distbench-worker\n' "$version" >"$dir/Containerfile"
"${podman[@]}" build -q -t "$filler" "$dir" >/dev/null
rm -rf "$dir"
log "built $filler"
