#!/usr/bin/env bash
# Installs what the cluster end-to-end suite (e2e/, ctest label e2e) needs
# beyond scripts/install-deps.sh, from Debian 12 packages only: a container
# runtime and CNI plugins for the node, iptables for kube-proxy, podman and
# debootstrap for the images, Prometheus for the dashboard scenario.
# kube-scheduler, kubelet and kube-proxy are built by e2e/cluster-debian.sh
# from the same Debian source tree as scripts/install-kube-apiserver.sh.
# Safe to run again: exits in well under a second when all are installed.
set -euo pipefail

PACKAGES=(
  containerd runc containernetworking-plugins iptables conntrack
  podman debootstrap
  openssl jq gcc libc6-dev iproute2 python3 util-linux procps curl
  prometheus
)

source "$(dirname "${BASH_SOURCE[0]}")/missing-packages.sh"
missing_packages "${PACKAGES[@]}"
if ((${#missing[@]} == 0)); then
  echo "install-e2e-deps: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

source "$(dirname "${BASH_SOURCE[0]}")/apt-as-root.sh"
if [[ ${as_root[0]:-} == false ]]; then
  echo "install-e2e-deps: not root and no sudo; as root, run: apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "install-e2e-deps: installing ${missing[*]}"
"${apt_get[@]}" update
# policy-rc.d: Debian's maintainer scripts would start the system's
# containerd and prometheus services; the suite runs its own instances.
policy=/usr/sbin/policy-rc.d
made_policy=0
if [[ ! -e $policy ]]; then
  printf '#!/bin/sh\nexit 101\n' | "${as_root[@]}" tee "$policy" >/dev/null
  "${as_root[@]}" chmod 755 "$policy"
  made_policy=1
fi
rc=0
"${apt_get[@]}" install -y --no-install-recommends "${missing[@]}" || rc=$?
((made_policy)) && "${as_root[@]}" rm -f "$policy"
exit "$rc"
