# Sourced by the install scripts: how to run apt-get (and other root-only
# steps) as root. Sets as_root (a command prefix: empty as root, sudo
# otherwise; `false` when neither is possible, so only a step that really
# needs root fails) and apt_get (non-interactive, waits for the dpkg lock).
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
