#!/usr/bin/env bash
# What a GPU visit looks at when scripts/gpu-check.sh has shown a crash or a
# hang (the second visit: every GpuRuns test crashed without a word, and the
# NCCL collectives run sat silent until its deadline). On the GPU machine,
# after gpu-check.sh has built BUILD:
#
#   benchmarks/gpu/diagnose.sh BUILD OUT_DIR [SECONDS]
#
#   OUT_DIR/needed.txt     the first shared libraries each binary names
#                          (cmake/RuntimeFirst.cmake puts libstdc++ first)
#   OUT_DIR/crash-bt.txt   cuda-gdb's backtrace of GpuRuns.HybridTrainersOnTheGpu
#   OUT_DIR/nccl-run.txt   an NCCL allreduce sweep, the Python baseline's sizes
#                          and dtypes, with NCCL_DEBUG=WARN; its report at
#                          OUT_DIR/collectives-nccl-ws1-allreduce.json
#   OUT_DIR/stacks-*.txt   if that run is still going after SECONDS/2, every
#                          thread's stack in each of its ranks
# cuda-gdb, not gdb: the GPU image has no gdb (it debugs CPU-only code too).
set -uo pipefail
BUILD=${1:?BUILD} OUT=${2:?OUT_DIR} LIMIT=${3:-60}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mkdir -p "$OUT"
GDB=$(command -v cuda-gdb || command -v gdb || true)

for b in distbench-worker distbench distbench_worker_gpu_tests; do
  echo "$b:"
  readelf -d "$BUILD/bin/$b" 2>&1 | grep NEEDED | head -4
done >"$OUT/needed.txt"

if [[ -n $GDB ]]; then
  timeout 90 "$GDB" -batch -ex run -ex bt -ex "info sharedlibrary" \
    --args "$BUILD/bin/distbench_worker_gpu_tests" --gtest_filter=GpuRuns.HybridTrainersOnTheGpu \
    >"$OUT/crash-bt.txt" 2>&1
else
  echo "no cuda-gdb or gdb" >"$OUT/crash-bt.txt"
fi

spec=$OUT/collectives-nccl-ws1-allreduce.yaml
cat >"$spec" <<'EOF'
apiVersion: distbench.io/v1alpha1
kind: DistBenchmark
metadata:
  name: gpu-collectives-nccl-ws1-allreduce
spec:
  topology:
    trainers: 1
  benchmark:
    kind: Collectives
    collectives:
      ops: [allreduce]
      dtypes: [float32, float16, bfloat16]
      minBytes: 1024
      maxBytes: 268435456
      stepFactor: 4
      warmupIterations: 5
      iterations: 20
  runtime:
    backend: nccl
    device: cuda
    intraOpThreads: 1
    peerTimeoutSeconds: 60
EOF
NCCL_DEBUG=WARN timeout "$((LIMIT + 10))" "$BUILD/bin/distbench" run "$spec" --timeout "$LIMIT" \
  --report "$OUT/collectives-nccl-ws1-allreduce.json" >"$OUT/nccl-run.txt" 2>&1 &
run=$!
sleep "$((LIMIT / 2))"
if kill -0 "$run" 2>/dev/null && [[ -n $GDB ]]; then
  for pid in $(pgrep -f "distbench-worker"); do
    timeout 40 "$GDB" -batch -p "$pid" -ex "thread apply all bt" >"$OUT/stacks-$pid.txt" 2>&1
  done
fi
wait "$run"
echo "exit $?" >>"$OUT/nccl-run.txt"
