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
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PYTHON_SCRIPT = REPO / "benchmarks" / "python" / "hybrid_ddp_rpc_baseline.py"
KNOWN_PRESETS = ("tutorial", "default")
STDERR_TAIL_LINES = 40


class RunFailed(Exception):
    def __init__(self, cmd, rc, stderr_path, note=""):
        super().__init__(f"command failed (exit status {rc})")
        self.cmd, self.rc, self.stderr_path, self.note = cmd, rc, stderr_path, note


# --------------------------------------------------------------------------
# Machine
# --------------------------------------------------------------------------

def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def nproc():
    """What `nproc` prints: CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 0


def quote(cmd):
    return " ".join(shlex.quote(str(c)) for c in cmd)


# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------

def run_logged(cmd, log_prefix, timeout):
    """Run cmd with stdout/stderr to LOG.stdout/LOG.stderr; raise RunFailed."""
    print(f"$ {quote(cmd)}", flush=True)
    out_path = Path(f"{log_prefix}.stdout")
    err_path = Path(f"{log_prefix}.stderr")
    start = time.perf_counter()
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        try:
            proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=out,
                                  stderr=err, cwd=REPO, timeout=timeout)
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            raise RunFailed(cmd, "timed out", err_path,
                            f"still running after {timeout:g} s (--timeout)")
        except OSError as e:
            raise RunFailed(cmd, "could not start", err_path, str(e))
    wall = time.perf_counter() - start
    if rc != 0:
        raise RunFailed(cmd, rc, err_path)
    print(f"  ok, {wall:.1f} s wall", flush=True)
    return wall


def distbench_yaml(distbench, preset, epochs, warmup, path, log_prefix, timeout):
    """The preset's resolved resource (from `distbench render`) with
    epochs/warmupEpochs replaced, written to path."""
    cmd = [distbench, "render", "--preset", preset]
    run_logged(cmd, log_prefix, timeout)
    text = Path(f"{log_prefix}.stdout").read_text()
    marker = re.search(r"^--- # config file.*$", text, re.M)
    if not marker:
        raise RunFailed(cmd, 0, Path(f"{log_prefix}.stderr"),
                        "no '--- # config file' document in its output")
    doc = text[marker.end():].lstrip("\n")
    for field, value in (("epochs", epochs), ("warmupEpochs", warmup)):
        if value is None:
            continue
        doc, n = re.subn(rf"^([ \t]+{field}:)[ \t]*\S+[ \t]*$", rf"\g<1> {value}", doc,
                         flags=re.M)
        if n != 1:
            raise RunFailed(cmd, 0, Path(f"{log_prefix}.stderr"),
                            f"expected one '{field}:' line in the rendered "
                            f"config, found {n}")
    path.write_text(f"# derived from `distbench render --preset {preset}` by "
                    f"compare_hybrid.py\n---\n{doc}")
    return path


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
        yaml_path = distbench_yaml(
            args.distbench, preset, args.epochs, args.warmup,
            workdir / f"{preset}-distbench.yaml",
            workdir / f"{preset}-distbench-render", args.timeout)
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
    s = doc["results"]["all"]["summary"]
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
    widths = [max(len(h), *(len(row[i]) for row in rows))
              for i, h in enumerate(header)]
    fmt = " | ".join(["{:<%d}" % widths[0]] +
                     ["{:>%d}" % w for w in widths[1:]])
    print(fmt.format(*header))
    print("-+-".join("-" * w for w in widths))
    for row in rows:
        print(fmt.format(*row))
    for r in results:
        py, db = python_stats(r["python"]), distbench_stats(r["distbench"])
        print(f"  {r['preset']}: {db['epochs'][0]} measured epochs "
              f"(+{db['epochs'][1]} warm-up) per trainer; pooled samples "
              f"python {py['count']}, distbench {db['count']}; wall "
              f"python {r['pythonWall']:.1f} s, distbench "
              f"{r['distbenchWall']:.1f} s")
    for w in warnings:
        print(f"warning: {w}")


def probe(cmd):
    """First line of a quick command's stdout, or None."""
    try:
        out = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                             text=True, timeout=120, cwd=REPO)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0 or not out.stdout.strip():
        return None
    return out.stdout.strip().splitlines()[0]


def print_machine(results, torch_probe=None, distbench_probe=None):
    torch_py, torch_db, distbench_version = torch_probe, None, distbench_probe
    for r in results:
        torch_py = r["python"].get("torch") or torch_py
        versions = r["distbench"].get("versions", {})
        torch_db = versions.get("torch") or torch_db
        distbench_version = versions.get("distbench") or distbench_version
    print(f"machine: {nproc()} CPUs (nproc), {cpu_model()}, "
          f"{platform.system()} {platform.release()}")
    print(f"torch:   python side {torch_py or '?'} (torch.__version__), "
          f"distbench side LibTorch {torch_db or '?'}; "
          f"distbench {distbench_version or '?'}")


def print_failure(e):
    status = f"exit status {e.rc}" if isinstance(e.rc, int) else e.rc
    print(f"\nerror: a run failed ({status})", file=sys.stderr)
    print(f"command: {quote(e.cmd)}", file=sys.stderr)
    if e.note:
        print(f"note: {e.note}", file=sys.stderr)
    if str(e.stderr_path) == os.devnull:
        return
    try:
        lines = Path(e.stderr_path).read_text(errors="replace").splitlines()
    except OSError:
        lines = []
    print(f"last {min(len(lines), STDERR_TAIL_LINES)} lines of its stderr "
          f"({e.stderr_path}):", file=sys.stderr)
    for line in lines[-STDERR_TAIL_LINES:]:
        print(f"  {line}", file=sys.stderr)


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
    ap.add_argument("--distbench", default=str(REPO / "build" / "bin" / "distbench"),
                    help="the distbench binary (default: build/bin/distbench "
                         "in the repository)")
    ap.add_argument("--python", default="/usr/bin/python3"
                    if os.path.exists("/usr/bin/python3") else sys.executable,
                    help="interpreter for the Python baseline (needs torch and "
                         "numpy; default: /usr/bin/python3)")
    ap.add_argument("--epochs", "--python-epochs", dest="epochs", type=int,
                    metavar="N", help="measured epochs for both sides "
                                      "(default: the presets' 100)")
    ap.add_argument("--warmup", type=int, metavar="N",
                    help="warm-up epochs for both sides (default: the presets' 5)")
    ap.add_argument("--out", metavar="DIR",
                    help="keep the JSON reports, logs and YAML here "
                         "(default: a temporary directory, removed on success)")
    ap.add_argument("--timeout", type=float, default=3600.0, metavar="SECONDS",
                    help="per command (default: 3600)")
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
    if args.out:
        workdir = Path(args.out).resolve()
        workdir.mkdir(parents=True, exist_ok=True)
    else:
        workdir = Path(tempfile.mkdtemp(prefix="compare-hybrid-"))
    print(f"compare_hybrid: presets {', '.join(args.presets)}; reports and "
          f"logs in {workdir}", flush=True)

    # Fail before the (slow) Python run if either side cannot start at all.
    results = []
    failure = None
    torch_probe = probe([args.python, "-c",
                         "import torch, numpy; print(torch.__version__)"])
    distbench_probe = probe([args.distbench, "--version"])
    if distbench_probe:
        distbench_probe = distbench_probe.split()[-1]  # "distbench 0.1.0"
    if torch_probe is None:
        failure = RunFailed([args.python, "-c", "import torch, numpy"],
                            "could not start", Path(os.devnull),
                            "the Python baseline needs torch and numpy "
                            "(Debian python3-torch, python3-numpy); see --python")
    elif not os.access(args.distbench, os.X_OK) or os.path.isdir(args.distbench):
        failure = RunFailed([args.distbench], "could not start", Path(os.devnull),
                            "distbench binary missing or not executable; build "
                            "the project or pass --distbench PATH")
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
    print_machine(results, torch_probe, distbench_probe)
    if results:
        print()
        print_table(results)
        print("\nspeed-up = python p50 / distbench p50 (> 1: distbench is "
              "faster); only meaningful within this run on this machine.")
    if failure:
        print_failure(failure)
        print(f"reports and logs kept in {workdir}", file=sys.stderr)
        return 1
    if args.out:
        print(f"reports and logs kept in {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
