# Sourced by e2e/cluster-debian.sh and e2e/tests/netns-shadow.sh: the named
# network namespaces of /run/netns, and the ones a later mount hid.
#
# containerd's CRI makes each pod sandbox's network namespace a bind mount
# of an nsfs file at /run/netns/cni-<id>, and only creates the directory.
# On a machine where nothing has used `ip netns` yet /run/netns is then a
# plain directory. The first `ip netns add` after that (the CLI's sandboxes
# under --links, a rootful podman) "upgrades" it the way iproute2 does:
# a recursive bind of /run/netns onto itself. The copy carries the pods'
# mounts; the originals stay underneath, where no path reaches them: a
# pod's deletion, or `ip netns delete`, removes the copy and leaves the
# original mounted and its file busy. Seen after `down` on a fresh machine:
# two such mounts, the operator's two replicas' sandboxes.

netns_dir=${NETNS_DIR:-/run/netns}

# Before anything makes a namespace there: /run/netns a mount point of its
# own with shared propagation, as `ip netns add` would leave it, so that no
# later `ip netns add` binds over it.
# (As iproute2 does it: make-shared fails on a directory that is no mount
# point. `mountpoint` cannot tell: it answers from /proc/self/mountinfo,
# where a hidden mount at the same path counts.)
netns_dir_prepare() {
  mkdir -p "$netns_dir"
  mount --make-shared "$netns_dir" 2>/dev/null && return 0
  mount --bind "$netns_dir" "$netns_dir" && mount --make-shared "$netns_dir"
}

# nsfs mounts at $netns_dir/<name> that a later mount of $netns_dir covers,
# one "mount-point" per line (from /proc/self/mountinfo: a mount whose
# parent is not the topmost mount of the directory is under it).
netns_shadowed() {
  awk -v d="$netns_dir" '
    { id[NR] = $1; parent[NR] = $2; point[NR] = $5; fstype[NR] = ""
      for (i = 7; i <= NF; i++) if ($i == "-") { fstype[NR] = $(i + 1); break } }
    $5 == d { top = $1 }
    END {
      if (top == "") exit
      for (n = 1; n <= NR; n++)
        if (fstype[n] == "nsfs" && index(point[n], d "/") == 1 && parent[n] != top) print point[n]
    }' /proc/self/mountinfo
}

# Uncovers and removes the shadowed namespaces whose names match `pattern`
# (a shell glob on the file name, e.g. 'cni-*'; others stay): lifts the
# covering mount, unmounts them, and makes $netns_dir a shared mount point
# again. Only when nothing else lives in the covering mount (someone's
# namespace there would lose its name): returns 1 and leaves everything as
# it was otherwise.
netns_remove_shadowed() {
  local pattern=$1 shadowed=() point others
  while read -r point; do
    # shellcheck disable=SC2053 # a glob on purpose
    [[ $(basename "$point") == $pattern ]] && shadowed+=("$point")
  done < <(netns_shadowed)
  ((${#shadowed[@]})) || return 0
  # Anything mounted in the covering mount (children of the topmost mount
  # of the directory) is a live namespace of someone's.
  others=$(awk -v d="$netns_dir" '$5 == d { top = $1 } { parent[$1] = $2 }
    END { if (top != "") for (id in parent) if (parent[id] == top) n++; print n + 0 }' /proc/self/mountinfo)
  ((others == 0)) || return 1
  umount -l "$netns_dir" || return 1
  for point in "${shadowed[@]}"; do
    umount "$point" 2>/dev/null || umount -l "$point"
    rm -f "$point"
  done
  netns_dir_prepare
}
