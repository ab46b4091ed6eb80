#!/usr/bin/python3
"""Check `distbench predict` against emulated links and other world sizes.

For each kind (DDP, HybridDDPRPC), from ONE unshaped calibration run of two
trainers:

  1. distbench run SPEC --report KIND-calibration.json        (loopback)
  2. per topology T (the calibration's, half and twice the trainers, and
     for the hybrid kind two parameter servers) and per link speed B
     (log-spaced from 50mbit to 3200mbit, and unshaped):
       distbench predict KIND-calibration.json --bandwidth B \
           --world-size ... --parameter-servers ... --link-burst tbf --json
       distbench run SPEC(T) --links "bandwidth=B" --report KIND-T-B.json

then prints, per kind, topology and speed, the predicted p50 with its
interval and the measured p50 of the row that communicates (DDP: the row
with every trainer, "1M/NR"; hybrid: "All", seconds per epoch), and exits 1
if any error is over --goal percent (default 10; --short: 15) or outside the printed
interval. The unshaped point is a run of its own, not the calibration. The
model: docs/performance.md, "Prediction".

`--links` shapes every rank's link with tbf in its own network namespace
(`distbench run --help`), which needs root and tc. Without them the script
prints why and exits 77 (ctest's skip); a distbench whose `run` has no
--links is refused with exit status 2.

    sudo /usr/bin/python3 benchmarks/whatif.py                 # ~10 minutes
    sudo /usr/bin/python3 benchmarks/whatif.py --short         # DDP at 50 and 800mbit, ~30 s
    sudo /usr/bin/python3 benchmarks/whatif.py --kinds ddp --bandwidths 100mbit,1gbit

Standard library only. Exit status: 0 every prediction within the goal and
its interval, 1 one was not or a run failed, 2 bad command line or no
--links, 77 cannot shape links here (not root, or no tc).
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

# Topologies where compute and the link both matter over the sweep, each
# run a few seconds on 2 cores. DDP: smallcnn at 32 images of 64x64, about
# 0.1 s of compute per iteration and 1.57 MB of gradients in 3 buckets (the
# link paces it below ~400mbit). Hybrid: about 1500 indices a batch in bags
# of 1.5, so each PS reply and gradient message is 140-160 KB, and a
# 1.13 MB dense allreduce ([512, ReLU, 512, ReLU, 8] on 32 floats a PS).
DDP_SPEC = """\
apiVersion: distbench.io/v1alpha1
kind: DistBenchmark
metadata:
  name: whatif-ddp
spec:
  topology:
    trainers: {trainers}
  benchmark:
    kind: DDP
    ddp:
      models: [smallcnn]
      batchSize: 32
      imageSize: 64
      numClasses: 10
      warmupIterations: {warmup}
      iterations: {iterations}
      ranksPerMachine: {trainers}
"""

HYBRID_SPEC = """\
apiVersion: distbench.io/v1alpha1
kind: DistBenchmark
metadata:
  name: whatif-hybrid
spec:
  topology:
    trainers: {trainers}
    parameterServers: {servers}
  benchmark:
    kind: HybridDDPRPC
    hybridDDPRPC:
      numEmbeddings: 1000
      embeddingDim: 32
      minBagIndices: 1000
      maxBagIndices: 2000
      maxOffsetStep: 2
      denseLayers: ["512", "ReLU", "512", "ReLU", "8"]
      batchesPerEpoch: 2
      epochs: {iterations}
      warmupEpochs: {warmup}
"""

BANDWIDTHS = ["50mbit", "100mbit", "200mbit", "400mbit", "800mbit", "1600mbit", "3200mbit",
              "unshaped"]
BASE_TRAINERS = 2


class Kind:
    def __init__(self, name, spec, topologies, iterations, warmup):
        self.name, self.spec, self.topologies = name, spec, topologies
        self.iterations, self.warmup = iterations, warmup

    def row(self, trainers):
        return f"1M/{trainers}R" if self.name == "DDP" else "All"


# (trainers, parameter servers): the calibration's first, then half and
# twice its trainers, and for the hybrid kind twice its servers.
KINDS = {
    "ddp": Kind("DDP", DDP_SPEC, [(2, 0), (1, 0), (4, 0)], 10, 2),
    "hybrid": Kind("HybridDDPRPC", HYBRID_SPEC, [(2, 1), (1, 1), (4, 1), (2, 2)], 6, 1),
}
# Two points far apart, one where the link paces the step and one where
# compute does: a model right in one regime alone fails the other.
# Its runs are short (5 iterations), so a second run lands as far from the
# calibration as two runs of this VM do (up to 14 %): over 8 runs the
# 800mbit point erred -11.4 % to +2.4 %, inside its interval every time, and
# a 10 % goal failed 2 of them. The interval is the check; 15 % the floor.
SHORT = {"kinds": ["ddp"], "bandwidths": ["50mbit", "800mbit"], "iterations": 5, "warmup": 1,
         "goal": 15.0}


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
    """(p50, low, high, eta) of `row` in distbench predict --json output."""
    doc = json.loads(prediction_json)
    for r in doc["rows"]:
        if r["row"] == row:
            return r["predictedSeconds"], r["lowSeconds"], r["highSeconds"], \
                doc["model"]["efficiency"]
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
        description="Predict DDP and HybridDDPRPC p50s at several link speeds and world "
                    "sizes from one unshaped run, then measure them with emulated links.")
    ap.add_argument("--distbench", default=str(REPO / "build" / "bin" / "distbench"),
                    help="the distbench binary (default: build/bin/distbench)")
    ap.add_argument("--kinds", default="ddp,hybrid",
                    help="comma-separated: ddp, hybrid (default: both)")
    ap.add_argument("--bandwidths", metavar="LIST",
                    help="link speeds, e.g. 50mbit,200mbit,unshaped (default: "
                         + ",".join(BANDWIDTHS) + ")")
    ap.add_argument("--base-only", action="store_true",
                    help="only the calibration's topology (two trainers), no other world size")
    ap.add_argument("--goal", type=float,
                    help="largest error allowed, percent of the measured p50 (default 10; "
                         "--short: 15, the run-to-run floor of its 5-iteration runs)")
    ap.add_argument("--efficiency", type=float,
                    help="passed to distbench predict (default: its own, 0.87)")
    ap.add_argument("--iterations", type=int, help="measured iterations (DDP) or epochs (hybrid)")
    ap.add_argument("--warmup", type=int, help="warm-up iterations or epochs")
    ap.add_argument("--short", action="store_true",
                    help="CI: DDP only, two trainers, 50mbit and 800mbit, 5 iterations "
                         "(about 30 s)")
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
        if args.bandwidths else list(BANDWIDTHS)
    if not args.bandwidths:
        ap.error("--bandwidths: give at least one speed")
    if args.short:
        args.base_only = True
    if args.goal is None:
        args.goal = SHORT["goal"] if args.short else 10.0
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


def write_spec(args, kind, workdir, trainers, servers):
    spec = workdir / f"{kind.name.lower()}-t{trainers}-p{servers}.yaml"
    spec.write_text(kind.spec.format(
        trainers=trainers, servers=servers,
        iterations=args.iterations or kind.iterations,
        warmup=kind.warmup if args.warmup is None else args.warmup))
    return spec


def measure_kind(args, key, workdir):
    kind = KINDS[key]
    d = args.distbench
    base_trainers, base_servers = kind.topologies[0]
    calibration = workdir / f"{key}-calibration.json"
    run([d, "run", write_spec(args, kind, workdir, base_trainers, base_servers), "--report",
         calibration], workdir / f"{key}-calibration", args.timeout)
    rows = []
    topologies = kind.topologies[:1] if args.base_only else kind.topologies
    for trainers, servers in topologies:
        spec = write_spec(args, kind, workdir, trainers, servers)
        topology = f"{trainers}t" + (f"{servers}ps" if servers else "")
        for bandwidth in args.bandwidths:
            cmd = [d, "predict", calibration, "--json", "--link-burst", "tbf"]
            links = []
            if bandwidth != "unshaped":
                cmd += ["--bandwidth", bandwidth]
                links = ["--links", f"bandwidth={bandwidth}"]
            if trainers != base_trainers:
                cmd += ["--world-size", str(trainers)]
            if servers != base_servers:
                cmd += ["--parameter-servers", str(servers)]
            if args.efficiency is not None:
                cmd += ["--efficiency", f"{args.efficiency:g}"]
            name = f"{key}-{topology}-{bandwidth}"
            guess, low, high, eta = predicted(run(cmd, workdir / f"{name}-predict", args.timeout),
                                              kind.row(base_trainers))
            report = workdir / f"{name}.json"
            run([d, "run", spec] + links + ["--report", report], workdir / name, args.timeout)
            actual = measured_p50(report, kind.row(trainers))
            rows.append((kind.name, topology, bandwidth, guess, low, high, actual, eta))
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
    header = ["kind", "topology", "bandwidth", "predicted p50", "interval", "measured p50",
              "error"]
    table = []
    worst, outside = 0.0, []
    for k, t, b, p, lo, hi, m, _ in rows:
        error = (p - m) / m * 100
        worst = max(worst, abs(error))
        inside = lo <= m <= hi
        if not inside:
            outside.append(f"{k} {t} {b}")
        table.append([k, t, b, f"{p * 1e3:.1f} ms", f"{lo * 1e3:.1f}..{hi * 1e3:.1f} ms",
                      f"{m * 1e3:.1f} ms", f"{error:+.1f}%" + ("" if inside else " outside")])
    widths = [max(len(h), *(len(t[i]) for t in table)) for i, h in enumerate(header)]
    for line in [header] + table:
        print("  ".join(c.ljust(w) if i < 3 else c.rjust(w)
                        for i, (c, w) in enumerate(zip(line, widths))).rstrip())
    etas = sorted({e for *_, e in rows})
    print(f"\nmodel: eta {', '.join(f'{e:g}' for e in etas)}; links as distbench run --links "
          f"shapes them (--link-burst tbf); one unshaped calibration run per kind of "
          f"{BASE_TRAINERS} trainers; goal {args.goal:g}%")
    if args.out:
        print(f"reports and logs kept in {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    failed = False
    if worst > args.goal:
        print(f"whatif.py: worst error {worst:.1f}% is over the goal of {args.goal:g}%",
              file=sys.stderr)
        failed = True
    if outside:
        print(f"whatif.py: measured outside the predicted interval: {', '.join(outside)}",
              file=sys.stderr)
        failed = True
    if failed:
        return 1
    print(f"every prediction within {args.goal:g}% (worst {worst:.1f}%) and inside its interval")
    return 0


if __name__ == "__main__":
    sys.exit(main())
