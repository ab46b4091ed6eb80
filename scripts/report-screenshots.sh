#!/usr/bin/env bash
# Regenerates the screenshots of `distbench report` pages in docs/images/
# (docs/report.md shows them): runs a real benchmark of each kind with the
# built distbench, writes each report's page, and has headless Chromium draw
# it offline, check it (scripts/render-report-page.py: every chart drew
# marks, no error, nothing fetched) and screenshot it, 1280 pixels wide.
#
#   scripts/report-screenshots.sh            the presets (about a minute on 2
#                                            cores), into docs/images/
#   scripts/report-screenshots.sh --short DIR
#                                            a few epochs and iterations of each
#                                            kind (under a minute of benchmark),
#                                            into DIR: what ctest runs
#                                            (cli/tests/report_page/report_browser_test.sh),
#                                            so this script cannot rot
#
#   DISTBENCH_BIN  the directory holding distbench and distbench-worker
#                  (default: build/bin in the repository)
#   CHROMIUM       the browser (default: chromium; Debian's package chromium)
#
# The pages: report-hybrid (HybridDDPRPC, with its per-phase chart),
# report-ddp, report-collectives, report-baseline (a HybridDDPRPC run against
# an earlier one, --baseline), report-trend (a series of small HybridDDPRPC
# runs, the last with every rank on one core, --trend: the rolling
# baseline); with --short also report-hybrid-pre-phases: the
# committed report written before the worker recorded phases
# (testing/fixtures/report/README.md), whose page says the phases are missing.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${DISTBENCH_BIN:-$root/build/bin}
fixtures=$root/testing/fixtures/report
log() { echo "report-screenshots [$((SECONDS))s]: $*"; }

short=0
out=$root/docs/images
if [[ ${1:-} == --short ]]; then
  short=1
  out=${2:?usage: report-screenshots.sh [--short DIR]}
elif (($#)); then
  echo "usage: report-screenshots.sh [--short DIR]" >&2
  exit 2
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
[[ -x $bin/distbench && -x $bin/distbench-worker ]] ||
  { log "no distbench and distbench-worker in $bin (build them, or set DISTBENCH_BIN)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/distbench-screenshots.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The short runs: the presets' shapes with a handful of samples each.
cat >"$work/hybrid.yaml" <<'EOF'
apiVersion: distbench.io/v1alpha1
kind: DistBenchmark
metadata:
  name: tutorial
spec:
  topology:
    trainers: 2
    parameterServers: 1
  benchmark:
    hybridDDPRPC:
      numEmbeddings: 100
      embeddingDim: 16
      denseLayers: [8]
      epochs: 20
      warmupEpochs: 2
EOF
cat >"$work/ddp.yaml" <<'EOF'
apiVersion: distbench.io/v1alpha1
kind: DistBenchmark
metadata:
  name: ddp-short
spec:
  topology:
    trainers: 2
  benchmark:
    kind: DDP
    ddp:
      models: [smallcnn]
      batchSize: 4
      imageSize: 32
      numClasses: 10
      warmupIterations: 1
      iterations: 4
EOF
cat >"$work/collectives.yaml" <<'EOF'
apiVersion: distbench.io/v1alpha1
kind: DistBenchmark
metadata:
  name: collectives-short
spec:
  topology:
    trainers: 2
  benchmark:
    kind: Collectives
    collectives:
      ops: [allreduce, allgather, broadcast]
      minBytes: 1024
      maxBytes: 65536
      warmupIterations: 1
      iterations: 4
EOF

run() {  # run NAME SOURCE...: a report in $work/NAME.json
  local name=$1
  shift
  if ! "$bin/distbench" run "$@" --report "$work/$name.json" --timeout 600 \
      >"$work/$name.out" 2>"$work/$name.err"; then
    log "FAILED: distbench run $*"
    tail -n 30 "$work/$name.err"
    exit 1
  fi
  log "ran $name ($*)"
}

# Pages beside the screenshots with --short; for the docs, only the images.
pages=$out
((short)) || { pages=$work/pages; mkdir -p "$pages"; }

# shoot NAME REPORT [distbench report flags...]: $pages/NAME.html, $out/NAME.png.
# The reports are named relative to $work: the page shows the names it was
# given, and a screenshot should not show this machine's temporary directories.
shoot() {
  local name=$1 report=$2
  shift 2
  (cd "$work" && "$bin/distbench" report "$report" -o "$pages/$name.html" "$@")
  python3 "$root/scripts/render-report-page.py" "$pages/$name.html" --screenshot "$out/$name.png"
}

if ((short)); then
  run hybrid "$work/hybrid.yaml"
  run ddp "$work/ddp.yaml"
  run collectives "$work/collectives.yaml"
  # The committed tutorial run is the baseline: the same group keys, another day.
  cp "$fixtures/tutorial-run.json" "$work/hybrid-base.json"
  cp "$fixtures/tutorial-run-pre-phases.json" "$work/"
else
  run hybrid-base --preset tutorial
  run hybrid --preset tutorial
  run ddp --preset ddp-cpu
  run collectives --preset collectives
fi

shoot report-hybrid hybrid.json
shoot report-ddp ddp.json
shoot report-collectives collectives.json
# Noise decides between two runs of one build; no --threshold, so nothing is
# judged a regression, only shown.
shoot report-baseline hybrid.json --baseline hybrid-base.json
# The rolling baseline (--trend): unchanged runs, then one with every rank on
# one core, which the trend marks as a regression (exit 1, expected).
trend_runs=()
for i in $(seq 1 $((short ? 3 : 6))); do
  run "trend-$i" "$root/benchmarks/rolling_baseline/aa-hybrid.yaml"
  trend_runs+=("trend-$i.json")
done
if command -v taskset >/dev/null; then
  run_slowed() { taskset -c 0 "$bin/distbench" run "$@"; }
  if ! run_slowed "$root/benchmarks/rolling_baseline/aa-hybrid.yaml" \
      --report "$work/trend-slowed.json" --timeout 600 >"$work/trend-slowed.out" 2>&1; then
    log "FAILED: the slowed trend run"; tail -n 30 "$work/trend-slowed.out"; exit 1
  fi
  trend_runs+=(trend-slowed.json)
  log "ran trend-slowed (every rank on one core)"
fi
(cd "$work" && "$bin/distbench" report --trend "${trend_runs[@]}" -o "$pages/report-trend.html") ||
  [[ $? == 1 ]]
python3 "$root/scripts/render-report-page.py" "$pages/report-trend.html" \
  --screenshot "$out/report-trend.png"
# A report without phase timings: the page says so in place of the phase chart.
if ((short)); then
  shoot report-hybrid-pre-phases tutorial-run-pre-phases.json
fi

log "wrote $(cd "$out" && ls report-*.png | tr '\n' ' ')in $out"
