# A build-and-test environment for distbench's C++ code, without the source:
# the build and test packages of scripts/install-deps.sh, from whatever
# Debian suite BASE_IMAGE is. On Debian 13 (trixie) that is LibTorch 2.6 (CPU),
# GCC 14 and CMake 3.31; on Debian 12 the host's LibTorch 1.13.
#
#   podman build --build-arg BASE_IMAGE=localhost/debian:trixie \
#     -f dockerfiles/build-env.Dockerfile -t localhost/distbench/build-env:trixie EMPTY_DIR
#
# scripts/check-libtorch2.sh builds it (from scripts/debian-base-image.sh's
# trixie) and runs the worker's build, unit tests and short local runs in it
# with the checkout mounted read-only at /src, a build directory at /build
# and a compiler cache at /ccache. It needs no build context.
#
# Left out of install-deps.sh's list: the Python side (python3-torch and
# friends: only the benchmark tests use it, not the worker's), chromium and
# fonts (the report page's browser test), libbenchmark-dev (micro-benchmarks
# not built here), curl.
ARG BASE_IMAGE=debian:trixie
FROM ${BASE_IMAGE}
ARG DEBIAN_FRONTEND=noninteractive
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      cmake g++ make ccache pkg-config \
      libtorch-dev libgloo-dev libopenblas0-serial \
      libcpprest-dev libssl-dev libyaml-cpp-dev prometheus-cpp-dev \
      libgtest-dev libgmock-dev googletest \
 && rm -rf /var/lib/apt/lists/*
# The checkout is at /src: ccache hashes paths relative to it, so a build of
# another checkout mounted there hits the same cache.
ENV CCACHE_DIR=/ccache CCACHE_BASEDIR=/src CCACHE_NOHASHDIR=1
WORKDIR /build
CMD ["/bin/bash"]
