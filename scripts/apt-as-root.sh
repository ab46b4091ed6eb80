# Sourced by the install scripts: how to run apt-get (and other root-only
# steps) as root. Sets as_root (a command prefix: empty as root, sudo
# otherwise; `false` when neither is possible, so only a step that really
# needs root fails) and apt_get (non-interactive, waits for the dpkg lock),
# and defines apt_install_missing.
if [[ $(id -u) -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null; then
  # Without a terminal (CI) sudo must not wait for a password nobody types.
  if [[ -t 0 ]]; then as_root=(sudo); else as_root=(sudo -n); fi
else
  as_root=(false)
fi
apt_get=("${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q
         -o DPkg::Lock::Timeout=300)

# apt_install_missing PACKAGE...: installs them (as root, or with sudo), or
# says which apt-get to run as root and returns 1. Says it with the caller's
# `log`.
apt_install_missing() {
  if [[ ${as_root[0]:-} == false ]]; then
    log "not root and no sudo; as root, run: apt-get install $*" >&2
    return 1
  fi
  log "installing $*"
  "${apt_get[@]}" update
  "${apt_get[@]}" install -y --no-install-recommends "$@"
}
