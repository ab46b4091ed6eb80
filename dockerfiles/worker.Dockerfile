# The distbench worker image: distbench-worker (every rank of a benchmark:
# master, parameter server, trainer; LibTorch 1.13 CPU with Gloo) and the
# distbench command line (run, render, validate, diff; report only in the
# prebuilt target, see below), on Debian 12, as a
# non-root user. The operator's pods run `distbench-worker --config FILE`
# from PATH. Build from the repository root (the build context):
#
#   podman build -f dockerfiles/worker.Dockerfile -t distbench/worker:0.2.0 .
#
# or dockerfiles/build-images.sh. The builder stage matches
# operator.Dockerfile's up to the build command (shared cached layers).
ARG BASE_IMAGE=debian:bookworm

FROM ${BASE_IMAGE} AS builder
ARG DEBIAN_FRONTEND=noninteractive
# scripts/install-deps.sh's build packages, less the test and Python ones.
# The top CMakeLists.txt finds LibTorch for every target, so even the
# operator's build needs libtorch-dev to configure; none of it reaches the
# operator image.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      cmake g++ make ccache pkg-config \
      libtorch-dev libgloo-dev \
      libcpprest-dev libssl-dev libyaml-cpp-dev prometheus-cpp-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# DISTBENCH_REPORT_HTML=OFF: the chart libraries that `distbench report`
# embeds come from npm (scripts/install-chart-libraries.sh), which a build
# here need not reach, and the image is for running benchmarks, not reading
# them. This image's `distbench report` says so and exits 2; write pages with
# a host build (a report is plain JSON), or use the `prebuilt` target, whose
# binaries a host build made with the libraries in (docs/report.md).
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=Release -DDISTBENCH_BUILD_TESTS=OFF \
      -DDISTBENCH_REPORT_HTML=OFF
ARG JOBS=2
# ccache in a build cache mount: a rebuild after a small change takes seconds.
# The LibTorch translation units take most of the time (about 4 minutes on
# 2 shared cores from cold).
RUN --mount=type=cache,target=/root/.cache/ccache,id=distbench-ccache \
    CCACHE_DIR=/root/.cache/ccache cmake --build /build -j"${JOBS}" --target distbench-worker distbench

FROM ${BASE_IMAGE} AS runtime
ARG DEBIAN_FRONTEND=noninteractive
# LibTorch's shared objects (they pull in Gloo, protobuf, sleef, ...),
# OpenBLAS for its BLAS calls (as scripts/install-deps.sh does: the
# reference BLAS is much slower), prometheus-cpp core for the metrics
# registry (http/ serves /metrics; no civetweb), cpprestsdk
# (reports), yaml-cpp (the config).
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libtorch1.13 libopenblas0-serial \
      libprometheus-cpp-core1.0 \
      libcpprest2.10 libyaml-cpp0.7 libssl3 \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 65532 distbench \
 && useradd --uid 65532 --gid 65532 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin distbench
ARG VERSION=0.2.0
LABEL org.opencontainers.image.title="distbench-worker" \
      org.opencontainers.image.description="distbench benchmark ranks (distbench-worker) and the distbench CLI, LibTorch 1.13 CPU" \
      org.opencontainers.image.version="${VERSION}"
USER 65532:65532
WORKDIR /tmp
ENTRYPOINT ["/usr/local/bin/distbench-worker"]

# `--target prebuilt`: the runtime stage above with binaries a Debian 12 host
# build already made, from a build context holding bin/distbench-worker and
# bin/distbench (dockerfiles/build-images.sh with DISTBENCH_PREBUILT_BIN).
# Seconds instead of minutes, and no 2 GB libtorch-dev builder: what the
# cluster end-to-end suite (e2e/) uses. The builder stage is skipped.
FROM runtime AS prebuilt
COPY bin/distbench-worker bin/distbench /usr/local/bin/
RUN for b in distbench-worker distbench; do \
      ! ldd /usr/local/bin/$b | grep 'not found' || exit 1; \
    done \
 && distbench --version

# The default target (last): built from source in the builder stage.
FROM runtime
# distbench finds distbench-worker beside itself.
COPY --from=builder /build/bin/distbench-worker /build/bin/distbench /usr/local/bin/
RUN for b in distbench-worker distbench; do \
      ! ldd /usr/local/bin/$b | grep 'not found' || exit 1; \
    done \
 && distbench --version
