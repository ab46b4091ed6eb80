# The distbench operator image: distbench-operator alone, on Debian 12, as a
# non-root user. Build from the repository root (the build context):
#
#   podman build -f dockerfiles/operator.Dockerfile -t distbench/operator:0.2.0 .
#
# or dockerfiles/build-images.sh, which makes a local Debian base image
# where there is no registry (BASE_IMAGE=localhost/debian:bookworm).
#
# The builder stage is the same, instruction for instruction, as
# worker.Dockerfile's up to the build command, so building both images
# reuses one cached layer of packages and one of the configured tree.
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
# As in worker.Dockerfile (the same layers): no chart libraries, no npm.
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=Release -DDISTBENCH_BUILD_TESTS=OFF \
      -DDISTBENCH_REPORT_HTML=OFF
ARG JOBS=2
# ccache in a build cache mount: a rebuild after a small change takes seconds.
RUN --mount=type=cache,target=/root/.cache/ccache,id=distbench-ccache \
    CCACHE_DIR=/root/.cache/ccache cmake --build /build -j"${JOBS}" --target distbench-operator

FROM ${BASE_IMAGE} AS runtime
ARG DEBIAN_FRONTEND=noninteractive
# cpprestsdk (HTTP, TLS, JSON), yaml-cpp (the DistBenchmark spec),
# prometheus-cpp's core (the metrics registry; the operator serves /metrics
# itself), OpenSSL, the CA bundle for API servers signed by a public CA, and
# the tz database (a DistBenchmarkSchedule's spec.timeZone).
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libcpprest2.10 libyaml-cpp0.7 libprometheus-cpp-core1.0 libssl3 ca-certificates tzdata \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 65532 distbench \
 && useradd --uid 65532 --gid 65532 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin distbench
ARG VERSION=0.2.0
LABEL org.opencontainers.image.title="distbench-operator" \
      org.opencontainers.image.description="Kubernetes operator for distbench DistBenchmark resources" \
      org.opencontainers.image.version="${VERSION}"
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/distbench-operator"]

# `--target prebuilt`: the runtime stage above with the distbench-operator a
# Debian 12 host build already made, from a build context holding
# bin/distbench-operator (dockerfiles/build-images.sh with
# DISTBENCH_PREBUILT_BIN); the builder stage is skipped. For the cluster
# end-to-end suite (e2e/).
FROM runtime AS prebuilt
COPY bin/distbench-operator /usr/local/bin/distbench-operator
RUN ! ldd /usr/local/bin/distbench-operator | grep 'not found'

# The default target (last): built from source in the builder stage.
FROM runtime
COPY --from=builder /build/bin/distbench-operator /usr/local/bin/distbench-operator
# Every shared library the binary needs is in this stage.
RUN ! ldd /usr/local/bin/distbench-operator | grep 'not found'
