#!/usr/bin/env bash
# Installs everything distbench needs to build, test and benchmark, from
# Debian 12 (bookworm) packages only. Safe to run again: when every package is
# already installed it checks with dpkg-query and exits in well under a second,
# without touching apt. Runs as root, or through sudo when not root.
#   --run   only what building and running distbench and distbench-worker
#           needs (RUN_PACKAGES; scripts/run-default.sh): no test, Python or
#           browser packages
set -euo pipefail

# Building distbench and distbench-worker, and running benchmarks.
RUN_PACKAGES=(
  # build
  cmake g++ make ccache pkg-config
  # LibTorch 1.13 (CPU) and the Gloo headers that ProcessGroupGloo.hpp needs
  # (libtorch-dev does not pull libgloo-dev in)
  libtorch-dev libgloo-dev
  # OpenBLAS for LibTorch's BLAS calls instead of the slow reference BLAS
  libopenblas0-serial
  # HTTP/TLS/JSON, YAML, Prometheus client
  libcpprest-dev libssl-dev libyaml-cpp-dev prometheus-cpp-dev
  # IANA time zones for DistBenchmarkSchedule's spec.timeZone (api/src/time_zone.cpp)
  tzdata
)

# Everything else the tests and the benchmark comparisons need.
TEST_PACKAGES=(
  # tests and micro-benchmarks
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  # PyTorch's Python side: the baselines of benchmarks/compare_*.py, which
  # ctest runs (label benchmark); torchvision also for
  # worker/tests/data/dump_torchvision_params.py
  python3-torch python3-torchvision python3-numpy
  # scripts/gen-schedule-crd.py, which a ctest runs
  python3-yaml
  # scraping /metrics by hand
  curl
  # drawing `distbench report` pages offline in the browser test
  # (cli/tests/report_page/report_browser_test.sh) and for docs/images
  # (scripts/report-screenshots.sh); DejaVu so the text has a font
  chromium fonts-dejavu-core
)

case ${1:-} in
  --run) PACKAGES=("${RUN_PACKAGES[@]}") ;;
  "") PACKAGES=("${RUN_PACKAGES[@]}" "${TEST_PACKAGES[@]}") ;;
  *) echo "usage: $0 [--run]" >&2; exit 2 ;;
esac

source "$(dirname "${BASH_SOURCE[0]}")/missing-packages.sh"
missing_packages "${PACKAGES[@]}"

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

source "$(dirname "${BASH_SOURCE[0]}")/apt-as-root.sh"
if [[ ${as_root[0]:-} == false ]]; then
  echo "install-deps: not root and no sudo; as root, run: apt-get install ${missing[*]}" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
"${apt_get[@]}" update
"${apt_get[@]}" install -y --no-install-recommends "${missing[@]}"
echo "install-deps: done"
