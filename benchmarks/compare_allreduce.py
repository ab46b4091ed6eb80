#!/usr/bin/env python3
"""distbench's Collectives allreduce against a bare loop of c10d Gloo allreduces.

Runs, back to back and alternating, (a) `distbench run` of a Collectives
resource with only allreduce float32 at one size, and (b)
`distbench-c10d-floor`, which times a plain loop of allreduce calls on the
same number of ranks. Prints both bus bandwidths and their ratio
(distbench / bare): how much of c10d's bandwidth the benchmark's own
harness (barrier per iteration, timing, correctness check) leaves.

usage: benchmarks/compare_allreduce.py [--bytes N] [--ranks N] [--iterations K] [--repeat R]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def busbw_factor(ranks):
    return 2.0 * (ranks - 1) / ranks


def run_distbench(args, workdir):
    spec = os.path.join(workdir, "allreduce.yaml")
    report = os.path.join(workdir, "allreduce-report.json")
    with open(spec, "w") as f:
        f.write(f"""apiVersion: distbench.io/v1alpha1
kind: DistBenchmark
metadata: {{name: allreduce-compare}}
spec:
  topology: {{trainers: {args.ranks}}}
  benchmark:
    kind: Collectives
    collectives:
      ops: [allreduce]
      dtypes: [float32]
      minBytes: {args.bytes}
      maxBytes: {args.bytes}
      warmupIterations: 3
      iterations: {args.iterations}
""")
    subprocess.run([args.distbench, "run", spec, "--report", report], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(report) as f:
        op = json.load(f)["results"]["ops"][0]
    return op["busbwGBps"], op["latency"]["p50"]


def run_bare(args):
    floats = args.bytes // 4
    out = subprocess.run([args.floor, "--ranks", str(args.ranks), "--floats", str(floats),
                          "--iterations", str(args.iterations)],
                         check=True, capture_output=True, text=True).stdout
    match = re.search(r"allreduce\s+%d floats,\s+\d+ ranks:\s+([\d.]+) us" % floats, out)
    if not match:
        sys.exit("could not read distbench-c10d-floor's output:\n" + out)
    seconds = float(match.group(1)) / 1e6
    return args.bytes / seconds / 1e9 * busbw_factor(args.ranks), seconds


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bytes", type=int, default=64 << 20)
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--iterations", type=int, default=20)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--distbench", default=os.path.join(ROOT, "build/bin/distbench"))
    p.add_argument("--floor", default=os.path.join(ROOT, "build/bin/distbench-c10d-floor"))
    args = p.parse_args()
    ratios = []
    with tempfile.TemporaryDirectory() as workdir:
        for i in range(args.repeat):
            # Alternate the order so drift on a shared machine hits both sides.
            runs = [("distbench", lambda: run_distbench(args, workdir)),
                    ("bare c10d", lambda: run_bare(args))]
            if i % 2:
                runs.reverse()
            got = {name: fn() for name, fn in runs}
            ratio = got["distbench"][0] / got["bare c10d"][0]
            ratios.append(ratio)
            print(f"run {i + 1}: distbench busbw {got['distbench'][0]:.3f} GB/s "
                  f"(p50 {got['distbench'][1] * 1e3:.1f} ms), bare loop busbw "
                  f"{got['bare c10d'][0]:.3f} GB/s (mean {got['bare c10d'][1] * 1e3:.1f} ms), "
                  f"ratio {ratio:.3f}")
    print(f"median ratio distbench/bare over {args.repeat} runs: {statistics.median(ratios):.3f} "
          f"(allreduce float32, {args.bytes} B, {args.ranks} ranks)")


if __name__ == "__main__":
    main()
