#!/usr/bin/python3
"""Runs one benchmark script or binary in a short mode and checks its output.

ctest's `benchmark` label (benchmarks/tests/CMakeLists.txt) calls this once
per scenario, so that a change to the report schema, a binary's flags or a
script's output breaks the build instead of the next person who reproduces a
figure of docs/performance.md. The figures themselves mean nothing in a short
run and are not compared with anything: what is checked is structure (exit
status, the rows and columns the docs describe, numbers that parse and are
positive, sample counts that match the settings, no `warning:` line) and that
what a script prints agrees with the report it read.

    check_benchmark.py help BINARY...
    check_benchmark.py unknown-flag BINARY...
    check_benchmark.py compare-hybrid    --python PY --distbench BIN --workdir DIR
    check_benchmark.py compare-ddp       --python PY --distbench BIN --workdir DIR
    check_benchmark.py compare-allreduce --python PY --distbench BIN --floor BIN --workdir DIR
    check_benchmark.py c10d-floor        --floor BIN
    check_benchmark.py operator-bench    --operator-bench BIN
    check_benchmark.py allreduce-baseline --python PY
    check_benchmark.py gpu-check-dry     --build-dir DIR --deps DIR --workdir DIR

Exit status 0 when every check passed, 1 otherwise (each failed check is
printed), 2 for a bad command line. Standard library only.
"""

import argparse
import json
import math
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHMARKS = HERE.parent
sys.path.insert(0, str(BENCHMARKS))
from compare_common import percentile  # noqa: E402

NUMBER = r"[0-9]+(?:\.[0-9]+)?"

# The short modes. Each is the smallest form of what docs/performance.md
# runs: a few epochs or iterations, the smallest topology and sizes.
HYBRID_PRESET, HYBRID_TRAINERS, HYBRID_PS = "tutorial", 2, 1
HYBRID_EPOCHS, HYBRID_WARMUP = 3, 1
DDP_SPEC = HERE / "ddp-short.yaml"  # resnet18, batch 2, 32x32, 10 classes, 2 ranks
DDP_MODEL, DDP_BATCH, DDP_IMAGE = "resnet18", 2, 32
DDP_ITERATIONS, DDP_WARMUP, DDP_REPEAT = 3, 1, 1
DDP_ROWS = (("no ddp", 1), ("1M/1R", 1), ("1M/2R", 2))  # (label, ranks)
ALLREDUCE_BYTES, ALLREDUCE_RANKS, ALLREDUCE_ITERATIONS, ALLREDUCE_REPEAT = 1 << 20, 2, 5, 2
FLOOR_RANKS, FLOOR_FLOATS, FLOOR_ITERATIONS = 2, (8, 2200), 20
OPERATOR_RUNS, OPERATOR_BURST, OPERATOR_WORKERS = 2, 5, 2
# allreduce_baseline.py: gloo on the CPU, two dtypes, four sizes.
AR_RANKS, AR_DTYPES, AR_SIZES, AR_ITERATIONS = 2, ("float32", "float16"), (1024, 4096, 16384, 65536), 3
# scripts/gpu-check.sh --dry-run --skip-build: these steps and, per spec of
# benchmarks/gpu/, `run-<spec>` (and `python-<spec>` for DDP and Collectives).
GPU_CHECK_STEPS = ("env", "deps-unpack", "deps-probe", "ctest-gpu")
GPU_CHECK_DIFFS = ("hybrid-tutorial", "hybrid-default")
SCRIPT_TIMEOUT = 240  # seconds per command the compare scripts run


class Checks:
    """Collects failed checks; a scenario reports all of them at once."""

    def __init__(self):
        self.failed = []

    def that(self, ok, message):
        if not ok:
            self.failed.append(message)
        return ok

    def match(self, pattern, text, what):
        """The first match of pattern (re.M) in text, or None and a failure."""
        m = re.search(pattern, text, re.M)
        self.that(m is not None, f"no {what} (expected a line matching {pattern!r})")
        return m

    def positive(self, text, what):
        try:
            v = float(text)
        except (TypeError, ValueError):
            self.failed.append(f"{what}: {text!r} is not a number")
            return float("nan")
        self.that(math.isfinite(v) and v > 0, f"{what}: {v} is not a positive number")
        return v


def printed_ratio(c, printed, num, den, digits, ratio_digits, what):
    """Checks that printed (the text of a ratio with ratio_digits decimals)
    is num / den, where num and den are what the table shows with digits
    decimals: the script divides the unrounded figures."""
    half, ratio_half = 0.5 * 10.0 ** -digits, 0.5 * 10.0 ** -ratio_digits
    lo = (num - half) / (den + half) - ratio_half
    hi = (num + half) / max(den - half, 1e-12) + ratio_half
    c.that(lo <= float(printed) <= hi, f"{what}: {printed} is not {num} / {den}")


def run(cmd, timeout):
    """Run cmd, echo its output (for ctest's log) and return
    (exit status, stdout, stderr, wall seconds)."""
    print(f"$ {' '.join(shlex.quote(str(c)) for c in cmd)}", flush=True)
    start = time.perf_counter()
    try:
        p = subprocess.run([str(c) for c in cmd], stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, errors="replace",
                           timeout=timeout)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc = "timed out"
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
    wall = time.perf_counter() - start
    for name, text in (("stdout", out), ("stderr", err)):
        if text.strip():
            print(f"--- {name} ---\n{text.rstrip()}")
    print(f"--- exit status {rc}, {wall:.1f} s ---", flush=True)
    return rc, out, err, wall


def fresh_dir(path):
    path = Path(path)
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


def table(text, header):
    """Rows (lists of stripped cells) of the print_columns table whose header
    cells are `header`; None when the header line is not there."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if [c.strip() for c in line.split(" | ")] == list(header):
            rows = []
            for row in lines[i + 2:]:
                if " | " not in row:
                    break
                rows.append([c.strip() for c in row.split(" | ")])
            return rows
    return None


def no_warnings(c, text):
    for line in text.splitlines():
        c.that(not line.startswith("warning:"), f"unexpected {line!r}")


def machine_header(c, text):
    c.match(r"^machine: [0-9]+ CPUs \(nproc\), ", text, "machine line")
    m = c.match(r"^torch: +python side (\S+) \(torch.__version__\), distbench side "
                r"LibTorch (\S+); distbench (\S+)$", text, "torch versions line")
    if m:
        c.that("?" not in m.groups(), f"a version is unknown: {m.group(0)!r}")


# --------------------------------------------------------------------------
# Command-line contract of every binary
# --------------------------------------------------------------------------

def scenario_help(args, c):
    for binary in args.binaries:
        name = Path(binary).name
        rc, out, err, wall = run([binary, "--help"], 60)
        c.that(rc == 0, f"{name} --help: exit status {rc}, expected 0")
        first = out.splitlines()[0] if out.strip() else ""
        # The first line: a benchmark that ran instead would print its
        # results there.
        c.that(first.startswith(f"usage: {name}"),
               f"{name} --help: first line of stdout is {first!r}, expected "
               f"'usage: {name} ...'")
        c.that(not err.strip(), f"{name} --help: wrote to stderr")


def scenario_unknown_flag(args, c):
    flag = "--no-such-flag"
    for binary in args.binaries:
        name = Path(binary).name
        rc, out, err, wall = run([binary, flag], 60)
        c.that(rc == 2, f"{name} {flag}: exit status {rc}, expected 2")
        c.that(flag in err, f"{name} {flag}: stderr does not name {flag}")
        c.that(not out.strip(), f"{name} {flag}: wrote to stdout (did it run?)")


# --------------------------------------------------------------------------
# compare_hybrid.py
# --------------------------------------------------------------------------

HYBRID_HEADER = ("topology", "python p50 s/epoch", "distbench p50 s/epoch",
                 "speed-up (python/distbench)", "python p95 s/epoch",
                 "distbench p95 s/epoch")


def scenario_compare_hybrid(args, c):
    workdir = fresh_dir(args.workdir)
    rc, out, err, wall = run(
        [args.python, BENCHMARKS / "compare_hybrid.py", "--presets", HYBRID_PRESET,
         "--epochs", HYBRID_EPOCHS, "--warmup", HYBRID_WARMUP,
         "--distbench", args.distbench, "--python", args.python,
         "--out", workdir, "--timeout", SCRIPT_TIMEOUT], SCRIPT_TIMEOUT * 3)
    c.that(rc == 0, f"exit status {rc}, expected 0")
    machine_header(c, out)
    no_warnings(c, out)
    rows = table(out, HYBRID_HEADER)
    if not c.that(rows is not None, f"no table with the columns {HYBRID_HEADER}"):
        return
    label = f"{HYBRID_PRESET} ({HYBRID_TRAINERS}T/{HYBRID_PS}PS)"
    c.that([r[0] for r in rows] == [label],
           f"table rows {[r[0] for r in rows]}, expected [{label!r}]")
    if not rows or len(rows[0]) != len(HYBRID_HEADER):
        c.that(False, f"malformed row {rows[:1]}")
        return
    row = rows[0]
    py50, db50 = c.positive(row[1], "python p50"), c.positive(row[2], "distbench p50")
    c.positive(row[4], "python p95")
    db95 = c.positive(row[5], "distbench p95")
    m = re.fullmatch(rf"({NUMBER})x", row[3])
    if c.that(m is not None, f"speed-up {row[3]!r} is not N.NNx"):
        printed_ratio(c, m.group(1), py50, db50, 4, 2, "speed-up")
    samples = HYBRID_TRAINERS * HYBRID_EPOCHS
    c.match(rf"^  {HYBRID_PRESET}: {HYBRID_EPOCHS} measured epochs \(\+{HYBRID_WARMUP} "
            rf"warm-up\) per trainer; pooled samples python {samples}, distbench "
            rf"{samples}; wall python {NUMBER} s, distbench {NUMBER} s$",
            out, "per-preset line with matching epochs and sample counts")

    # The distbench column is the report's pooled All series (schema 2).
    report = workdir / f"{HYBRID_PRESET}-distbench.json"
    try:
        doc = json.loads(report.read_text())
    except (OSError, ValueError) as e:
        c.that(False, f"{report}: {e}")
        return
    c.that(doc.get("schemaVersion") == 2, f"{report}: schemaVersion "
           f"{doc.get('schemaVersion')!r}, expected 2 (docs/report-schema.md)")
    try:
        series = doc["series"][doc["results"]["all"]["series"]]
    except (KeyError, IndexError, TypeError) as e:
        c.that(False, f"{report}: no series at results.all.series ({e!r})")
        return
    c.that((series.get("group"), series.get("row")) == ("HybridDDPRPC", "All"),
           f"{report}: results.all.series is {series.get('group')!r}/"
           f"{series.get('row')!r}, expected HybridDDPRPC/All")
    c.that(len(series.get("samples", [])) == samples,
           f"{report}: All has {len(series.get('samples', []))} samples, "
           f"expected {samples}")
    for p, printed in ((50, db50), (95, db95)):
        want = percentile(series.get("samples", []), p)
        c.that(f"{want:.4f}" == f"{printed:.4f}",
               f"distbench p{p} printed {printed:.4f}, the All series' samples "
               f"give {want:.4f}")
        summary = series.get("summary", {}).get(f"p{p}")
        if summary is not None:  # optional: readers may recompute it
            c.that(abs(summary - want) <= 1e-12 * max(1.0, abs(want)),
                   f"{report}: All summary.p{p} {summary} differs from the "
                   f"samples' {want} (report/src/percentiles.cpp)")


# --------------------------------------------------------------------------
# compare_ddp.py
# --------------------------------------------------------------------------

DDP_HEADER = ("row", "python p50 s/iter", "distbench p50 s/iter",
              "ratio (python/distbench)", "python p95", "distbench p95",
              "samples py/db")


def scenario_compare_ddp(args, c):
    workdir = fresh_dir(args.workdir)
    rc, out, err, wall = run(
        [args.python, BENCHMARKS / "compare_ddp.py", "--spec", DDP_SPEC,
         "--iterations", DDP_ITERATIONS, "--warmup", DDP_WARMUP,
         "--repeat", DDP_REPEAT, "--distbench", args.distbench,
         "--python", args.python, "--out", workdir,
         "--timeout", SCRIPT_TIMEOUT], SCRIPT_TIMEOUT * 6)
    c.that(rc == 0, f"exit status {rc}, expected 0")
    machine_header(c, out)
    no_warnings(c, out)
    c.match(rf"^Benchmark: {DDP_MODEL} with batch size {DDP_BATCH} \(image {DDP_IMAGE}, "
            rf"{DDP_ITERATIONS} measured \+ {DDP_WARMUP} warm-up iterations per rank, ",
            out, "Benchmark line with the short mode's settings")
    rows = table(out, DDP_HEADER)
    if not c.that(rows is not None, f"no table with the columns {DDP_HEADER}"):
        return
    labels = [label for label, _ in DDP_ROWS]
    c.that([r[0] for r in rows] == labels,
           f"table rows {[r[0] for r in rows]}, expected {labels}")
    for row, (label, ranks) in zip(rows, DDP_ROWS):
        if not c.that(len(row) == len(DDP_HEADER), f"{label}: malformed row {row}"):
            continue
        py50, db50, _, _ = (c.positive(row[i], f"{label} {DDP_HEADER[i]}")
                            for i in (1, 2, 4, 5))
        if DDP_REPEAT > 1:
            c.that(re.fullmatch(rf"{NUMBER}x \[{NUMBER}-{NUMBER}\]", row[3]) is not None,
                   f"{label}: ratio {row[3]!r} is not 'N.NNx [A.AA-B.BB]' "
                   f"(median [range] of {DDP_REPEAT} runs)")
        else:
            m = re.fullmatch(rf"({NUMBER})x", row[3])
            if c.that(m is not None, f"{label}: ratio {row[3]!r} is not 'N.NNx'"):
                printed_ratio(c, m.group(1), py50, db50, 4, 2, f"{label} ratio")
        n = ranks * DDP_ITERATIONS
        c.that(row[6] == f"{n}/{n}", f"{label}: samples {row[6]!r}, expected {n}/{n}")
    median_of = f" \\(median of {DDP_REPEAT} runs\\)" if DDP_REPEAT > 1 else ""
    c.match(rf"^DDP overhead = p50\(1M/2R\) / p50\(no ddp\){median_of}: "
            rf"python {NUMBER}x, distbench {NUMBER}x$", out, "DDP overhead line")
    for rep in range(1, DDP_REPEAT + 1):
        report = workdir / f"rep{rep}-distbench.json"
        try:
            doc = json.loads(report.read_text())
        except (OSError, ValueError) as e:
            c.that(False, f"{report}: {e}")
            continue
        c.that(doc.get("schemaVersion") == 2, f"{report}: schemaVersion "
               f"{doc.get('schemaVersion')!r}, expected 2")


# --------------------------------------------------------------------------
# compare_allreduce.py
# --------------------------------------------------------------------------

def scenario_compare_allreduce(args, c):
    workdir = fresh_dir(args.workdir)
    rc, out, err, wall = run(
        [args.python, BENCHMARKS / "compare_allreduce.py", "--bytes", ALLREDUCE_BYTES,
         "--ranks", ALLREDUCE_RANKS, "--iterations", ALLREDUCE_ITERATIONS,
         "--repeat", ALLREDUCE_REPEAT, "--distbench", args.distbench,
         "--floor", args.floor, "--out", workdir, "--timeout", SCRIPT_TIMEOUT],
        SCRIPT_TIMEOUT * 2 * ALLREDUCE_REPEAT)
    c.that(rc == 0, f"exit status {rc}, expected 0")
    ratios = []
    for i in range(1, ALLREDUCE_REPEAT + 1):
        m = c.match(rf"^run {i}: distbench busbw ({NUMBER}) GB/s \(p50 ({NUMBER}) ms\), "
                    rf"bare loop busbw ({NUMBER}) GB/s \(mean ({NUMBER}) ms\), "
                    rf"ratio ({NUMBER})$", out, f"run {i} line")
        if m:
            db, _, bare, _, r = (c.positive(v, f"run {i} figure") for v in m.groups())
            printed_ratio(c, m.group(5), db, bare, 3, 3, f"run {i} ratio")
            ratios.append(r)
    m = c.match(rf"^median ratio distbench/bare over {ALLREDUCE_REPEAT} runs: ({NUMBER}) "
                rf"\(allreduce float32, {ALLREDUCE_BYTES} B, {ALLREDUCE_RANKS} ranks\)$",
                out, "median line")
    if m and len(ratios) == ALLREDUCE_REPEAT:
        c.that(abs(float(m.group(1)) - statistics.median(ratios)) <= 0.0011,
               f"median {m.group(1)} is not the median of {ratios}")


# --------------------------------------------------------------------------
# The benchmark binaries
# --------------------------------------------------------------------------

def scenario_c10d_floor(args, c):
    rc, out, err, wall = run(
        [args.floor, "--ranks", FLOOR_RANKS, "--floats", ",".join(map(str, FLOOR_FLOATS)),
         "--iterations", FLOOR_ITERATIONS], 240)
    c.that(rc == 0, f"exit status {rc}, expected 0")
    m = c.match(rf"^ping-pong 4 KiB, rank 0 <-> 1: +({NUMBER}) us round trip$", out,
                "ping-pong line")
    if m:
        c.positive(m.group(1), "ping-pong round trip")
    for floats in FLOOR_FLOATS:
        m = c.match(rf"^allreduce +{floats} floats, +{FLOOR_RANKS} ranks: +({NUMBER}) us$",
                    out, f"allreduce line for {floats} floats")
        if m:
            c.positive(m.group(1), f"allreduce {floats} floats")


def scenario_operator_bench(args, c):
    rc, out, err, wall = run(
        [args.operator_bench, "--runs", OPERATOR_RUNS, "--burst", OPERATOR_BURST,
         "--workers", OPERATOR_WORKERS], 400)
    c.that(rc == 0, f"exit status {rc}, expected 0")
    c.match(rf"^create -> all 22 children of a 17-pod benchmark \({OPERATOR_RUNS} runs each, "
            rf"the operator and a bare client in turn\):$", out, "create latency heading")
    p50s = {}
    for who in ("operator", "bare client"):
        m = c.match(rf"^  {who} +p50 ({NUMBER}) ms +p90 ({NUMBER}) ms +min ({NUMBER}) ms +"
                    rf"max ({NUMBER}) ms$", out, f"{who} create latency quantiles")
        if m:
            p50, p90, lo, hi = (float(v) for v in m.groups())
            c.that(lo <= p50 <= p90 <= hi, f"quantiles out of order: {m.group(0)!r}")
            c.that(hi > 0, f"{who} create latency max is 0")
            p50s[who] = p50
    m = c.match(rf"^  operator / bare client at p50: ({NUMBER})x ", out, "single-run ratio")
    if m and len(p50s) == 2:
        printed_ratio(c, m.group(1), p50s["operator"], p50s["bare client"], 0, 2,
                      "operator / bare client at p50")
    c.match(rf"^{OPERATOR_BURST} benchmarks created at once \({OPERATOR_BURST * 17} pods, "
            rf"{OPERATOR_BURST * 22} objects; POSTs took {NUMBER} s\):$", out,
            "burst heading")
    m = c.match(rf"^  all children present in ({NUMBER}) s ", out,
                "burst line saying all children are present")
    mb = c.match(rf"^  bare client: all children present in ({NUMBER}) s \(its POSTs took {NUMBER} s\)$",
                 out, "bare client's burst line")
    mr = c.match(rf"^  operator / bare client: ({NUMBER})x ", out, "burst ratio")
    if m:
        c.positive(m.group(1), "burst seconds")
    if m and mb and mr:
        printed_ratio(c, mr.group(1), float(m.group(1)), float(mb.group(1)), 1, 2,
                      "operator / bare client, the burst")
    m = c.match(rf"^operator memory: VmRSS ({NUMBER}) MB idle, ({NUMBER}) MB with "
                rf"{OPERATOR_BURST} benchmarks \({OPERATOR_BURST * 17} pods cached\); "
                rf"peak VmHWM ({NUMBER}) MB", out, "memory line")
    if m:
        for v, what in zip(m.groups(), ("idle", "loaded", "peak")):
            c.positive(v, f"operator memory {what}")
    # histogramQuantile prints -1000 ms when the operator exported no buckets.
    c.match(rf"^reconcile duration over the whole run \(operator histogram\): "
            rf"p50 {NUMBER} ms +p99 {NUMBER} ms$", out,
            "reconcile quantiles from the operator's histogram")
    m = c.match(rf"^reconciles in the burst: ({NUMBER}) per benchmark ", out,
                "reconciles per benchmark in the burst")
    if m:
        c.that(float(m.group(1)) >= 1, f"fewer than one reconcile per benchmark: {m.group(0)!r}")


# --------------------------------------------------------------------------
# python/allreduce_baseline.py
# --------------------------------------------------------------------------

def scenario_allreduce_baseline(args, c):
    workdir = fresh_dir(args.workdir)
    report = workdir / "allreduce.json"
    rc, out, err, wall = run(
        [args.python, BENCHMARKS / "python" / "allreduce_baseline.py",
         "--ranks", AR_RANKS, "--dtypes", ",".join(AR_DTYPES),
         "--min-bytes", AR_SIZES[0], "--max-bytes", AR_SIZES[-1], "--step-factor", 4,
         "--warmup", 1, "--iterations", AR_ITERATIONS, "--json", report], SCRIPT_TIMEOUT)
    c.that(rc == 0, f"exit status {rc}, expected 0")
    for dtype in AR_DTYPES:
        c.match(rf"^Benchmark: allreduce {dtype} on {AR_RANKS} ranks$", out, f"{dtype} table")
    try:
        doc = json.loads(report.read_text())
    except (OSError, ValueError) as e:
        c.that(False, f"{report}: {e}")
        return
    c.that((doc.get("backend"), doc.get("device"), doc.get("ranks")) == ("gloo", "cpu", AR_RANKS),
           f"backend/device/ranks {doc.get('backend')}/{doc.get('device')}/{doc.get('ranks')}")
    results = doc.get("results", [])
    want = [(d, b) for d in AR_DTYPES for b in AR_SIZES]
    c.that([(r.get("dtype"), r.get("bytes")) for r in results] == want,
           f"results {[(r.get('dtype'), r.get('bytes')) for r in results]}, expected {want}")
    factor = 2.0 * (AR_RANKS - 1) / AR_RANKS
    for r in results:
        what = f"{r.get('dtype')} {r.get('bytes')} B"
        lat = r.get("latency", {})
        c.that(r.get("correct") is True, f"{what}: not correct")
        c.that(len(r.get("samples", [])) == AR_ITERATIONS, f"{what}: samples")
        c.that(lat.get("min", 0) > 0 and lat["min"] <= lat["p50"] <= lat["p95"] <= lat["max"],
               f"{what}: latency out of order {lat}")
        itemsize = 4 if r.get("dtype") == "float32" else 2
        c.that(r.get("elements") == r.get("bytes", 0) // itemsize, f"{what}: elements")
        algbw = r.get("bytes", 0) / lat.get("p50", 1) / 1e9
        c.that(abs(r.get("algbwGBps", 0) - algbw) <= 1e-9 * max(1, algbw), f"{what}: algbw")
        c.that(r.get("busbwFactor") == factor, f"{what}: busbwFactor {r.get('busbwFactor')}")
        c.that(abs(r.get("busbwGBps", 0) - algbw * factor) <= 1e-9 * max(1, algbw),
               f"{what}: busbw is not algbw x 2(n-1)/n")


# --------------------------------------------------------------------------
# scripts/gpu-check.sh --dry-run, with the binaries already built
# --------------------------------------------------------------------------

def scenario_gpu_check_dry(args, c):
    repo = BENCHMARKS.parent
    workdir = fresh_dir(args.workdir)
    # The bundle: fetched once into --deps (Debian's archive), then a no-op.
    rc, out, err, wall = run(["bash", repo / "scripts" / "fetch-gpu-deps.sh",
                              "--out", args.deps], 900)
    if not c.that(rc == 0, f"fetch-gpu-deps.sh: exit status {rc}, expected 0"):
        return
    m = c.match(r"^fetch-gpu-deps: total ([0-9]+) bytes", out, "total line")
    if m:
        c.that(int(m.group(1)) < 32 << 20, f"bundle {m.group(1)} bytes, expected well under 64 MiB")
    pack = workdir.parent / (workdir.name + ".tgz")
    rc, out, err, wall = run(
        ["bash", repo / "scripts" / "gpu-check.sh", "--dry-run", "--skip-build",
         "--build-dir", args.build_dir, "--deps", args.deps, "--out", workdir,
         "--python", args.python, "--pack", pack], 1500)
    c.that(rc == 0, f"gpu-check.sh: exit status {rc}, expected 0")
    # --pack: what the device tool brings back (at most 8 files) in one.
    try:
        with tarfile.open(pack) as tar:
            names = set(tar.getnames())
        for member in ("summary.txt", "environment.json", "gpu-check.log"):
            c.that(f"{workdir.name}/{member}" in names, f"{pack}: no {workdir.name}/{member}")
    except (OSError, tarfile.TarError) as e:
        c.that(False, f"--pack {pack}: {e}")
    try:
        summary = (workdir / "summary.txt").read_text()
    except OSError as e:
        c.that(False, f"no summary: {e}")
        return
    status = {}
    for line in summary.splitlines()[3:]:  # "%-36s %-30s %8s  %s" rows
        parts = line.split(None, 1)
        if len(parts) == 2:
            status[parts[0]] = parts[1][:30].strip()
    specs = sorted(p.stem for p in (BENCHMARKS / "gpu").glob("*.yaml"))
    want = list(GPU_CHECK_STEPS) + [f"run-{s}" for s in specs] + \
        [f"python-{s}" for s in specs if not s.startswith("hybrid-")] + \
        [f"diff-{t}" for t in GPU_CHECK_DIFFS]
    for name in want:
        st = status.get(name)
        c.that(st is not None and st.startswith("ok"),
               f"summary: {name} is {st!r}, expected ok")
    try:
        env = json.loads((workdir / "environment.json").read_text())
        c.that(env.get("mode") == "dry" and env.get("gpuSlug") == "cpu",
               f"environment.json: mode {env.get('mode')!r}, gpuSlug {env.get('gpuSlug')!r}")
    except (OSError, ValueError) as e:
        c.that(False, f"environment.json: {e}")
    for s in specs:
        report = workdir / "reports" / f"{s}-cpu.json"
        try:
            doc = json.loads(report.read_text())
            c.that(doc.get("schemaVersion") == 2, f"{report}: schemaVersion {doc.get('schemaVersion')!r}")
        except (OSError, ValueError) as e:
            c.that(False, f"{report}: {e}")
        if not s.startswith("hybrid-"):
            baseline = workdir / "baselines" / f"{s}-python-cpu.json"
            try:
                json.loads(baseline.read_text())
            except (OSError, ValueError) as e:
                c.that(False, f"{baseline}: {e}")
    for t in GPU_CHECK_DIFFS:
        diff = workdir / "logs" / f"diff-{t}-cpu.txt"
        c.that(diff.exists() and diff.stat().st_size > 0, f"{diff}: missing or empty")
    # compare_gpu.py: both sides of every DDP and Collectives spec, side by side.
    c.that(status.get("compare", "").startswith("ok"),
           f"summary: compare is {status.get('compare')!r}, expected ok")
    try:
        comparison = (workdir / "comparison.txt").read_text()
    except OSError as e:
        comparison = ""
        c.that(False, f"comparison.txt: {e}")
    for s in specs:
        if s.startswith(("ddp-", "collectives-")):
            c.that(f"=== {s} (cpu) ===" in comparison, f"comparison.txt: no section for {s}")
    c.that(comparison.count("DDP overhead = ") == sum(s.startswith("ddp-") for s in specs),
           "comparison.txt: not one DDP overhead line per DDP spec")
    c.that("not compared" not in comparison and "error:" not in comparison,
           "comparison.txt: a spec was not compared")


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------

SCENARIOS = {
    "help": scenario_help,
    "unknown-flag": scenario_unknown_flag,
    "compare-hybrid": scenario_compare_hybrid,
    "compare-ddp": scenario_compare_ddp,
    "compare-allreduce": scenario_compare_allreduce,
    "c10d-floor": scenario_c10d_floor,
    "operator-bench": scenario_operator_bench,
    "allreduce-baseline": scenario_allreduce_baseline,
    "gpu-check-dry": scenario_gpu_check_dry,
}


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("scenario", choices=sorted(SCENARIOS))
    ap.add_argument("binaries", nargs="*", metavar="BINARY",
                    help="help, unknown-flag: the binaries to run")
    ap.add_argument("--python", default="/usr/bin/python3",
                    help="interpreter for the compare scripts and their "
                         "baselines (needs torch, torchvision, numpy)")
    ap.add_argument("--distbench", help="the distbench binary")
    ap.add_argument("--floor", help="the distbench-c10d-floor binary")
    ap.add_argument("--operator-bench", help="the distbench-operator-bench binary")
    ap.add_argument("--workdir", help="compare scripts: their --out directory "
                                      "(emptied first, kept afterwards)")
    ap.add_argument("--build-dir", help="gpu-check-dry: the build whose binaries run")
    ap.add_argument("--deps", help="gpu-check-dry: where fetch-gpu-deps.sh keeps the bundle")
    args = ap.parse_args(argv)
    needs = {
        "help": ["binaries"], "unknown-flag": ["binaries"],
        "compare-hybrid": ["distbench", "workdir"],
        "compare-ddp": ["distbench", "workdir"],
        "compare-allreduce": ["distbench", "floor", "workdir"],
        "c10d-floor": ["floor"], "operator-bench": ["operator_bench"],
        "allreduce-baseline": ["workdir"],
        "gpu-check-dry": ["build_dir", "deps", "workdir"],
    }[args.scenario]
    for name in needs:
        if not getattr(args, name):
            ap.error(f"{args.scenario} needs "
                     f"{'BINARY...' if name == 'binaries' else '--' + name.replace('_', '-')}")
    if args.binaries and args.scenario not in ("help", "unknown-flag"):
        ap.error(f"{args.scenario} takes no BINARY arguments")
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    c = Checks()
    start = time.perf_counter()
    SCENARIOS[args.scenario](args, c)
    took = time.perf_counter() - start
    if c.failed:
        print(f"\n{args.scenario}: {len(c.failed)} check(s) failed ({took:.1f} s):")
        for f in c.failed:
            print(f"  FAIL {f}")
        return 1
    print(f"\n{args.scenario}: all checks passed ({took:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
