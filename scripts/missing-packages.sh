# Sourced by the install scripts: missing_packages NAME... sets the array
# `missing` to those of the Debian packages that are not installed, asking
# dpkg only (fast, and no apt lists needed when nothing is missing).
missing_packages() {
  missing=()
  local pkg status
  for pkg in "$@"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
    [[ $status == installed ]] || missing+=("$pkg")
  done
}
