# shellcheck shell=bash disable=SC2034,SC2154
# Sourced by the scripts that build or run distbench's images with podman
# (dockerfiles/build-images.sh, scripts/debian-base-image.sh,
# scripts/check-libtorch2.sh, scripts/check-cuda-build.sh), after $root is
# set to the checkout. Makes podman usable here without a Docker engine:
#
#   1. installs podman, runc and debootstrap from Debian when missing
#      (root or sudo);
#   2. sets `default_ulimits = []` in /etc/containers/containers.conf when it
#      sets none: these machines refuse the ulimits podman puts on containers
#      by default (docs/deploy.md);
#   3. sets the array `podman` to the podman command
#      (PODMAN, default: podman --runtime runc).
#
# Uses `log` if the caller defines it. Returns non-zero (the caller's set -e
# ends it) when a missing tool cannot be installed.
source "$root/scripts/apt-as-root.sh"
declare -F log >/dev/null || log() { echo "$*"; }
read -r -a podman <<<"${PODMAN:-podman --runtime runc}"

podman_env_missing=()
command -v podman >/dev/null || podman_env_missing+=(podman)
command -v runc >/dev/null || [[ -x /usr/sbin/runc ]] || podman_env_missing+=(runc)
command -v debootstrap >/dev/null || [[ -x /usr/sbin/debootstrap ]] || podman_env_missing+=(debootstrap)
if ((${#podman_env_missing[@]})); then
  apt_install_missing "${podman_env_missing[@]}" || return 1
fi

podman_env_conf=/etc/containers/containers.conf
if ! grep -qs '^[[:space:]]*default_ulimits' "$podman_env_conf"; then
  if [[ ${as_root[0]:-} != false ]]; then
    log "setting default_ulimits = [] in $podman_env_conf"
    "${as_root[@]}" mkdir -p "$(dirname "$podman_env_conf")"
    if grep -qs '^\[containers\]' "$podman_env_conf"; then
      "${as_root[@]}" sed -i '/^\[containers\]/a default_ulimits = []' "$podman_env_conf"
    else
      printf '[containers]\ndefault_ulimits = []\n' | "${as_root[@]}" tee -a "$podman_env_conf" >/dev/null
    fi
  else
    log "warning: $podman_env_conf sets no default_ulimits and there is no root to set it" >&2
  fi
fi
unset podman_env_missing podman_env_conf
