#!/usr/bin/python3
"""Run distbench's DDP benchmark and PyTorch's Python DDP back to back.

On this machine, in this order:

  1. distbench run --preset ddp-cpu --report FILE   (or distbench run SPEC)
     (distbench's C++/LibTorch implementation of PyTorch's DDP benchmark)
  2. benchmarks/python/ddp_baseline.py --model M ... --json FILE, once per
     model of the report, with the model, batch size, image size, classes,
     warm-up/measured iterations, bucket cap, intra-op threads, seed and the
     sweep's DDP world sizes read from distbench's report (`config` and
     `results.models[].rows[]`), so both sides measure the same rows.

then prints, per model and sweep row, the p50 seconds/iteration of both
(every rank's iterations pooled) and the ratio python/distbench (> 1 means
distbench is faster), and each implementation's DDP overhead: the p50 of the
2-rank row (or the largest row when there is none) over the `no ddp` p50.

With --repeat K the pair runs K times, alternating which side goes first
(distbench, python; python, distbench; ...), and the table shows medians of
the K p50s and the median (and range) of the K per-run ratios.

With --iterations/--warmup both sides run that many: distbench gets a YAML
resource derived from `distbench render` (the resolved config with
ddp.iterations/warmupIterations replaced).

Standard library only. Exit status 0 when every run succeeded, 1 when one
failed (its command and the tail of its stderr are printed), 2 for a bad
command line.

    /usr/bin/python3 benchmarks/compare_ddp.py
    /usr/bin/python3 benchmarks/compare_ddp.py --repeat 3 --out /tmp/cmp-ddp
    /usr/bin/python3 benchmarks/compare_ddp.py --spec my-ddp.yaml
"""

import argparse
import json
import math
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_common import (REPO, RunFailed, add_binary_args,  # noqa: E402
                            add_output_args, finish, make_workdir, percentile,
                            preflight,
                            print_columns, print_machine, quote, render_yaml,
                            run_logged)

PYTHON_SCRIPT = REPO / "benchmarks" / "python" / "ddp_baseline.py"
DEFAULT_PRESET = "ddp-cpu"


class BadReport(Exception):
    pass


# --------------------------------------------------------------------------
# Statistics
# --------------------------------------------------------------------------

def median(values):
    values = [v for v in values if not math.isnan(v)]
    return statistics.median(values) if values else float("nan")


def ratio(a, b):
    return a / b if b > 0 else float("nan")


# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------

def distbench_yaml(args, path, log_prefix):
    """The resolved resource (from `distbench render`) with ddp.iterations
    and/or ddp.warmupIterations replaced, written to path."""
    source = [args.spec] if args.spec else ["--preset", args.preset]
    return render_yaml(args.distbench, source,
                       (("iterations", args.iterations),
                        ("warmupIterations", args.warmup)),
                       path, log_prefix, args.timeout,
                       f"# derived from `{quote(['render', *source])}` by "
                       f"compare_ddp.py")


def run_report(cmd, log_prefix, report, timeout):
    """Run cmd (which writes the JSON report) and read the report back:
    (its document, wall seconds)."""
    wall = run_logged(cmd, log_prefix, timeout)
    try:
        with open(report) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise BadReport(f"{report}: {e}")
    return doc, wall


def run_distbench(args, target, rep, workdir):
    report = workdir / f"rep{rep}-distbench.json"
    cmd = [args.distbench, "run", *target, "--report", report]
    doc, wall = run_report(cmd, workdir / f"rep{rep}-distbench", report,
                           args.timeout)
    return distbench_results(doc, str(report)), wall


def run_python(args, settings, model, rep, workdir):
    out = workdir / f"rep{rep}-python-{model}.json"
    cmd = [args.python, PYTHON_SCRIPT,
           "--model", model,
           "--batch-size", settings["batchSize"],
           "--image-size", settings["imageSize"],
           "--num-classes", settings["numClasses"],
           "--warmup", settings["warmupIterations"],
           "--iterations", settings["iterations"],
           "--bucket-cap-mb", f"{settings['bucketCapMB']:g}",
           "--ranks", ",".join(str(n) for n in settings["ranks"]),
           "--ranks-per-machine", settings["ranksPerMachine"],
           "--intra-op-threads", settings["intraOpThreads"],
           "--seed", settings["seed"],
           "--json", out]
    if not settings["noDdpRow"]:
        cmd.append("--skip-no-ddp")
    doc, wall = run_report(cmd, workdir / f"rep{rep}-python-{model}", out,
                           args.timeout)
    return python_results(doc, str(out)), wall


# --------------------------------------------------------------------------
# Reading the reports
# --------------------------------------------------------------------------

def _get(doc, path, where):
    cur = doc
    for key in path:
        if isinstance(cur, dict) and key in cur:
            cur = cur[key]
        elif isinstance(cur, list) and isinstance(key, int) and key < len(cur):
            cur = cur[key]
        else:
            raise BadReport(f"{where}: no {'.'.join(str(k) for k in path)}")
    return cur


def distbench_settings(doc, where):
    """What the Python side must run to measure the same rows."""
    kind = doc.get("benchmark", {}).get("kind")
    if kind is not None and kind != "DDP":
        raise BadReport(f"{where}: benchmark kind is {kind!r}, not DDP")
    spec = _get(doc, ("config", "spec"), where)
    ddp = _get(spec, ("benchmark", "ddp"), where + " config.spec")
    bench = spec.get("benchmark", {})
    runtime = spec.get("runtime", {})
    models = _get(doc, ("results", "models"), where)
    if not models:
        raise BadReport(f"{where}: results.models is empty")
    # The sweep's rows, from the report itself rather than re-planned here.
    rows = _get(models[0], ("rows",), where + " results.models[0]")
    ranks = sorted({int(r["ranks"]) for r in rows if r.get("ddp", True)
                    and r.get("row") != "no ddp"})
    no_ddp = any(r.get("ddp") is False or r.get("row") == "no ddp" for r in rows)
    s = {
        "models": [m["model"] for m in models],
        "batchSize": int(ddp["batchSize"]),
        "imageSize": int(ddp["imageSize"]),
        "numClasses": int(ddp.get("numClasses", 1000)),
        "warmupIterations": int(ddp["warmupIterations"]),
        "iterations": int(ddp["iterations"]),
        "ranksPerMachine": int(ddp.get("ranksPerMachine", 8)),
        "bucketCapMB": float(bench.get("bucketCapMB", doc.get("bucketCapMB", 25))),
        "intraOpThreads": int(runtime.get("intraOpThreads", 1)),
        "seed": int(bench.get("seed", doc.get("seed", 0))),
        "trainers": int(spec.get("topology", {}).get("trainers", 0)),
        "ranks": ranks,
        "noDdpRow": no_ddp,
    }
    if s["intraOpThreads"] < 0:
        s["intraOpThreads"] = 0
    return s


def distbench_results(doc, where):
    """{model: {(ddp, ranks): {"row", "samples"}}} plus settings/versions."""
    series = _get(doc, ("series",), where)
    out = {}
    for m in _get(doc, ("results", "models"), where):
        rows = {}
        for r in m.get("rows", []):
            idx = r.get("series")
            if not isinstance(idx, int) or not 0 <= idx < len(series):
                raise BadReport(f"{where}: {m.get('model')} row {r.get('row')}: "
                                f"bad series index {idx!r}")
            ddp = bool(r.get("ddp", r.get("row") != "no ddp"))
            samples = series[idx].get("samples") or []
            rows[(ddp, int(r["ranks"]))] = {"row": r.get("row"),
                                            "samples": samples}
        out[m["model"]] = rows
    return {"rows": out, "settings": distbench_settings(doc, where),
            "versions": doc.get("versions", {})}


def python_results(doc, where):
    rows = {}
    for r in _get(doc, ("rows",), where):
        rows[(bool(r["ddp"]), int(r["ranks"]))] = {"row": r["row"],
                                                   "samples": r["samples"]}
    return {"model": _get(doc, ("config", "model"), where), "rows": rows,
            "config": doc.get("config", {}), "torch": doc.get("torch")}


def overhead_row(keys):
    """The DDP row whose p50 over `no ddp` is the overhead: 2 ranks if there,
    else the largest."""
    ddp_ranks = [n for ddp, n in keys if ddp]
    if (False, 1) not in keys or not ddp_ranks:
        return None
    return (True, 2) if 2 in ddp_ranks else (True, max(ddp_ranks))


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------

def fmt_x(v):
    return "n/a" if math.isnan(v) else f"{v:.2f}x"


def fmt_s(v):
    return "n/a" if math.isnan(v) else f"{v:.4f}"


def print_table(settings, reps):
    """reps: [{"distbench": distbench_results, "python": {model: python_results},
    "walls": {...}}, ...]; "walls" may be left out (reports read from files)."""
    warnings = []
    K = len(reps)
    for model in settings["models"]:
        print(f"\nBenchmark: {model} with batch size {settings['batchSize']} "
              f"(image {settings['imageSize']}, {settings['iterations']} "
              f"measured + {settings['warmupIterations']} warm-up iterations "
              f"per rank, bucket {settings['bucketCapMB']:g} MB, "
              f"intra-op threads {settings['intraOpThreads'] or 'default'})\n")
        keys = sorted(reps[0]["distbench"]["rows"].get(model, {}),
                      key=lambda k: (k[0], k[1]))
        header = ("row", "python p50 s/iter", "distbench p50 s/iter",
                  "ratio (python/distbench)", "python p95", "distbench p95",
                  "samples py/db")
        lines = []
        for key in keys:
            py50, db50, py95, db95, ratios = [], [], [], [], []
            counts = set()
            label = reps[0]["distbench"]["rows"][model][key]["row"]
            for rep in reps:
                db = rep["distbench"]["rows"].get(model, {}).get(key)
                py = rep["python"].get(model, {}).get("rows", {}).get(key)
                if db is None or py is None:
                    warnings.append(f"{model} {label}: missing from the "
                                    f"{'python' if py is None else 'distbench'}"
                                    f" results of a repetition")
                    continue
                p, d = percentile(py["samples"], 50), percentile(db["samples"], 50)
                py50.append(p)
                db50.append(d)
                py95.append(percentile(py["samples"], 95))
                db95.append(percentile(db["samples"], 95))
                ratios.append(ratio(p, d))
                counts.add((len(py["samples"]), len(db["samples"])))
                if py["row"] != db["row"]:
                    warnings.append(f"{model}: row labels differ: python "
                                    f"{py['row']!r}, distbench {db['row']!r}")
            r = fmt_x(median(ratios))
            if K > 1 and ratios:
                r += f" [{min(ratios):.2f}-{max(ratios):.2f}]"
            lines.append((label, fmt_s(median(py50)), fmt_s(median(db50)), r,
                          fmt_s(median(py95)), fmt_s(median(db95)),
                          ", ".join(f"{a}/{b}" for a, b in sorted(counts)) or "-"))
            for a, b in counts:
                if a != b:
                    warnings.append(f"{model} {label}: pooled sample counts "
                                    f"differ (python {a}, distbench {b})")
        print_columns(header, lines)

        ov = overhead_row(set(keys))
        if ov is None:
            print("\nDDP overhead: n/a (needs a `no ddp` row and a DDP row)")
        else:
            label = reps[0]["distbench"]["rows"][model][ov]["row"]
            per_side = {}
            for side in ("python", "distbench"):
                vals = []
                for rep in reps:
                    rows = (rep["distbench"]["rows"].get(model, {})
                            if side == "distbench"
                            else rep["python"].get(model, {}).get("rows", {}))
                    if ov in rows and (False, 1) in rows:
                        vals.append(ratio(percentile(rows[ov]["samples"], 50),
                                          percentile(rows[(False, 1)]["samples"], 50)))
                per_side[side] = median(vals)
            print(f"\nDDP overhead = p50({label}) / p50(no ddp)"
                  f"{' (median of ' + str(K) + ' runs)' if K > 1 else ''}: "
                  f"python {fmt_x(per_side['python'])}, "
                  f"distbench {fmt_x(per_side['distbench'])}")

        for rep_i, rep in enumerate(reps, 1):
            py = rep["python"].get(model)
            if py is None:
                continue
            for key, want in (("batchSize", "batchSize"), ("imageSize", "imageSize"),
                              ("numClasses", "numClasses"),
                              ("iterations", "iterations"),
                              ("warmupIterations", "warmupIterations"),
                              ("bucketCapMB", "bucketCapMB"),
                              ("intraOpThreads", "intraOpThreads")):
                have = py["config"].get(key)
                if have is not None and float(have) != float(settings[want]):
                    warnings.append(f"{model}: {key} differs: python {have}, "
                                    f"distbench {settings[want]}")
    walls = [(rep["walls"]["distbench"], sum(rep["walls"]["python"].values()))
             for rep in reps if "walls" in rep]
    if walls:
        print("\nwall time per run (process start-up and rendezvous included, "
              "not what the percentiles measure): " +
              "; ".join(f"distbench {d:.1f} s, python {p:.1f} s" for d, p in walls))
    for w in dict.fromkeys(warnings):  # de-duplicated, in order
        print(f"warning: {w}")


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------

def parse_args(argv):
    ap = argparse.ArgumentParser(
        description="Run distbench's DDP benchmark and PyTorch's Python DDP "
                    "back to back on this machine and print p50 seconds/"
                    "iteration per sweep row, the ratio python/distbench and "
                    "each side's DDP overhead.")
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--preset", default=DEFAULT_PRESET,
                     help=f"distbench preset to run (default: {DEFAULT_PRESET})")
    src.add_argument("--spec", metavar="FILE",
                     help="a DistBenchmark YAML of kind DDP instead of --preset")
    add_binary_args(ap, "torch and torchvision")
    ap.add_argument("--repeat", type=int, default=1, metavar="K",
                    help="run the pair K times, alternating which goes first; "
                         "report medians (default: 1)")
    ap.add_argument("--iterations", type=int, metavar="N",
                    help="measured iterations for both sides (default: the "
                         "spec's)")
    ap.add_argument("--warmup", type=int, metavar="N",
                    help="warm-up iterations for both sides (default: the spec's)")
    add_output_args(ap)
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be >= 1")
    if args.iterations is not None and args.iterations < 1:
        ap.error("--iterations must be >= 1")
    if args.warmup is not None and args.warmup < 0:
        ap.error("--warmup must be >= 0")
    if args.spec:
        if not Path(args.spec).is_file():
            ap.error(f"--spec: no such file: {args.spec}")
        args.spec = str(Path(args.spec).resolve())
    args.distbench = str(Path(args.distbench).resolve())
    return args


def run_all(args, workdir, reps):
    """Append one entry per finished repetition to reps."""
    if args.iterations is None and args.warmup is None:
        target = [args.spec] if args.spec else ["--preset", args.preset]
    else:
        target = [distbench_yaml(args, workdir / "distbench.yaml",
                                 workdir / "distbench-render")]
    settings = None
    for rep in range(1, args.repeat + 1):
        distbench_first = rep % 2 == 1 or settings is None
        entry = {"python": {}, "walls": {"python": {}}}
        order = ("distbench", "python") if distbench_first else ("python", "distbench")
        for side in order:
            if side == "distbench":
                print(f"\n== run {rep}/{args.repeat}: distbench (C++ / LibTorch) ==",
                      flush=True)
                entry["distbench"], entry["walls"]["distbench"] = \
                    run_distbench(args, target, rep, workdir)
                if settings is None:
                    settings = entry["distbench"]["settings"]
                    print(f"  sweep: models {', '.join(settings['models'])}; "
                          f"rows {'no ddp, ' if settings['noDdpRow'] else ''}"
                          f"{', '.join(str(n) + ' ranks' for n in settings['ranks'])}",
                          flush=True)
            else:
                for model in settings["models"]:
                    print(f"\n== run {rep}/{args.repeat}: PyTorch Python DDP, "
                          f"{model} ==", flush=True)
                    entry["python"][model], entry["walls"]["python"][model] = \
                        run_python(args, settings, model, rep, workdir)
        reps.append(entry)
    return settings


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    workdir = make_workdir(args.out, "compare-ddp-")
    what = args.spec or f"preset {args.preset}"
    print(f"compare_ddp: {what}, {args.repeat} run(s) of each side; reports "
          f"and logs in {workdir}", flush=True)

    # Fail before the (slow) runs if either side cannot start at all.
    reps = []
    settings = None
    torch_probe, distbench_probe, failure = preflight(
        args.python, args.distbench, "torch, torchvision, numpy",
        "the Python baseline needs torch, torchvision and numpy (Debian "
        "python3-torchvision, python3-numpy); see --python")
    if failure is None:
        try:
            settings = run_all(args, workdir, reps)
        except RunFailed as e:
            failure = e
        except (BadReport, OSError, ValueError, KeyError, TypeError) as e:
            failure = RunFailed(["(reading the reports in", workdir, ")"],
                                "bad report", Path(os.devnull),
                                f"{type(e).__name__}: {e}")

    print()
    print_machine([py for rep in reps for py in rep["python"].values()],
                  [rep["distbench"] for rep in reps],
                  torch_probe, distbench_probe)
    if reps and settings:
        print_table(settings, reps)
        print("\nratio = python p50 / distbench p50 (> 1: distbench's median "
              "iteration is faster); only meaningful within this run on this "
              "machine.")
    return finish(failure, workdir, keep=bool(args.out))


if __name__ == "__main__":
    sys.exit(main())
