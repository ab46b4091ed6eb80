# Sourced by the build scripts: the compiler cache they share.
#   CCACHE_DIR  cache location (default: ~/.cache/ccache)
# Paths are hashed relative to the checkout ($root, set by the caller), so a
# fresh clone elsewhere (as CI makes) still hits what an earlier one cached.
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
