#!/usr/bin/python3
"""Run PyTorch's Python DDP+RPC benchmark and distbench back to back.

For each requested topology (default: tutorial, then default) this runs, on
this machine and in this order:

  1. benchmarks/python/hybrid_ddp_rpc_baseline.py --preset P --json FILE
     (PyTorch's own Python implementation: RPC, dist autograd, DDP)
  2. distbench run --preset P --report FILE
     (distbench's C++/LibTorch implementation)

then reads both JSON reports and prints one table: seconds per epoch at p50
and p95 (every trainer's epochs pooled, the "All" row of both tools) and the
speed-up python/distbench (> 1 means distbench is faster).

With --epochs/--warmup both sides run fewer epochs: the Python script gets
--epochs/--warmup, and distbench gets a temporary DistBenchmark YAML derived
from the preset (`distbench render --preset P`'s resolved config with
epochs/warmupEpochs replaced).

Standard library only. Exit status 0 when every run succeeded, 1 when one
failed (its command and the tail of its stderr are printed), 2 for a bad
command line.

    /usr/bin/python3 benchmarks/compare_hybrid.py --presets tutorial
    /usr/bin/python3 benchmarks/compare_hybrid.py --epochs 20 --out /tmp/cmp
"""

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_common import (REPO, RunFailed, add_binary_args,  # noqa: E402
                            add_output_args, finish, make_workdir, preflight,
                            print_columns, print_machine, render_yaml,
                            run_logged)

PYTHON_SCRIPT = REPO / "benchmarks" / "python" / "hybrid_ddp_rpc_baseline.py"
KNOWN_PRESETS = ("tutorial", "default")


# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------

def run_topology(args, preset, workdir):
    py_json = workdir / f"{preset}-python.json"
    db_json = workdir / f"{preset}-distbench.json"

    print(f"\n== {preset}: PyTorch Python (DDP + RPC) ==", flush=True)
    cmd = [args.python, PYTHON_SCRIPT, "--preset", preset, "--json", py_json]
    if args.epochs is not None:
        cmd += ["--epochs", str(args.epochs)]
    if args.warmup is not None:
        cmd += ["--warmup", str(args.warmup)]
    py_wall = run_logged(cmd, workdir / f"{preset}-python", args.timeout)

    print(f"\n== {preset}: distbench (C++ / LibTorch) ==", flush=True)
    if args.epochs is None and args.warmup is None:
        target = ["--preset", preset]
    else:
        # The preset's resolved resource with epochs/warmupEpochs replaced.
        yaml_path = render_yaml(
            args.distbench, ["--preset", preset],
            (("epochs", args.epochs), ("warmupEpochs", args.warmup)),
            workdir / f"{preset}-distbench.yaml",
            workdir / f"{preset}-distbench-render", args.timeout,
            f"# derived from `distbench render --preset {preset}` by "
            f"compare_hybrid.py")
        target = [yaml_path]
    cmd = [args.distbench, "run", *target, "--report", db_json]
    db_wall = run_logged(cmd, workdir / f"{preset}-distbench", args.timeout)

    with open(py_json) as f:
        py = json.load(f)
    with open(db_json) as f:
        db = json.load(f)
    return {"preset": preset, "python": py, "distbench": db,
            "pythonWall": py_wall, "distbenchWall": db_wall}


# --------------------------------------------------------------------------
# Reading the reports
# --------------------------------------------------------------------------

def python_stats(doc):
    a = doc["all"]
    return {"p50": a["p50"], "p95": a["p95"], "count": a.get("count"),
            "trainers": doc["topology"]["trainers"],
            "ps": doc["topology"]["parameterServers"],
            "model": (doc["config"]["num_embeddings"],
                      doc["config"]["embedding_dim"],
                      [str(x) for x in doc["config"]["dense_layers"]]),
            "epochs": (doc["config"]["epochs"], doc["config"]["warmup"])}


def distbench_stats(doc):
    # The report keeps each row's samples and summary in doc["series"];
    # results.all names its entry (older reports held the summary inline).
    entry = doc["results"]["all"]
    if "series" in entry:
        entry = doc["series"][entry["series"]]
    s = entry["summary"]
    h = doc.get("config", {}).get("spec", {}).get("benchmark", {}) \
           .get("hybridDDPRPC", {})
    return {"p50": s["p50"], "p95": s["p95"], "count": s.get("count"),
            "trainers": doc["topology"]["trainers"],
            "ps": doc["topology"]["parameterServers"],
            "model": (h.get("numEmbeddings"), h.get("embeddingDim"),
                      [str(x) for x in h.get("denseLayers", [])]),
            "epochs": (h.get("epochs"), h.get("warmupEpochs"))}


def print_table(results):
    header = ("topology", "python p50 s/epoch", "distbench p50 s/epoch",
              "speed-up (python/distbench)", "python p95 s/epoch",
              "distbench p95 s/epoch")
    rows = []
    warnings = []
    for r in results:
        py, db = python_stats(r["python"]), distbench_stats(r["distbench"])
        for key in ("trainers", "ps", "model", "epochs"):
            if py[key] != db[key]:
                warnings.append(f"{r['preset']}: {key} differs: python "
                                f"{py[key]}, distbench {db[key]}")
        label = f"{r['preset']} ({db['trainers']}T/{db['ps']}PS)"
        speedup = py["p50"] / db["p50"] if db["p50"] > 0 else float("inf")
        rows.append((label, f"{py['p50']:.4f}", f"{db['p50']:.4f}",
                     f"{speedup:.2f}x", f"{py['p95']:.4f}", f"{db['p95']:.4f}"))
    print_columns(header, rows)
    for r in results:
        py, db = python_stats(r["python"]), distbench_stats(r["distbench"])
        print(f"  {r['preset']}: {db['epochs'][0]} measured epochs "
              f"(+{db['epochs'][1]} warm-up) per trainer; pooled samples "
              f"python {py['count']}, distbench {db['count']}; wall "
              f"python {r['pythonWall']:.1f} s, distbench "
              f"{r['distbenchWall']:.1f} s")
    for w in warnings:
        print(f"warning: {w}")


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------

def parse_args(argv):
    ap = argparse.ArgumentParser(
        description="Run PyTorch's Python DDP+RPC benchmark and distbench "
                    "back to back on this machine and print seconds/epoch "
                    "and the speed-up python/distbench.")
    ap.add_argument("--presets", default="tutorial,default",
                    help="comma-separated topologies, run in this order "
                         "(default: tutorial,default; known: "
                         f"{', '.join(KNOWN_PRESETS)})")
    add_binary_args(ap, "torch and numpy")
    ap.add_argument("--epochs", "--python-epochs", dest="epochs", type=int,
                    metavar="N", help="measured epochs for both sides "
                                      "(default: the presets' 100)")
    ap.add_argument("--warmup", type=int, metavar="N",
                    help="warm-up epochs for both sides (default: the presets' 5)")
    add_output_args(ap)
    args = ap.parse_args(argv)

    args.presets = [p.strip() for p in args.presets.split(",") if p.strip()]
    if not args.presets:
        ap.error("--presets is empty")
    for p in args.presets:
        if p not in KNOWN_PRESETS:
            ap.error(f"--presets: unknown preset {p!r} "
                     f"(known: {', '.join(KNOWN_PRESETS)})")
    if args.epochs is not None and args.epochs < 1:
        ap.error("--epochs must be >= 1")
    if args.warmup is not None and args.warmup < 0:
        ap.error("--warmup must be >= 0")
    args.distbench = str(Path(args.distbench).resolve())
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    workdir = make_workdir(args.out, "compare-hybrid-")
    print(f"compare_hybrid: presets {', '.join(args.presets)}; reports and "
          f"logs in {workdir}", flush=True)

    # Fail before the (slow) Python run if either side cannot start at all.
    results = []
    torch_probe, distbench_probe, failure = preflight(
        args.python, args.distbench, "torch, numpy",
        "the Python baseline needs torch and numpy "
        "(Debian python3-torch, python3-numpy); see --python")
    for preset in args.presets if failure is None else ():
        try:
            results.append(run_topology(args, preset, workdir))
        except RunFailed as e:
            failure = e
            break
        except (OSError, ValueError, KeyError) as e:
            failure = RunFailed(["(reading the reports of", preset, ")"],
                                "bad report", Path(os.devnull),
                                f"{type(e).__name__}: {e}")
            break

    print()
    print_machine([r["python"] for r in results],
                  [r["distbench"] for r in results],
                  torch_probe, distbench_probe)
    if results:
        print()
        print_table(results)
        print("\nspeed-up = python p50 / distbench p50 (> 1: distbench is "
              "faster); only meaningful within this run on this machine.")
    return finish(failure, workdir, keep=bool(args.out))


if __name__ == "__main__":
    sys.exit(main())
