# The distbench worker image for NVIDIA GPUs: distbench-worker built with
# -DDISTBENCH_CUDA=ON (CUDA runtime, NCCL process groups, LibTorch's CUDA
# side) and the distbench CLI, on Debian 13, as a non-root user. Build from
# the repository root (the build context; this file's .dockerignore says
# what of it is sent):
#
#   podman build -f dockerfiles/worker-cuda.Dockerfile -t distbench/worker-cuda:0.2.0 .
#
# Build arguments:
#
#   BASE_IMAGE  debian:trixie (default), or scripts/debian-base-image.sh's
#               localhost/debian:trixie where there is no registry. Needs
#               apt sources with contrib and non-free.
#   LIBTORCH    debian (default): Debian 13's CUDA LibTorch 2.6
#               (libtorch-cuda-dev, contrib) with nvidia-cuda-toolkit 12.4 and
#               libnccl-dev 2.22 (non-free).
#               Or the URL of an official cxx11-ABI LibTorch zip for CUDA 12
#               (e.g. https://download.pytorch.org/libtorch/cu124/libtorch-cxx11-abi-shared-with-deps-2.6.0%2Bcu124.zip):
#               unpacked to /opt/libtorch and put on CMAKE_PREFIX_PATH; Debian's
#               CUDA 12.4 toolkit and NCCL headers are still used to compile,
#               and the runtime stage takes its libraries (cuDNN, cuBLAS, NCCL,
#               ... bundled in the zip) from /opt/libtorch/lib. UNTESTED: the
#               machines this was written on cannot reach download.pytorch.org.
#   CUDNN       real (default): Debian's nvidia-cudnn, an installer that
#               downloads cuDNN 9 from NVIDIA at build time; building with it
#               accepts NVIDIA's cuDNN licence (preseeded below).
#               placeholder: an empty local `nvidia-cudnn` package (built here
#               with dpkg-deb, Version 9.0.0.312~cuda12) so apt installs
#               libtorch-cuda-dev where NVIDIA cannot be reached; the link then
#               needs -Wl,--allow-shlib-undefined (libtorch_cuda.so needs
#               libcudnn.so.9, absent) and the binaries cannot start (cuDNN is
#               loaded with LibTorch). A compile-and-link check only
#               (scripts/check-cuda-build.sh: `--target builder`); never ship
#               its runtime stage. Ignored with a LibTorch zip (it bundles cuDNN).
#   TESTS       OFF (default) / ON: also build the GPU tests
#               (distbench_worker_gpu_tests), so they compile against CUDA
#               LibTorch.
#   JOBS        compile jobs (default 2). VERSION: the image label.
#
# Stages: deps (the packages to compile with; about 7.5 GB), builder (deps
# plus the sources and the build) and the default, runtime (the shared
# libraries and the two binaries). Without a GPU the binaries build and
# link but cannot run CUDA code; running is for a GPU machine. At run time the
# NVIDIA container toolkit mounts the host driver's libcuda.so.1 over the one
# Debian's libcuda1 (a dependency of libtorch-cuda-2.6) puts in the image.
ARG BASE_IMAGE=debian:trixie

# deps: the packages (and a LibTorch zip), no sources: what the builder
# compiles with, cached as layers of their own.
FROM ${BASE_IMAGE} AS deps
ARG DEBIAN_FRONTEND=noninteractive
ARG LIBTORCH=debian
ARG CUDNN=real
# The packages first, in one layer that depends only on LIBTORCH and CUDNN,
# so a change to the sources rebuilds from the COPY below and apt's layer
# stays cached. scripts/install-deps.sh's build and test packages, with
# Debian 13's names; libgloo-cuda-dev is the CUDA build's Gloo (it replaces
# libgloo-dev; ProcessGroupGloo.hpp needs its headers).
RUN set -e; \
    case "$LIBTORCH" in \
      debian) torch="libtorch-cuda-dev libgloo-cuda-dev" ;; \
      http://*|https://*) torch="libgloo-dev curl unzip" ;; \
      *) echo "LIBTORCH must be 'debian' or a URL, not '$LIBTORCH'" >&2; exit 2 ;; \
    esac; \
    cudnn=; \
    if [ "$LIBTORCH" = debian ]; then \
      case "$CUDNN" in \
        real) echo 'nvidia-cudnn nvidia-cudnn/question select I Agree' | debconf-set-selections ;; \
        placeholder) \
          mkdir -p /tmp/cudnn/DEBIAN; \
          printf '%s\n' 'Package: nvidia-cudnn' 'Version: 9.0.0.312~cuda12' 'Architecture: all' \
            'Maintainer: distbench <distbench@localhost>' \
            'Description: placeholder for the cuDNN installer (distbench compile-and-link check)' \
            ' Installs nothing: libtorch-cuda-2.6 links but cannot load without cuDNN.' \
            > /tmp/cudnn/DEBIAN/control; \
          dpkg-deb --build /tmp/cudnn /tmp/nvidia-cudnn.deb; \
          cudnn=/tmp/nvidia-cudnn.deb ;; \
        *) echo "CUDNN must be 'real' or 'placeholder', not '$CUDNN'" >&2; exit 2 ;; \
      esac; \
    fi; \
    apt-get update; \
    apt-get install -y --no-install-recommends \
      ca-certificates cmake g++ make ccache pkg-config \
      nvidia-cuda-toolkit libnccl-dev $torch $cudnn \
      libcpprest-dev libssl-dev libyaml-cpp-dev prometheus-cpp-dev \
      libgtest-dev libgmock-dev googletest; \
    rm -rf /var/lib/apt/lists/* /tmp/cudnn /tmp/nvidia-cudnn.deb
# An official LibTorch zip (LIBTORCH=URL; untested here, see above).
RUN set -e; \
    case "$LIBTORCH" in \
      http://*|https://*) \
        curl -fsSL "$LIBTORCH" -o /tmp/libtorch.zip; \
        unzip -q /tmp/libtorch.zip -d /opt; \
        rm /tmp/libtorch.zip; \
        test -f /opt/libtorch/share/cmake/Torch/TorchConfig.cmake ;; \
      *) mkdir -p /opt/libtorch ;; \
    esac
ENV CMAKE_PREFIX_PATH=/opt/libtorch

FROM deps AS builder
ARG LIBTORCH=debian
ARG CUDNN=real
WORKDIR /src
COPY . .
ARG TESTS=OFF
# DISTBENCH_REPORT_HTML=OFF as in worker.Dockerfile (no npm here). No
# operator, no e2e, no container checks: only the worker and the CLI. The
# configure's output stays in /build/configure.log (what it found of CUDA,
# NCCL and LibTorch, and what it compiles with CUDA). The test executables
# list their tests when ctest runs (PRE_TEST), not right after linking
# (gtest_discover_tests' default, POST_BUILD): here they cannot start, with
# CUDNN=placeholder or without a GPU driver.
RUN set -e; \
    link=; \
    if [ "$LIBTORCH" = debian ] && [ "$CUDNN" = placeholder ]; then \
      link=-Wl,--allow-shlib-undefined; \
    fi; \
    cmake -S . -B /build -DCMAKE_BUILD_TYPE=Release \
      -DDISTBENCH_CUDA=ON -DDISTBENCH_REPORT_HTML=OFF \
      -DDISTBENCH_BUILD_TESTS="$TESTS" -DDISTBENCH_OPERATOR=OFF -DDISTBENCH_E2E=OFF \
      -DDISTBENCH_CONTAINER_CHECKS=OFF -DCMAKE_GTEST_DISCOVER_TESTS_DISCOVERY_MODE=PRE_TEST \
      -DCMAKE_EXE_LINKER_FLAGS="$link" >/tmp/configure.log 2>&1 \
      || { cat /tmp/configure.log; exit 1; }; \
    cat /tmp/configure.log; \
    mv /tmp/configure.log /build/configure.log
ARG JOBS=2
# ccache in a build cache mount (as worker.Dockerfile; Debian 12's podman 4.3
# keeps it in /var/tmp/buildah-cache/distbench-ccache-cuda): a rebuild after
# a small change recompiles only what changed. CCACHE_DIR elsewhere: a
# directory the build mounts itself (scripts/check-cuda-build.sh mounts the
# LibTorch 2.6 check's, whose objects most of this build shares: Debian
# 13's CPU and CUDA LibTorch ship the same headers). With TESTS=ON also the
# GPU tests (label gpu; the unit and cluster tests are the CPU checks' to
# compile, scripts/check-libtorch2.sh), -k: every failing translation unit
# in one build log.
ARG CCACHE_DIR=/root/.cache/ccache
RUN --mount=type=cache,target=/root/.cache/ccache,id=distbench-ccache-cuda \
    set -e; \
    targets="distbench-worker distbench"; \
    if [ "$TESTS" = ON ]; then targets="$targets distbench_worker_gpu_tests"; fi; \
    echo "building: $targets"; \
    export CCACHE_DIR="$CCACHE_DIR" CCACHE_BASEDIR=/src CCACHE_NOHASHDIR=1; \
    ccache -z >/dev/null 2>&1 || true; \
    cmake --build /build -j"${JOBS}" --target $targets -- -k; \
    ccache --print-stats 2>/dev/null | awk '$1 ~ /cache_hit$/ { hits += $2 } $1 == "cache_miss" { misses += $2 } \
      END { printf "ccache, this build: %d hits, %d misses\n", hits, misses }' 

FROM ${BASE_IMAGE} AS runtime
ARG DEBIAN_FRONTEND=noninteractive
ARG LIBTORCH=debian
ARG CUDNN=real
# Debian's CUDA LibTorch 2.6 (it pulls in the CUDA 12 runtime libraries,
# NCCL, libcuda1 and the cuDNN installer), OpenBLAS, prometheus-cpp,
# cpprestsdk, yaml-cpp. With a LibTorch zip: its lib/ (below) instead of
# libtorch-cuda-2.6, and libnccl2.
RUN set -e; \
    case "$LIBTORCH" in \
      debian) torch=libtorch-cuda-2.6; \
        if [ "$CUDNN" != real ]; then \
          echo "CUDNN=$CUDNN: only --target builder (a compile-and-link check); the runtime needs CUDNN=real" >&2; \
          exit 2; \
        fi; \
        echo 'nvidia-cudnn nvidia-cudnn/question select I Agree' | debconf-set-selections ;; \
      *) torch=libnccl2 ;; \
    esac; \
    apt-get update; \
    apt-get install -y --no-install-recommends \
      $torch libopenblas0-serial \
      libprometheus-cpp-core1.0 \
      libcpprest2.10 libyaml-cpp0.8 libssl3t64; \
    rm -rf /var/lib/apt/lists/*; \
    groupadd --gid 65532 distbench; \
    useradd --uid 65532 --gid 65532 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin distbench
COPY --from=builder /opt/libtorch /opt/libtorch
ENV LD_LIBRARY_PATH=/opt/libtorch/lib
ARG VERSION=0.2.0
LABEL org.opencontainers.image.title="distbench-worker-cuda" \
      org.opencontainers.image.description="distbench benchmark ranks (distbench-worker) and the distbench CLI, LibTorch 2.x with CUDA and NCCL" \
      org.opencontainers.image.version="${VERSION}"
# distbench finds distbench-worker beside itself.
COPY --from=builder /build/bin/distbench-worker /build/bin/distbench /usr/local/bin/
RUN for b in distbench-worker distbench; do \
      ! ldd /usr/local/bin/$b | grep 'not found' || exit 1; \
    done
USER 65532:65532
WORKDIR /tmp
ENTRYPOINT ["/usr/local/bin/distbench-worker"]
