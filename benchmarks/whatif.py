#!/usr/bin/python3
"""Check `distbench predict` against emulated links on this machine.

For each kind (DDP, HybridDDPRPC), on a tiny topology whose traffic makes
the link the bottleneck:

  1. distbench run SPEC --report KIND-unshaped.json       (calibration: loopback)
  2. per link speed B:
       distbench predict KIND-unshaped.json --bandwidth B --json
       distbench run SPEC --links "bandwidth=B" --report KIND-B.json

then prints, per kind and speed, the predicted and the measured p50 of the
row that communicates (DDP: the row with every trainer, "1M/2R"; hybrid:
"All", seconds per epoch) and the error, and exits 1 if any error is over
--goal percent (default 15). The model: docs/performance.md, "Prediction".

`--links` shapes every rank's link with tbf in its own network namespace
(`distbench run --help`), which needs root and tc. Without them the script
prints why and exits 77 (ctest's skip); a distbench whose `run` has no
--links is refused with exit status 2.

    sudo /usr/bin/python3 benchmarks/whatif.py                 # ~2-3 minutes
    sudo /usr/bin/python3 benchmarks/whatif.py --short         # one DDP speed, ~20 s
    sudo /usr/bin/python3 benchmarks/whatif.py --kinds ddp --bandwidths 100mbit,1gbit

Standard library only. Exit status: 0 every prediction within the goal,
1 one was not or a run failed, 2 bad command line or no --links, 77 cannot
shape links here (not root, or no tc).
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXIT_SKIP = 77

# Tiny topologies whose traffic makes the link the bottleneck within a few
# seconds per run on 2 cores. DDP: smallcnn's 1.57 MB of gradients per
# iteration, in two buckets (1 MiB, then the rest). Hybrid: one PS, two
# trainers, each moving 3 requests and 2 replies of 102 KB per step
# (maxBagIndices 50 x embeddingDim 512 floats), so the PS's inbound link
# carries 615 KB a step.
DDP_SPEC = """\
apiVersion: distbench.io/v1alpha1
kind: DistBenchmark
metadata:
  name: whatif-ddp
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
      warmupIterations: {warmup}
      iterations: {iterations}
      ranksPerMachine: 2
"""

HYBRID_SPEC = """\
apiVersion: distbench.io/v1alpha1
kind: DistBenchmark
metadata:
  name: whatif-hybrid
spec:
  topology:
    trainers: 2
    parameterServers: 1
  benchmark:
    kind: HybridDDPRPC
    hybridDDPRPC:
      numEmbeddings: 100
      embeddingDim: 512
      maxBagIndices: 50
      denseLayers: [8]
      batchesPerEpoch: 5
      epochs: {iterations}
      warmupEpochs: {warmup}
"""


class Kind:
    def __init__(self, name, spec, row, bandwidths, iterations, warmup):
        self.name, self.spec, self.row = name, spec, row
        self.bandwidths, self.iterations, self.warmup = bandwidths, iterations, warmup


# Per kind, speeds where the link is the bottleneck. The hybrid run's
# 102 KB messages fit in one tbf burst at 800mbit (the burst is 1 ms of the
# rate), so its link stops limiting it above ~200mbit.
KINDS = {
    "ddp": Kind("DDP", DDP_SPEC, "1M/2R", ["50mbit", "200mbit", "800mbit"], 10, 2),
    "hybrid": Kind("HybridDDPRPC", HYBRID_SPEC, "All", ["50mbit", "100mbit", "200mbit"], 8, 1),
}
SHORT = {"kinds": ["ddp"], "bandwidths": ["200mbit"], "iterations": 5, "warmup": 1}


class Failed(Exception):
    pass


def quote(cmd):
    return " ".join(c if c and all(ch.isalnum() or ch in "-_./=:,@" for ch in c)
                    else "'" + c.replace("'", "'\\''") + "'" for c in map(str, cmd))


def run(cmd, log, timeout):
    print(f"$ {quote(cmd)}", flush=True)
    start = time.perf_counter()
    with open(f"{log}.stdout", "wb") as out, open(f"{log}.stderr", "wb") as err:
        try:
            rc = subprocess.run([str(c) for c in cmd], stdin=subprocess.DEVNULL, stdout=out,
                                stderr=err, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            raise Failed(f"{quote(cmd)}: still running after {timeout} s")
    if rc != 0:
        tail = Path(f"{log}.stderr").read_text(errors="replace").splitlines()[-20:]
        raise Failed(f"{quote(cmd)}: exit status {rc}\n  " + "\n  ".join(tail))
    print(f"  ok, {time.perf_counter() - start:.1f} s", flush=True)
    return Path(f"{log}.stdout").read_text()


def measured_p50(report_path, row):
    doc = json.loads(Path(report_path).read_text())
    for series in doc["series"]:
        if series["row"] == row:
            return statistics.median(series["samples"])
    raise Failed(f"{report_path}: no row {row!r}")


def predicted(prediction_json, row):
    for r in json.loads(prediction_json)["rows"]:
        if r["row"] == row:
            return r["predictedSeconds"], json.loads(prediction_json)["model"]["efficiency"]
    raise Failed(f"distbench predict printed no row {row!r}")


def refuse_without_links(distbench):
    """Exit 2 unless `distbench run` has --links; 77 unless links can be shaped."""
    try:
        help_text = subprocess.run([distbench, "run", "--help"], capture_output=True,
                                   text=True, timeout=30).stdout
    except OSError as e:
        print(f"whatif.py: cannot run {distbench}: {e}", file=sys.stderr)
        sys.exit(2)
    if "--links" not in help_text:
        print(f"whatif.py: {distbench} run has no --links flag (emulated links, issue 22); "
              "build a distbench that has it", file=sys.stderr)
        sys.exit(2)
    if os.geteuid() != 0:
        print("whatif.py: skipped: emulated links (distbench run --links) need root "
              "(network namespaces and tc)", file=sys.stderr)
        sys.exit(EXIT_SKIP)
    if shutil.which("tc") is None or shutil.which("ip") is None:
        print("whatif.py: skipped: emulated links need iproute2's ip and tc on PATH",
              file=sys.stderr)
        sys.exit(EXIT_SKIP)


def parse_args(argv):
    ap = argparse.ArgumentParser(
        description="Predict DDP and HybridDDPRPC p50s at several link speeds from one "
                    "unshaped run, then measure them with emulated links.")
    ap.add_argument("--distbench", default=str(REPO / "build" / "bin" / "distbench"),
                    help="the distbench binary (default: build/bin/distbench)")
    ap.add_argument("--kinds", default="ddp,hybrid",
                    help="comma-separated: ddp, hybrid (default: both)")
    ap.add_argument("--bandwidths", metavar="LIST",
                    help="link speeds for every kind, e.g. 50mbit,200mbit (default per kind: "
                         "DDP 50mbit,200mbit,800mbit; hybrid 50mbit,100mbit,200mbit)")
    ap.add_argument("--goal", type=float, default=15.0,
                    help="largest error allowed, percent of the measured p50 (default 15)")
    ap.add_argument("--efficiency", type=float,
                    help="passed to distbench predict (default: its own, 0.87)")
    ap.add_argument("--iterations", type=int, help="measured iterations (DDP) or epochs (hybrid)")
    ap.add_argument("--warmup", type=int, help="warm-up iterations or epochs")
    ap.add_argument("--short", action="store_true",
                    help="CI: DDP only, 200mbit only, 5 iterations (about 20 s)")
    ap.add_argument("--out", metavar="DIR", help="keep the specs, reports and logs here")
    ap.add_argument("--timeout", type=int, default=300, help="per command, seconds (default 300)")
    args = ap.parse_args(argv)
    kinds = SHORT["kinds"] if args.short else [k.strip() for k in args.kinds.split(",") if k]
    for k in kinds:
        if k not in KINDS:
            ap.error(f"--kinds: unknown kind {k!r} (ddp, hybrid)")
    args.kinds = kinds
    if args.short and not args.bandwidths:
        args.bandwidths = ",".join(SHORT["bandwidths"])
    args.bandwidths = [b.strip() for b in args.bandwidths.split(",") if b.strip()] \
        if args.bandwidths else None
    if args.bandwidths == []:
        ap.error("--bandwidths: give at least one speed")
    if not 0 < args.goal:
        ap.error("--goal: must be a positive percentage")
    if args.efficiency is not None and not 0 < args.efficiency <= 1:
        ap.error("--efficiency: must be in (0, 1]")
    for flag in ("iterations", "warmup"):
        value = getattr(args, flag)
        if value is not None and value < (1 if flag == "iterations" else 0):
            ap.error(f"--{flag}: too small")
    if args.short:
        args.iterations = args.iterations or SHORT["iterations"]
        args.warmup = SHORT["warmup"] if args.warmup is None else args.warmup
    return args


def measure_kind(args, key, workdir):
    kind = KINDS[key]
    spec = workdir / f"{key}.yaml"
    spec.write_text(kind.spec.format(
        iterations=args.iterations or kind.iterations,
        warmup=kind.warmup if args.warmup is None else args.warmup))
    d = args.distbench
    calibration = workdir / f"{key}-unshaped.json"
    run([d, "run", spec, "--report", calibration], workdir / f"{key}-unshaped", args.timeout)
    rows = []
    for bandwidth in args.bandwidths or kind.bandwidths:
        cmd = [d, "predict", calibration, "--bandwidth", bandwidth, "--json"]
        if args.efficiency is not None:
            cmd += ["--efficiency", f"{args.efficiency:g}"]
        guess, eta = predicted(run(cmd, workdir / f"{key}-predict-{bandwidth}", args.timeout),
                               kind.row)
        report = workdir / f"{key}-{bandwidth}.json"
        run([d, "run", spec, "--links", f"bandwidth={bandwidth}", "--report", report],
            workdir / f"{key}-{bandwidth}", args.timeout)
        actual = measured_p50(report, kind.row)
        rows.append((kind.name, kind.row, bandwidth, guess, actual, eta))
    return rows


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    refuse_without_links(args.distbench)
    workdir = Path(args.out).resolve() if args.out else Path(tempfile.mkdtemp(prefix="whatif-"))
    workdir.mkdir(parents=True, exist_ok=True)
    rows = []
    try:
        for key in args.kinds:
            rows += measure_kind(args, key, workdir)
    except Failed as e:
        print(f"\nwhatif.py: a command failed: {e}", file=sys.stderr)
        print(f"reports and logs kept in {workdir}", file=sys.stderr)
        return 1

    print()
    header = ["kind", "row", "bandwidth", "predicted p50", "measured p50", "error"]
    table = [[k, r, b, f"{p * 1e3:.1f} ms", f"{m * 1e3:.1f} ms", f"{(p - m) / m * 100:+.1f}%"]
             for k, r, b, p, m, _ in rows]
    widths = [max(len(h), *(len(t[i]) for t in table)) for i, h in enumerate(header)]
    for line in [header] + table:
        print("  ".join(c.ljust(w) if i < 3 else c.rjust(w)
                        for i, (c, w) in enumerate(zip(line, widths))).rstrip())
    etas = sorted({e for *_, e in rows})
    print(f"\nmodel: eta {', '.join(f'{e:g}' for e in etas)}; calibrated on one unshaped run "
          f"per kind; goal {args.goal:g}%")
    worst = max(abs(p - m) / m * 100 for _, _, _, p, m, _ in rows)
    if args.out:
        print(f"reports and logs kept in {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    if worst > args.goal:
        print(f"whatif.py: worst error {worst:.1f}% is over the goal of {args.goal:g}%",
              file=sys.stderr)
        return 1
    print(f"every prediction within {args.goal:g}% (worst {worst:.1f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
