#!/usr/bin/env python3
"""distbench against PyTorch from the files of one scripts/gpu-check.sh run.

    benchmarks/gpu/compare_gpu.py OUT_DIR [--gpu SLUG]

OUT_DIR is gpu-check.sh's --out: reports/SPEC-SLUG.json (distbench) and
baselines/SPEC-python-SLUG.json (PyTorch's Python benchmarks), SLUG the
card's short name (h200; cpu in the dry run; default: the one
logs/environment.sh names). Nothing is run; for each spec with both files:

  ddp-*          compare_ddp.py's table: p50 and p95 seconds/iteration per
                 row, the ratio python/distbench (> 1: distbench is faster),
                 each side's DDP overhead at one GPU;
  collectives-*  allreduce per dtype and size: p50 latency of both sides,
                 the ratio python/distbench, both bus bandwidths.

A spec with one side missing is named, with the side. Exit status 0 when
every pair was read, 1 when a file could not be, 2 for a bad command line.
Standard library only.
"""
import argparse
import json
import math
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from compare_common import BadReport, check_schema, print_columns  # noqa: E402
from compare_ddp import distbench_results, print_table, python_results  # noqa: E402


def load(path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise BadReport(f"{path}: {e}")


def slug_from_env(out):
    env = out / "logs" / "environment.sh"
    try:
        m = re.search(r"^GPU_SLUG=['\"]?([A-Za-z0-9_.-]+)", env.read_text(), re.M)
    except OSError:
        m = None
    return m.group(1) if m else None


def compare_ddp(report, baseline):
    db = distbench_results(load(report), str(report))
    py = python_results(load(baseline), str(baseline))
    settings = db["settings"]
    print_table(settings, [{"distbench": db, "python": {py["model"]: py}}])
    print(f"\ndistbench: {report.name} (torch {db['versions'].get('torch', '?')}); "
          f"python: {baseline.name} (torch {py['torch']})")


def fmt(v, spec):
    return "n/a" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, spec)


def compare_collectives(report, baseline):
    doc = load(report)
    check_schema(doc, str(report))
    ops = doc.get("results", {}).get("ops")
    if not isinstance(ops, list):
        raise BadReport(f"{report}: no results.ops")
    mine = {(o.get("dtype"), int(o.get("bytes", -1))): o for o in ops
            if o.get("op") == "allreduce"}
    py = load(baseline)
    theirs = py.get("results")
    if not isinstance(theirs, list):
        raise BadReport(f"{baseline}: no results")
    rows = []
    for r in theirs:
        if r.get("op") != "allreduce":
            continue
        key = (r.get("dtype"), int(r.get("bytes", -1)))
        d = mine.get(key)
        p50_py = r.get("latency", {}).get("p50")
        p50_db = d.get("latency", {}).get("p50") if d else None
        ratio = p50_py / p50_db if p50_py and p50_db else float("nan")
        rows.append((f"{key[0]} {key[1]}", fmt(p50_py and p50_py * 1e6, ".1f"),
                     fmt(p50_db and p50_db * 1e6, ".1f"), fmt(ratio, ".2f"),
                     fmt(r.get("busbwGBps"), ".3f"), fmt(d.get("busbwGBps") if d else None, ".3f")))
    print(f"\nallreduce, {py.get('backend')} on {py.get('device')}, {py.get('ranks')} rank(s); "
          f"python timing: {py.get('timing')}")
    print_columns(("dtype bytes", "python p50 us", "distbench p50 us",
                   "ratio (python/distbench)", "python busbw GB/s", "distbench busbw GB/s"), rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path, help="scripts/gpu-check.sh's --out directory")
    ap.add_argument("--gpu", help="the card's short name in the file names (default: "
                                  "logs/environment.sh's GPU_SLUG)")
    args = ap.parse_args(argv)
    slug = args.gpu or slug_from_env(args.out)
    if not slug:
        ap.error(f"no --gpu and no GPU_SLUG in {args.out}/logs/environment.sh")
    specs = sorted(p.stem for p in (Path(__file__).resolve().parent).glob("*.yaml"))
    failed = 0
    for spec in specs:
        kind = "ddp" if spec.startswith("ddp-") else \
            "collectives" if spec.startswith("collectives-") else None
        if kind is None:
            continue  # HybridDDPRPC has no Python baseline here: gpu-check diffs it against its CPU twin
        report = args.out / "reports" / f"{spec}-{slug}.json"
        baseline = args.out / "baselines" / f"{spec}-python-{slug}.json"
        print(f"\n=== {spec} ({slug}) ===")
        missing = [side for side, path in (("distbench", report), ("python", baseline))
                   if not path.is_file()]
        if missing:
            print(f"not compared: no {' and no '.join(missing)} file "
                  f"({', '.join(str(p) for p in (report, baseline) if not p.is_file())})")
            continue
        try:
            (compare_ddp if kind == "ddp" else compare_collectives)(report, baseline)
        except BadReport as e:
            print(f"error: {e}")
            failed = 1
    return failed


if __name__ == "__main__":
    sys.exit(main())
