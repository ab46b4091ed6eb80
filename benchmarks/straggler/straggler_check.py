#!/usr/bin/python3
"""The straggler verdict's false-alarm and miss rates, on real local runs.

For each topology (DDP and HybridDDPRPC, several sizes), runs

  - A/A: the spec unshaped, --aa times. Any rank named a straggler is a
    false alarm (every rank runs the same code on the same machine);
    "inconclusive" and "byDesign" verdicts are counted apart.
  - capped: the spec with one trainer's CPU capped (`distbench run --slow
    "trainerN=cpu:C%"`), --capped times per cap (25, 50, 75 % of a CPU). A
    run that does not name that trainer is a miss (naming another rank is a
    miss too, and is counted as "wrong"). The "timing" column counts the
    runs the per-step timing test alone found the capped trainer in, before
    the cgroup's throttle counter (local.ranks[].throttledSeconds) is read,
    "t.wrong" those in which it named another rank.

and prints a table, per topology and in total. The verdict is the report's
attribution.rows[].stragglerCheck (docs/report-schema.md#attribution): the
DDP row with every trainer, the hybrid's `All`.

--slow caps a rank with a cgroup, which needs root: without it (or without a
cgroup CPU controller) the script says why and exits 77 (ctest's skip).

    sudo /usr/bin/python3 benchmarks/straggler/straggler_check.py            # full (4 A/A, 2 per cap), ~6 min on 2 cores
    sudo /usr/bin/python3 benchmarks/straggler/straggler_check.py --short    # ~10 s (ctest benchmark_straggler_short)
    sudo /usr/bin/python3 benchmarks/straggler/straggler_check.py --topologies hybrid-3t2ps --aa 5

The short mode runs one hybrid topology once unshaped and once with a
trainer at 25 %, and exits 1 if the unshaped run names a straggler or the
capped trainer is missed: the 25 % cap slows a trainer by far more than
A/A noise (docs/performance.md, "Straggler: false alarms and misses").

Standard library only. Exit status: 0 done (full mode: always, the figures
are the result; short mode: both verdicts right), 1 a short-mode verdict
was wrong, 2 a run failed or bad command line, 77 not root or no cgroup.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
EXIT_SKIP = 77

# smallcnn at 32x32, batch 8: a few ms of compute per iteration, so the
# 4-trainer run fits the 2 cores' time budget. ddp-2t-64px is issue 22's
# spec (batch 16 at 64x64, ~0.1 s of compute an iteration): there the
# compute, not the allreduce, is where a cap's throttling lands.
DDP_SPEC = """\
apiVersion: distbench.io/v1alpha1
kind: DistBenchmark
metadata:
  name: straggler-ddp
spec:
  topology:
    trainers: {trainers}
  benchmark:
    kind: DDP
    ddp:
      models: [smallcnn]
      batchSize: {batch}
      imageSize: {image}
      numClasses: 10
      warmupIterations: 3
      iterations: {iterations}
      ranksPerMachine: {trainers}
"""

# The tiny hybrid model: two 1024-wide dense layers make a step's
# compute, a 100 x 512 shard per parameter server its RPCs.
HYBRID_SPEC = """\
apiVersion: distbench.io/v1alpha1
kind: DistBenchmark
metadata:
  name: straggler-hybrid
spec:
  topology:
    trainers: {trainers}
    parameterServers: {servers}
  benchmark:
    kind: HybridDDPRPC
    hybridDDPRPC:
      numEmbeddings: 100
      embeddingDim: 512
      maxBagIndices: 50
      denseLayers: [1024, 1024]
      batchesPerEpoch: 5
      warmupEpochs: 2
      epochs: {iterations}
  runtime:
    metricsLingerSeconds: 0
"""


class Topology:
    def __init__(self, name, kind, trainers, servers, iterations, batch=8, image=32):
        self.name, self.kind = name, kind
        self.trainers, self.servers, self.iterations = trainers, servers, iterations
        self.batch, self.image = batch, image

    def spec(self, iterations=None):
        n = iterations or self.iterations
        if self.kind == "DDP":
            return DDP_SPEC.format(trainers=self.trainers, iterations=n, batch=self.batch,
                                   image=self.image)
        return HYBRID_SPEC.format(trainers=self.trainers, servers=self.servers, iterations=n)

    def capped(self):
        """The trainer whose CPU is capped: the last, so it is no rank the
        layout treats specially (trainer0 shares the master's host role)."""
        return f"trainer{self.trainers - 1}"


TOPOLOGIES = {
    t.name: t
    for t in [
        Topology("ddp-2t", "DDP", 2, 0, 30),
        Topology("ddp-4t", "DDP", 4, 0, 30),
        Topology("ddp-2t-64px", "DDP", 2, 0, 15, batch=16, image=64),
        Topology("hybrid-2t1ps", "HybridDDPRPC", 2, 1, 20),
        Topology("hybrid-3t2ps", "HybridDDPRPC", 3, 2, 20),
        Topology("hybrid-4t2ps", "HybridDDPRPC", 4, 2, 20),
    ]
}
CAPS = [25, 50, 75]
SHORT = {"topologies": ["hybrid-3t2ps"], "aa": 1, "capped": 1, "caps": [25], "iterations": 10}


class Failed(Exception):
    pass


class Unsupported(Exception):
    """--slow cannot be used on this machine (no cgroup controller for CPU)."""


def verdict_row(report):
    """The attribution row the verdict is on: DDP's row with the most ranks,
    the hybrid's `All`."""
    attribution = report.get("attribution") or {}
    rows = attribution.get("rows") or []
    if report.get("kind") == "HybridDDPRPC":
        rows = [r for r in rows if r.get("row") == "All"]
    else:
        rows = [r for r in rows if r.get("stragglerCheck")]
    if not rows:
        raise Failed("the report has no attribution row with a stragglerCheck "
                     "(a distbench from before it?)")
    return rows[-1]


def rescore(binary, out):
    """The runs saved in `out` by an earlier run of this script, scored by
    `binary` (distbench-straggler-rescore: this build's rules): one result per
    report, as run_once's, in the order the script made them."""
    pattern = re.compile(r"^(?P<topo>[a-z0-9-]+)-(?:aa|cap(?P<cap>\d+))-(?P<i>\d+)\.json$")
    found = []
    for path in sorted(Path(out).glob("*.json")):
        m = pattern.match(path.name)
        if m and m.group("topo") in TOPOLOGIES:
            found.append((m.group("topo"), int(m.group("cap") or 0), int(m.group("i")), path))
    if not found:
        raise Failed(f"--rescore: no reports named TOPOLOGY-aa-N.json or TOPOLOGY-capC-N.json in {out}")
    done = subprocess.run([binary] + [str(f[3]) for f in found], capture_output=True, text=True,
                          timeout=600)
    if done.returncode != 0:
        raise Failed(f"{binary} exited {done.returncode}: {done.stderr[-2000:]}")
    results = []
    for (topo, cap, i, path), line in zip(found, done.stdout.splitlines()):
        r = json.loads(line)
        if r.get("verdict") is None:
            raise Failed(f"{path}: no straggler verdict")
        r.update({"topology": topo, "cap": cap or None, "index": i, "seconds": 0})
        results.append(r)
    return results


def run_once(distbench, spec_path, report_path, slow, timeout):
    cmd = [distbench, "run", str(spec_path), "--report", str(report_path),
           "--timeout", str(timeout)]
    if slow:
        cmd += ["--slow", slow]
    started = time.monotonic()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          timeout=timeout + 60)
    if done.returncode != 0:
        if slow and "cgroup" in done.stderr:
            raise Unsupported(f"--slow cannot cap a CPU here: {done.stderr[-500:]}")
        raise Failed(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr[-2000:]}")
    with open(report_path, encoding="utf-8") as f:
        row = verdict_row(json.load(f))
    check = row["stragglerCheck"]
    named = (row.get("straggler") or {}).get("name", "")
    return {"verdict": check["verdict"], "named": named, "evidence": check["evidence"],
            "timingVerdict": check.get("timingVerdict", ""),
            "timingName": check.get("timingName") or "",
            "seconds": time.monotonic() - started, "step": row.get("stepSeconds")}


class Tally:
    def __init__(self):
        self.aa = self.false_alarms = self.aa_inconclusive = self.aa_by_design = 0
        # cap -> [runs, found, wrong, inconclusive, found by timing alone,
        #         another rank named by timing alone]
        self.capped = {}

    def add_aa(self, r):
        self.aa += 1
        self.false_alarms += bool(r["named"])
        self.aa_inconclusive += r["verdict"] == "inconclusive"
        self.aa_by_design += r["verdict"] == "byDesign"

    def add_capped(self, cap, target, r):
        c = self.capped.setdefault(cap, [0, 0, 0, 0, 0, 0])
        c[0] += 1
        c[5] += bool(r["timingName"]) and r["timingName"] != target
        c[1] += r["named"] == target
        c[2] += bool(r["named"]) and r["named"] != target
        c[3] += not r["named"] and r["verdict"] == "inconclusive"
        c[4] += r["timingName"] == target

    def merge(self, other):
        self.aa += other.aa
        self.false_alarms += other.false_alarms
        self.aa_inconclusive += other.aa_inconclusive
        self.aa_by_design += other.aa_by_design
        for cap, c in other.capped.items():
            mine = self.capped.setdefault(cap, [0, 0, 0, 0, 0, 0])
            for i in range(6):
                mine[i] += c[i]


def table(tallies, caps):
    head = f"{'topology':<14} {'A/A runs':>8} {'false alarms':>12} {'inconcl.':>8}"
    for cap in caps:
        head += f" {f'{cap}% found':>10} {'wrong':>5} {'timing':>6} {'t.wrong':>7}"
    lines = [head]
    total = Tally()
    for name, t in tallies.items():
        total.merge(t)
        lines.append(row_text(name, t, caps))
    if len(tallies) > 1:
        lines.append(row_text("all", total, caps))
    return "\n".join(lines), total


def row_text(name, t, caps):
    text = f"{name:<14} {t.aa:>8} {t.false_alarms:>12} {t.aa_inconclusive:>8}"
    for cap in caps:
        runs, found, wrong, _, timing, timing_wrong = t.capped.get(cap, [0] * 6)
        text += f" {f'{found}/{runs}':>10} {wrong:>5} {timing:>6} {timing_wrong:>7}"
    return text


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--distbench", default=str(REPO / "build" / "bin" / "distbench"))
    ap.add_argument("--topologies", default=",".join(TOPOLOGIES),
                    help="comma-separated, of: " + ", ".join(TOPOLOGIES))
    ap.add_argument("--aa", type=int, default=4, help="unshaped runs per topology (default 4)")
    ap.add_argument("--capped", type=int, default=2, help="runs per cap and topology (default 2)")
    ap.add_argument("--caps", default=",".join(map(str, CAPS)),
                    help="percent of a CPU, comma-separated (default 25,50,75)")
    ap.add_argument("--iterations", type=int,
                    help="measured iterations (DDP) or epochs (hybrid); default per topology")
    ap.add_argument("--short", action="store_true", help="the CI mode: one topology, two runs")
    ap.add_argument("--out", metavar="DIR", help="keep the specs and reports here")
    ap.add_argument("--json", metavar="FILE", help="write every run's verdict here")
    ap.add_argument("--timeout", type=int, default=300, help="per run, seconds (default 300)")
    ap.add_argument("--rescore", metavar="BIN",
                    help="run nothing: score the reports an earlier run left in --out with BIN "
                         "(distbench-straggler-rescore, this build's rules)")
    args = ap.parse_args(argv)
    if args.short:
        names, aa, capped, caps = SHORT["topologies"], SHORT["aa"], SHORT["capped"], SHORT["caps"]
        iterations = args.iterations or SHORT["iterations"]
    else:
        names = [n for n in args.topologies.split(",") if n]
        aa, capped, iterations = args.aa, args.capped, args.iterations
        caps = [int(c) for c in args.caps.split(",") if c]
    unknown = [n for n in names if n not in TOPOLOGIES]
    if unknown:
        ap.error(f"--topologies: unknown {', '.join(unknown)}")
    if args.rescore:
        if not args.out:
            ap.error("--rescore needs --out, the directory of the earlier run")
        return report_rescored(args, caps)
    if not Path(args.distbench).exists():
        ap.error(f"--distbench: {args.distbench} does not exist")
    if os.geteuid() != 0:
        print("straggler_check: --slow caps a rank's CPU with a cgroup, which needs root: "
              "skipped", file=sys.stderr)
        return EXIT_SKIP

    out = Path(args.out or tempfile.mkdtemp(prefix="straggler-"))
    out.mkdir(parents=True, exist_ok=True)
    tallies, runs = {}, []
    try:
        for name in names:
            topo = TOPOLOGIES[name]
            spec = out / f"{name}.yaml"
            spec.write_text(topo.spec(iterations), encoding="utf-8")
            tally = tallies[name] = Tally()
            plan = [("aa", None, i) for i in range(aa)]
            plan += [("cap", cap, i) for cap in caps for i in range(capped)]
            for what, cap, i in plan:
                slow = f"{topo.capped()}=cpu:{cap}%" if cap else None
                label = f"{name} {'unshaped' if not cap else slow} #{i + 1}"
                r = run_once(args.distbench, spec, out / f"{name}-{what}{cap or ''}-{i}.json",
                             slow, args.timeout)
                r.update({"topology": name, "cap": cap, "target": topo.capped() if cap else ""})
                runs.append(r)
                if cap:
                    tally.add_capped(cap, topo.capped(), r)
                else:
                    tally.add_aa(r)
                print(f"{label}: {r['verdict']}{' ' + r['named'] if r['named'] else ''} "
                      f"({r['seconds']:.0f} s) {r['evidence']}", flush=True)
    except Unsupported as e:
        print(f"straggler_check: {e}: skipped", file=sys.stderr)
        return EXIT_SKIP
    except (Failed, subprocess.TimeoutExpired) as e:
        print(f"straggler_check: {e}", file=sys.stderr)
        return 2
    return summarize(tallies, runs, caps, args)


def report_rescored(args, caps):
    try:
        runs = rescore(args.rescore, args.out)
    except (Failed, subprocess.TimeoutExpired) as e:
        print(f"straggler_check: {e}", file=sys.stderr)
        return 2
    tallies = {}
    for r in runs:
        tally = tallies.setdefault(r["topology"], Tally())
        if r["cap"]:
            tally.add_capped(r["cap"], TOPOLOGIES[r["topology"]].capped(), r)
        else:
            tally.add_aa(r)
    caps = sorted({r["cap"] for r in runs if r["cap"]})
    return summarize(tallies, runs, caps, args)


def summarize(tallies, runs, caps, args):
    text, total = table(tallies, caps)
    print("\n" + text)
    aa_total = max(total.aa, 1)
    print(f"\nfalse alarms: {total.false_alarms}/{total.aa} A/A runs "
          f"({100 * total.false_alarms / aa_total:.0f} %)")
    for cap in caps:
        c = total.capped.get(cap, [0] * 6)
        if c[0]:
            print(f"misses at {cap}%: {c[0] - c[1]}/{c[0]} ({100 * (c[0] - c[1]) / c[0]:.0f} %), "
                  f"{c[2]} naming another rank, {c[3]} inconclusive; "
                  f"by the timing test alone {c[0] - c[4]}/{c[0]}, "
                  f"{c[5]} naming another rank")
    if args.json:
        Path(args.json).write_text(json.dumps(runs, indent=1), encoding="utf-8")
    if args.short and (total.false_alarms or any(c[1] < c[0] for c in total.capped.values())):
        print("straggler_check: short mode: a verdict was wrong (above)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
