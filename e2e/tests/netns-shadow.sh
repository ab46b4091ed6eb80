#!/usr/bin/env bash
# The shadowed network-namespace mounts of e2e/netns-mounts.sh, made on
# purpose in a mount namespace of this test's own (a fresh tmpfs over /run,
# nothing propagated to the machine): a pod sandbox's nsfs mount in a plain
# /run/netns, then an `ip netns add` that binds over it, then the sandbox's
# `ip netns delete`, as on a fresh machine under the e2e suite and the CLI's
# sandboxes. netns_shadowed must name the hidden mount and
# netns_remove_shadowed remove it; with netns_dir_prepare first, the same
# steps leave nothing hidden. Root only (exit 77 otherwise; under CI=true a
# failure).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ $(id -u) -ne 0 ]]; then
  [[ ${CI:-} == true ]] && { echo "netns-shadow: needs root; CI=true, so a failure" >&2; exit 1; }
  echo "netns-shadow: SKIPPED: needs root (mount namespaces, ip netns)"
  exit 77
fi
for tool in unshare ip mountpoint; do
  command -v "$tool" >/dev/null || { echo "netns-shadow: no $tool" >&2; exit 1; }
done

exec unshare -m --propagation private bash -c '
  set -uo pipefail
  source "$1/../netns-mounts.sh"
  fail() { echo "netns-shadow: FAILED: $*" >&2; grep netns /proc/self/mountinfo >&2; exit 1; }
  mount -t tmpfs distbench-netns-test /run || fail "tmpfs over /run"

  # 1. As on a fresh machine: a sandbox, then `ip netns add`, then the
  # sandbox deleted.
  mkdir -p /run/netns && touch /run/netns/dbtest-cni-t && unshare --net=/run/netns/dbtest-cni-t true ||
    fail "a pod-like namespace"
  ip netns add distbench-other || fail "ip netns add"
  ip netns delete dbtest-cni-t 2>/dev/null
  ip netns delete distbench-other
  # (The machine may have hidden mounts of its own: only this test s count.)
  mine() { netns_shadowed | grep "/dbtest-"; }
  shadowed=$(mine)
  [[ $shadowed == /run/netns/dbtest-cni-t ]] || fail "netns_shadowed said \"$shadowed\", not /run/netns/dbtest-cni-t"
  echo "ok: netns_shadowed names the hidden mount: $shadowed"
  netns_remove_shadowed "dbtest-*" || fail "netns_remove_shadowed"
  [[ -z $(mine) ]] || fail "still shadowed: $(mine)"
  grep -q " /run/netns/dbtest-cni-t " /proc/self/mountinfo && fail "dbtest-cni-t still mounted"
  [[ -e /run/netns/dbtest-cni-t ]] && fail "/run/netns/dbtest-cni-t still there"
  echo "ok: netns_remove_shadowed removed it"

  # 2. Someone else s namespace in the covering mount: left alone.
  umount -l /run/netns
  touch /run/netns/dbtest-cni-u && unshare --net=/run/netns/dbtest-cni-u true && ip netns add distbench-keep &&
    ip netns delete dbtest-cni-u 2>/dev/null
  [[ $(mine) == /run/netns/dbtest-cni-u ]] || fail "second shadowing not seen"
  netns_remove_shadowed "dbtest-*" && fail "removed although distbench-keep lives in the covering mount"
  ip netns list | grep -q distbench-keep || fail "distbench-keep lost"
  echo "ok: a covering mount with another namespace in it is left as it is"
  ip netns delete distbench-keep

  # 3. Prepared first, the same steps hide nothing.
  umount -l /run/netns
  umount /run/netns/dbtest-cni-u 2>/dev/null; rm -f /run/netns/dbtest-cni-u
  mount -t tmpfs distbench-netns-test /run || fail "a second tmpfs"
  netns_dir_prepare || fail "netns_dir_prepare"
  mkdir -p /run/netns && touch /run/netns/dbtest-cni-v && unshare --net=/run/netns/dbtest-cni-v true &&
    ip netns add distbench-other && ip netns delete dbtest-cni-v && ip netns delete distbench-other ||
    fail "the steps after netns_dir_prepare"
  [[ -z $(mine) ]] || fail "shadowed although prepared: $(mine)"
  echo "ok: with /run/netns prepared, nothing is hidden"
' netns-shadow "$here"
