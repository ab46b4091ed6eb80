#!/usr/bin/env bash
# Fetches the Debian 12 packages that building and running distbench-worker,
# distbench and the worker's tests need on a machine that has only a C++
# compiler, cmake, Python and PyTorch (the lent GPU machine: no apt, no
# network), strips them to what a build uses, and leaves them in .gpu-deps/
# (ignored by git) for scripts/gpu-check.sh to unpack there. The folder
# travels with the working tree (the device tool's `carry`), so it must stay
# well under 64 MiB; the total is printed at the end.
#
#   scripts/fetch-gpu-deps.sh [--out DIR] [--force]
#
# Nothing on this machine is installed or changed: `apt-get download` with a
# private apt state (package lists and cache under
# ~/.cache/distbench/gpu-deps-apt, refreshed once a day), run from any user.
# Each package is repacked (dpkg-deb --build, xz) without what no build
# reads: documentation, manual pages, static libraries other than
# GoogleTest's; and libboost1.74-dev keeps only the CMake configuration and
# the header directories that cpprest's public headers include (the closure
# is computed here with the compilers at hand, g++ and clang++ if present, at
# C++17 and C++20; scripts/gpu-check.sh --dry-run proves it by building
# against the unpacked bundle and checking that no header came from /usr).
#
# .gpu-deps/MANIFEST records every package with its Debian version, the
# dependencies deliberately left out and why, and the newest GLIBC_ and
# GLIBCXX_ symbol versions the bundled libraries need (gpu-check.sh compares
# them with the GPU machine's). A second run with the same candidate versions
# does nothing (--force repacks anyway).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$REPO/.gpu-deps
FORCE=0
while (($#)); do
  case $1 in
    --out) OUT=$2; shift 2 ;;
    --out=*) OUT=${1#--out=}; shift ;;
    --force) FORCE=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "fetch-gpu-deps: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

log() { echo "fetch-gpu-deps: $*"; }
die() { echo "fetch-gpu-deps: error: $*" >&2; exit 1; }
for tool in apt-get apt-cache dpkg-deb g++ readelf; do
  command -v "$tool" >/dev/null || die "needs $tool (Debian 12 with apt, binutils and g++)"
done

# --------------------------------------------------------------------------
# What goes in, and why. Package names are Debian 12's.
# --------------------------------------------------------------------------
# name  role: dev (headers + CMake config), run (shared library the binaries
# load), config (only so a CMake config's find_dependency or its
# imported-file check succeeds; nothing links it), headers (only its
# headers are kept: nothing links or finds it)
PACKAGES=(
  "libyaml-cpp-dev dev"            "libyaml-cpp0.7 run"
  "libcpprest-dev dev"             "libcpprest2.10 run"
  "libbrotli1 run"                 # libcpprest.so.2.10 needs libbrotlidec/enc
  "prometheus-cpp-dev dev"
  "libprometheus-cpp-core1.0 run"  "libprometheus-cpp-pull1.0 run"
  "libprometheus-cpp-push1.0 config"  # its targets file checks the .so exists
  "libcivetweb-dev config"         "libcivetweb1 run"  # pull needs libcivetweb(-cpp).so.1
  "civetweb config"                # civetweb's targets file checks /usr/bin/civetweb
  "libcurl4-openssl-dev config"    "libcurl4 config"   # prometheus-cpp: find_dependency(CURL)
  "libssl-dev dev"                 "libssl3 run"
  "zlib1g-dev dev"                 "zlib1g run"
  "libgtest-dev dev"               "libgmock-dev dev"
  # PyTorch's wheels ship c10d's ProcessGroupGloo.hpp but not the gloo headers
  # it includes (seen on torch 2.11.0+cu130); libtorch has gloo built in, so
  # only the declarations are needed. gpu-check.sh drops them again where
  # torch brings its own.
  "libgloo-dev headers"
  "libboost1.74-dev config"        # cpprest: find_dependency(Boost ...) and its headers
  "libboost-random1.74-dev config" "libboost-system1.74-dev config"
  "libboost-thread1.74-dev config" "libboost-filesystem1.74-dev config"
  "libboost-chrono1.74-dev config" "libboost-atomic1.74-dev config"
  "libboost-date-time1.74-dev config" "libboost-regex1.74-dev config"
)
# Dependencies of those packages that stay out, with the reason.
LEFT_OUT=(
  "libc6 the C library: every machine has one (glibc; see GLIBC below)"
  "libc6-dev C headers: every machine with a C++ compiler has them"
  "libc-dev C headers: every machine with a C++ compiler has them"
  "libstdc++6 the C++ runtime: every machine with a C++ compiler has one (see GLIBCXX below)"
  "libgcc-s1 the GCC runtime: every machine with a C++ compiler has one"
  "libstdc++-12-dev C++ headers: the machine's compiler brings its own"
  "googletest GoogleTest's sources; libgtest-dev's static libraries are what links"
  "libbrotli-dev cpprest's CMake config does not look for brotli; libbrotli1 is bundled for running"
  "libwebsocketpp-dev cpprest's websocket client is not used and none of its public headers includes websocketpp"
  "libgloo0 gloo's shared library: libtorch has gloo built in, and only libgloo-dev's headers are kept"
  "libhiredis-dev gloo's Redis rendezvous headers, which c10d's ProcessGroupGloo.hpp does not include"
  "libibverbs-dev gloo's ibverbs transport headers, which c10d's ProcessGroupGloo.hpp does not include"
  "libboost-atomic-dev an unversioned alias of libboost-atomic1.74-dev"
  "libboost-chrono-dev an unversioned alias of libboost-chrono1.74-dev"
  "libboost-filesystem-dev an unversioned alias of libboost-filesystem1.74-dev"
  "libboost-random-dev an unversioned alias of libboost-random1.74-dev"
  "libboost-regex-dev an unversioned alias of libboost-regex1.74-dev"
  "libboost-system-dev an unversioned alias of libboost-system1.74-dev"
  "libboost-thread-dev an unversioned alias of libboost-thread1.74-dev"
  "libboost-atomic1.74.0 shared Boost libraries: libcpprest.so.2.10 does not load them and cpprest's targets link none"
  "libboost-chrono1.74.0 (as libboost-atomic1.74.0)"
  "libboost-date-time1.74.0 (as libboost-atomic1.74.0)"
  "libboost-filesystem1.74.0 (as libboost-atomic1.74.0)"
  "libboost-random1.74.0 (as libboost-atomic1.74.0)"
  "libboost-regex1.74.0 (as libboost-atomic1.74.0)"
  "libboost-system1.74.0 (as libboost-atomic1.74.0)"
  "libboost-thread1.74.0 (as libboost-atomic1.74.0)"
  "libboost-serialization1.74-dev needed by date_time's -dev package only for its static library"
  "libicu-dev boost_regex's ICU support: its CMake config does not look for ICU"
  "civetweb's and libcurl4's libraries' dependencies: nothing links or loads libcurl (prometheus-cpp push is not used) or the civetweb server binary"
)
LEFT_OUT_NAMES=" $(printf '%s\n' "${LEFT_OUT[@]}" | awk '{print $1}' | tr '\n' ' ') "
# Runtime dependencies of libcurl4 and the civetweb binary: config-only
# packages, never loaded.
CONFIG_ONLY_DEPS=" libnghttp2-14 libidn2-0 librtmp1 libssh2-1 libpsl5 libgssapi-krb5-2 libldap-2.5-0 libzstd1 libbrotli1 libcivetweb1 libssl3 zlib1g libcurl4 "

names=() roles=()
for entry in "${PACKAGES[@]}"; do
  names+=("${entry%% *}"); roles+=("${entry##* }")
done

# --------------------------------------------------------------------------
# A private apt state: the host's lists and installed packages stay as they are
# --------------------------------------------------------------------------
APT_DIR=${DISTBENCH_GPU_DEPS_APT_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/distbench/gpu-deps-apt}
mkdir -p "$APT_DIR/lists/partial" "$APT_DIR/cache/archives/partial"
APT_OPTS=(-o "Dir::State::Lists=$APT_DIR/lists" -o "Dir::Cache=$APT_DIR/cache"
          -o "Dir::Cache::pkgcache=$APT_DIR/cache/pkgcache.bin"
          -o "Dir::Cache::srcpkgcache=$APT_DIR/cache/srcpkgcache.bin"
          -o "Debug::NoLocking=1" -o "APT::Sandbox::User=root")
if [[ -z $(find "$APT_DIR/lists" -maxdepth 1 -name '*_Packages*' -mmin -1440 2>/dev/null | head -1) ]]; then
  log "refreshing the private package lists in $APT_DIR"
  apt-get "${APT_OPTS[@]}" -qq update >/dev/null || die "apt-get update failed (is Debian's archive reachable?)"
fi

declare -A candidate=()
while read -r n v; do candidate[$n]=$v; done < <(
  apt-cache "${APT_OPTS[@]}" show --no-all-versions "${names[@]}" 2>/dev/null \
    | awk '/^Package:/ {p = $2} /^Version:/ {print p, $2}')
versions=()
for n in "${names[@]}"; do
  [[ -n ${candidate[$n]:-} ]] || die "no Debian package $n in the lists"
  versions+=("${candidate[$n]}")
done

# Same candidates, same script: nothing to do.
key=$( { printf '%s\n' "${names[@]}" "${versions[@]}"; cat "$0"; } | sha256sum | cut -c1-16)
if ((!FORCE)) && [[ -f $OUT/MANIFEST ]] && grep -qx "key: $key" "$OUT/MANIFEST" \
    && (( $(ls "$OUT"/*.deb 2>/dev/null | wc -l) == ${#names[@]} )); then
  log "up to date ($OUT/MANIFEST, key $key); --force repacks"
  echo "fetch-gpu-deps: total $(du -cb "$OUT"/*.deb | tail -1 | cut -f1) bytes in ${#names[@]} packages"
  exit 0
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/fetch-gpu-deps.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/debs" "$WORK/all" "$WORK/new"

log "downloading ${#names[@]} packages"
specs=()
for i in "${!names[@]}"; do specs+=("${names[i]}=${versions[i]}"); done
(cd "$WORK/debs" && apt-get "${APT_OPTS[@]}" -qq download "${specs[@]}" 2>&1 | grep -v "unsandboxed" || true)
orig_total=0
for i in "${!names[@]}"; do
  f=$(ls "$WORK/debs/${names[i]}_"*.deb 2>/dev/null | head -1)
  [[ -n $f ]] || die "download of ${names[i]} failed"
  orig_total=$((orig_total + $(stat -c %s "$f")))
done

# --------------------------------------------------------------------------
# Every dependency is bundled or deliberately left out
# --------------------------------------------------------------------------
bundle=" ${names[*]} "
unexplained=()
for i in "${!names[@]}"; do
  f=$(ls "$WORK/debs/${names[i]}_"*.deb)
  deps="$(dpkg-deb -f "$f" Depends),$(dpkg-deb -f "$f" Pre-Depends)"
  IFS=',' read -ra items <<<"$deps"
  for item in "${items[@]}"; do
    alt=${item%%|*}; dep=$(echo "$alt" | sed 's/(.*//; s/:any//' | tr -d ' ')
    [[ -z $dep ]] && continue
    [[ $bundle == *" $dep "* || $LEFT_OUT_NAMES == *" $dep "* ]] && continue
    if [[ ${roles[i]} == config || ${names[i]} == libcurl4 ]] && [[ $CONFIG_ONLY_DEPS == *" $dep "* || ${roles[i]} == config ]]; then
      continue
    fi
    unexplained+=("${names[i]} -> $dep")
  done
done
if ((${#unexplained[@]})); then
  printf '  %s\n' "${unexplained[@]}" >&2
  die "dependencies neither bundled nor in LEFT_OUT (a new Debian revision?): add them to PACKAGES or explain them in LEFT_OUT"
fi

# --------------------------------------------------------------------------
# Which Boost headers cpprest's public headers include
# --------------------------------------------------------------------------
for f in "$WORK"/debs/*.deb; do dpkg-deb -x "$f" "$WORK/all"; done
inc=$WORK/all/usr/include
# Debian's multiarch headers (openssl/configuration.h, curl/) go beside the
# others, as gpu-check.sh puts them.
cp -a "$inc/x86_64-linux-gnu/." "$inc/" 2>/dev/null || true
log "computing the Boost headers cpprest's public headers include"
compilers=(g++)
command -v clang++ >/dev/null && compilers+=(clang++)
: >"$WORK/deps.txt"
headers=$(cd "$inc" && ls cpprest/*.h cpprest/details/*.h pplx/*.h)
for cxx in "${compilers[@]}"; do
  for std in c++17 c++20; do
    for h in $headers; do
      # pplxwin.h and the like are Windows-only; a few pplx headers are only
      # valid inside pplxtasks.h. Each header that compiles alone counts.
      echo "#include <$h>" >"$WORK/t.cpp"
      "$cxx" -std=$std -M -isystem "$inc" -DCPPREST_FORCE_HTTP_CLIENT_ASIO \
        -DCPPREST_FORCE_HTTP_LISTENER_ASIO -DCPPREST_NO_SSL_LEAK_SUPPRESS \
        -D_TURN_OFF_PLATFORM_STRING "$WORK/t.cpp" 2>/dev/null >>"$WORK/deps.txt" || true
    done
  done
done
tr ' \\' '\n\n' <"$WORK/deps.txt" | grep "^$inc/boost/" | sed "s|^$inc/||" | sort -u >"$WORK/boost-files.txt"
(($(wc -l <"$WORK/boost-files.txt") > 50)) || die "the Boost closure looks wrong ($(wc -l <"$WORK/boost-files.txt") files)"
# Whole top-level directories (boost/asio/, boost/mpl/, ...) rather than single
# files: another compiler or standard may pick other files inside them
# (boost/config/compiler/*, mpl's preprocessed variants).
awk -F/ 'NF == 2 {print $0; next} {print $1 "/" $2 "/"}' "$WORK/boost-files.txt" | sort -u >"$WORK/boost-keep.txt"

# --------------------------------------------------------------------------
# Repack without what no build reads
# --------------------------------------------------------------------------
strip_tree() {  # root package
  local root=$1 pkg=$2
  rm -rf "$root"/usr/share/{doc,doc-base,man,info,lintian,bug,aclocal,locale} "$root"/usr/bin/curl-config
  case $pkg in
    libgtest-dev|libgmock-dev) ;;  # GoogleTest ships only static libraries
    *) find "$root" -name '*.a' -delete ;;
  esac
  if [[ $pkg == libgloo-dev ]]; then  # role headers: no CMake config, no .so link
    rm -rf "$root"/usr/share "$root"/usr/lib
  fi
  if [[ $pkg == libssl3 ]]; then
    rm -rf "$root"/usr/lib/x86_64-linux-gnu/{engines-3,ossl-modules}  # loaded on demand only
  fi
  if [[ $pkg == libboost1.74-dev ]]; then
    local keep=$WORK/boost-keep
    mkdir -p "$keep/usr/include/boost" "$keep/usr/lib/x86_64-linux-gnu"
    while read -r p; do
      mkdir -p "$keep/usr/include/$(dirname "${p%/}")"
      cp -a "$root/usr/include/${p%/}" "$keep/usr/include/${p%/}"
    done <"$WORK/boost-keep.txt"
    mv "$root/usr/lib/x86_64-linux-gnu/cmake" "$keep/usr/lib/x86_64-linux-gnu/"
    rm -rf "${root:?}/usr"; mv "$keep/usr" "$root/usr"
  fi
  find "$root" -depth -type d -empty -not -path "$root/DEBIAN" -delete
}

log "repacking (xz)"
manifest_rows=()
for i in "${!names[@]}"; do
  n=${names[i]}
  f=$(ls "$WORK/debs/${n}_"*.deb)
  root=$WORK/pkg-$n
  dpkg-deb -R "$f" "$root"
  before=$(du -sb --exclude=DEBIAN "$root" | cut -f1)
  strip_tree "$root" "$n"
  after=$(du -sb --exclude=DEBIAN "$root" | cut -f1)
  # Only the control file: the md5sums no longer match, and maintainer
  # scripts never run (the bundle is unpacked, not installed).
  find "$root/DEBIAN" -mindepth 1 -not -name control -delete
  printf 'X-Distbench-Stripped: %s of %s bytes kept (scripts/fetch-gpu-deps.sh)\n' \
    "$after" "$before" >>"$root/DEBIAN/control"
  out=$WORK/new/$(basename "$f")
  dpkg-deb --root-owner-group -Zxz -z9 --build "$root" "$out" >/dev/null
  manifest_rows+=("$(printf '%-30s %-24s %-7s %9s %9s' "$n" "${versions[i]}" "${roles[i]}" \
    "$(stat -c %s "$f")" "$(stat -c %s "$out")")")
done

# The newest glibc / libstdc++ symbol versions the bundled libraries need.
max_version() {  # prefix (GLIBC_ or GLIBCXX_)
  find "$WORK/all" -name '*.so*' -type f -exec readelf -V --wide {} + 2>/dev/null \
    | grep -o "Name: $1[0-9.]*" | sed "s/Name: $1//" | sort -t. -k1,1n -k2,2n -k3,3n -u | tail -1
}
glibc=$(max_version GLIBC_); glibcxx=$(max_version GLIBCXX_)

rm -f "$OUT"/*.deb
mv "$WORK"/new/*.deb "$OUT/"
total=$(du -cb "$OUT"/*.deb | tail -1 | cut -f1)
{
  echo "# scripts/fetch-gpu-deps.sh: Debian 12 packages for scripts/gpu-check.sh"
  echo "key: $key"
  echo "fetched: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release && echo "$PRETTY_NAME")"
  echo "needs-glibc: $glibc"
  echo "needs-glibcxx: $glibcxx"
  echo "total-bytes: $total (Debian's own .deb files: $orig_total)"
  echo
  echo "# package                      version                  role    deb-bytes repacked"
  printf '%s\n' "${manifest_rows[@]}"
  echo
  echo "# left out"
  printf '%s\n' "${LEFT_OUT[@]}"
  echo
  echo "# libboost1.74-dev: only these header paths (what cpprest's public headers include, by ${compilers[*]} at C++17/20)"
  sed 's/^/boost-keep: /' "$WORK/boost-keep.txt"
} >"$OUT/MANIFEST"

log "wrote ${#names[@]} packages and MANIFEST to $OUT"
log "needs glibc >= $glibc and libstdc++ with GLIBCXX_$glibcxx"
echo "fetch-gpu-deps: total $total bytes ($(awk -v b="$total" 'BEGIN {printf "%.1f", b / 1048576}') MiB; Debian's .deb files: $(awk -v b="$orig_total" 'BEGIN {printf "%.1f", b / 1048576}') MiB)"
