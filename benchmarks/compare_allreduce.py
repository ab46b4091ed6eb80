#!/usr/bin/python3
"""distbench's Collectives allreduce against a bare loop of c10d Gloo allreduces.

Runs, back to back and alternating, (a) `distbench run` of a Collectives
resource with only allreduce float32 at one size, and (b)
`distbench-c10d-floor`, which times a plain loop of allreduce calls on the
same number of ranks. Prints both bus bandwidths and their ratio
(distbench / bare): how much of c10d's bandwidth the benchmark's own
harness (barrier per iteration, timing, correctness check) leaves.

distbench's side is read from its report (docs/report-schema.md, schema 2):
the `results.ops[]` entry of allreduce float32 at --bytes, its `busbwGBps`
and `latency.p50`.

Standard library only. Exit status 0 when every run succeeded, 1 when one
failed or its output could not be read (its command and the tail of its
stderr are printed), 2 for a bad command line.

usage: benchmarks/compare_allreduce.py [--bytes N] [--ranks N] [--iterations K] [--repeat R]
"""
import argparse
import json
import os
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_common import (REPO, BadReport, RunFailed,  # noqa: E402
                            add_output_args, check_schema, finish,
                            make_workdir, run_logged)


def busbw_factor(ranks):
    return 2.0 * (ranks - 1) / ranks


def distbench_op(doc, args, where):
    """The results.ops[] entry of allreduce float32 at args.bytes."""
    check_schema(doc, where)
    ops = doc.get("results", {}).get("ops")
    if not isinstance(ops, list):
        raise BadReport(f"{where}: no results.ops (is it a Collectives report?)")
    for op in ops:
        if (op.get("op"), op.get("dtype"), op.get("bytes")) == \
                ("allreduce", "float32", args.bytes):
            try:
                return float(op["busbwGBps"]), float(op["latency"]["p50"])
            except (KeyError, TypeError, ValueError) as e:
                raise BadReport(f"{where}: allreduce float32 {args.bytes} B: "
                                f"no {e}")
    raise BadReport(f"{where}: no allreduce float32 of {args.bytes} bytes in "
                    f"results.ops")


def run_distbench(args, workdir, run):
    spec = workdir / "allreduce.yaml"
    report = workdir / f"run{run}-distbench.json"
    spec.write_text(f"""apiVersion: distbench.io/v1alpha1
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
    run_logged([args.distbench, "run", spec, "--report", report],
               workdir / f"run{run}-distbench", args.timeout)
    try:
        with open(report) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise BadReport(f"{report}: {e}")
    return distbench_op(doc, args, str(report))


def run_bare(args, workdir, run):
    floats = args.bytes // 4
    log = workdir / f"run{run}-floor"
    run_logged([args.floor, "--ranks", str(args.ranks), "--floats", str(floats),
                "--iterations", str(args.iterations)], log, args.timeout)
    out = Path(f"{log}.stdout").read_text(errors="replace")
    match = re.search(r"allreduce\s+%d floats,\s+\d+ ranks:\s+([\d.]+) us" % floats, out)
    if not match:
        raise BadReport(f"{log}.stdout: no 'allreduce {floats} floats' line "
                        f"in distbench-c10d-floor's output")
    seconds = float(match.group(1)) / 1e6
    return args.bytes / seconds / 1e9 * busbw_factor(args.ranks), seconds


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bytes", type=int, default=64 << 20,
                   help="message size, a multiple of 4 (default: 64 MiB)")
    p.add_argument("--ranks", type=int, default=2, help="default: 2")
    p.add_argument("--iterations", type=int, default=20,
                   help="measured iterations per side and run (default: 20)")
    p.add_argument("--repeat", type=int, default=3,
                   help="runs of each side, alternating (default: 3)")
    p.add_argument("--distbench", default=str(REPO / "build" / "bin" / "distbench"),
                   help="the distbench binary (default: build/bin/distbench)")
    p.add_argument("--floor", default=str(REPO / "build" / "bin" / "distbench-c10d-floor"),
                   help="the distbench-c10d-floor binary (default: "
                        "build/bin/distbench-c10d-floor)")
    add_output_args(p)
    args = p.parse_args(argv)
    if args.bytes < 4 or args.bytes % 4:
        p.error("--bytes must be a positive multiple of 4 (float32)")
    if args.ranks < 2:
        p.error("--ranks must be >= 2")
    for name in ("iterations", "repeat"):
        if getattr(args, name) < 1:
            p.error(f"--{name} must be >= 1")
    args.distbench = str(Path(args.distbench).resolve())
    args.floor = str(Path(args.floor).resolve())
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    workdir = make_workdir(args.out, "compare-allreduce-")
    ratios = []
    failure = None
    for i in range(args.repeat):
        # Alternate the order so drift on a shared machine hits both sides.
        runs = [("distbench", lambda: run_distbench(args, workdir, i + 1)),
                ("bare c10d", lambda: run_bare(args, workdir, i + 1))]
        if i % 2:
            runs.reverse()
        try:
            got = {name: fn() for name, fn in runs}
        except RunFailed as e:
            failure = e
            break
        except BadReport as e:
            failure = RunFailed(["(reading the output of run", i + 1, ")"],
                                "bad output", Path(os.devnull), str(e))
            break
        ratio = got["distbench"][0] / got["bare c10d"][0]
        ratios.append(ratio)
        print(f"run {i + 1}: distbench busbw {got['distbench'][0]:.3f} GB/s "
              f"(p50 {got['distbench'][1] * 1e3:.1f} ms), bare loop busbw "
              f"{got['bare c10d'][0]:.3f} GB/s (mean {got['bare c10d'][1] * 1e3:.1f} ms), "
              f"ratio {ratio:.3f}", flush=True)
    if ratios:
        print(f"median ratio distbench/bare over {len(ratios)} runs: "
              f"{statistics.median(ratios):.3f} "
              f"(allreduce float32, {args.bytes} B, {args.ranks} ranks)")
    return finish(failure, workdir, keep=bool(args.out))


if __name__ == "__main__":
    sys.exit(main())
