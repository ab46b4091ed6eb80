#!/usr/bin/python3
"""Python baseline for distbench's Collectives kind: torch's own all_reduce.

The anchor for distbench's allreduce rows: `torch.distributed.all_reduce`
from Python, at the same backend, device, world size, element types and
message sizes as a Collectives resource, measured the way distbench measures
(and reported with nccl-tests' definitions, docs/report-schema.md):

  * N ranks (torch.multiprocessing spawn, MASTER_ADDR 127.0.0.1, a free
    port), backend gloo or nccl, tensors on the CPU or on CUDA (rank r on GPU
    r mod the GPU count: NCCL needs a GPU per rank; Gloo on CUDA tensors lets
    several ranks share one);
  * per dtype and size (minBytes, x stepFactor, up to maxBytes: nccl-tests'
    -b/-e/-f, the size being the whole buffer): one checked iteration (every
    rank holds rank + 1, the sum must be N(N+1)/2 everywhere), then the
    buffer is zeroed (so repeated sums stay finite in float16) and warm-up
    plus measured iterations follow;
  * every iteration starts after a barrier, outside the timed region, as
    distbench's do; it is timed on each rank, with CUDA events around the
    call on the current stream (--timing event, the default on CUDA), or
    between torch.cuda.synchronize() calls (--timing sync), or with
    time.perf_counter on the CPU;
  * an iteration's time is the slowest rank's (distbench's rule too); the
    report gives p50, p95, min and max of those, algbw = bytes / p50 and
    busbw = algbw x 2(N-1)/N (nccl-tests' allreduce factor).

Prints a table per dtype like distbench's and, with --json PATH,
{"tool": "pytorch-python", "benchmark": "allreduce", ..., "results": [{"op",
"dtype", "bytes", "elements", "correct", "latency": {"p50", "p95", "min",
"max"}, "algbwGBps", "busbwFactor", "busbwGBps", "samples"}]}, the fields of
distbench's results.ops[] entries.

Run:  /usr/bin/python3 benchmarks/python/allreduce_baseline.py --ranks 2 \\
          --min-bytes 1024 --max-bytes 1048576 --iterations 20
      python3 benchmarks/python/allreduce_baseline.py --backend nccl \\
          --device cuda --ranks 1 --dtypes float32,float16,bfloat16 \\
          --max-bytes 268435456
Runs on Debian's torch 1.13 (CPU) and on current CUDA builds.
"""

import argparse
import datetime
import os
import platform
import queue
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from baseline_common import free_port, host, write_json  # noqa: E402

DTYPES = {
    "float32": torch.float32, "float64": torch.float64,
    "float16": torch.float16, "bfloat16": torch.bfloat16,
    "int32": torch.int32, "int64": torch.int64,
}


def busbw_factor(ranks):
    return 2.0 * (ranks - 1) / ranks


def sizes(min_bytes, max_bytes, step):
    out, b = [], min_bytes
    while b <= max_bytes:
        out.append(b)
        b *= step
    return out


# --------------------------------------------------------------------------
# One rank
# --------------------------------------------------------------------------

def _run_rank(rank, cfg, port, results):
    world = cfg["ranks"]
    if cfg["intra_op_threads"] > 0:
        torch.set_num_threads(cfg["intra_op_threads"])
    cuda = cfg["device"] == "cuda"
    device = (torch.device("cuda", rank % torch.cuda.device_count()) if cuda
              else torch.device("cpu"))
    if cuda:
        torch.cuda.set_device(device)
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group(
        backend=cfg["backend"], rank=rank, world_size=world,
        timeout=datetime.timedelta(seconds=cfg["init_timeout"]))

    def barrier():
        if cuda and cfg["backend"] == "nccl":
            dist.barrier(device_ids=[device.index])
        else:
            dist.barrier()

    timing = cfg["timing"]
    if timing == "event":
        start_ev = torch.cuda.Event(enable_timing=True)
        end_ev = torch.cuda.Event(enable_timing=True)

    def timed_once(t):
        if timing == "event":
            start_ev.record()
            dist.all_reduce(t)
            end_ev.record()
            end_ev.synchronize()
            return start_ev.elapsed_time(end_ev) / 1e3
        if timing == "sync":
            torch.cuda.synchronize(device)
            t0 = time.perf_counter()
            dist.all_reduce(t)
            torch.cuda.synchronize(device)
            return time.perf_counter() - t0
        t0 = time.perf_counter()
        dist.all_reduce(t)
        return time.perf_counter() - t0

    out = []
    expected = world * (world + 1) // 2
    for name in cfg["dtypes"]:
        dtype = DTYPES[name]
        itemsize = torch.tensor([], dtype=dtype).element_size()
        for nbytes in sizes(cfg["min_bytes"], cfg["max_bytes"], cfg["step_factor"]):
            n = nbytes // itemsize
            t = torch.full((n,), rank + 1, dtype=dtype, device=device)
            barrier()
            dist.all_reduce(t)
            correct = bool((t == expected).all().item())
            t.zero_()
            samples = []
            for i in range(cfg["warmup"] + cfg["iterations"]):
                barrier()  # everyone starts together; not part of the op
                s = timed_once(t)
                if i >= cfg["warmup"]:
                    samples.append(s)
            out.append((name, nbytes, n, correct, samples))
            del t
    barrier()
    dist.destroy_process_group()
    results.put((rank, out))


def run_all(cfg):
    """Spawn the ranks; return their results in rank order."""
    n = cfg["ranks"]
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    procs = mp.spawn(_run_rank, args=(cfg, free_port(), results), nprocs=n,
                     join=False)
    got = {}
    while len(got) < n:
        try:
            rank, out = results.get(timeout=0.5)
            got[rank] = out
        except queue.Empty:
            if procs.join(timeout=0) and len(got) < n:
                try:
                    rank, out = results.get(timeout=5)
                    got[rank] = out
                    continue
                except queue.Empty:
                    raise RuntimeError(f"ranks exited without reporting "
                                       f"({len(got)}/{n})")
    while not procs.join():
        pass
    return [got[r] for r in range(n)]


# --------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------

def combine(per_rank, ranks):
    """One entry per (dtype, size): per-iteration max over ranks, then the
    percentiles and bandwidths of distbench's report."""
    entries = []
    for k, (name, nbytes, n, _, _) in enumerate(per_rank[0]):
        columns = [r[k][4] for r in per_rank]
        worst = [max(col) for col in zip(*columns)]
        a = np.asarray(worst, dtype=np.float64)
        p50 = float(np.percentile(a, 50))
        algbw = nbytes / p50 / 1e9
        entries.append({
            "op": "allreduce", "dtype": name, "bytes": nbytes, "elements": n,
            "correct": all(r[k][3] for r in per_rank),
            "latency": {"p50": p50, "p95": float(np.percentile(a, 95)),
                        "min": float(a.min()), "max": float(a.max())},
            "algbwGBps": algbw, "busbwFactor": busbw_factor(ranks),
            "busbwGBps": algbw * busbw_factor(ranks),
            "samples": worst,
        })
    return entries


def print_table(entries, cfg):
    for name in cfg["dtypes"]:
        print(f"Benchmark: allreduce {name} on {cfg['ranks']} ranks")
        print(f"Implementation: torch.distributed.all_reduce ({cfg['backend']}, "
              f"{cfg['device']}, timing {cfg['timing']})")
        print("%14s%14s%12s%12s%12s%12s%14s%14s" % (
            "size (B)", "count (elts)", "p50 (us)", "p95 (us)", "min (us)",
            "max (us)", "algbw (GB/s)", "busbw (GB/s)"))
        for e in entries:
            if e["dtype"] != name:
                continue
            lat = e["latency"]
            print("%14d%14d%12.1f%12.1f%12.1f%12.1f%14.3f%14.3f%s" % (
                e["bytes"], e["elements"], lat["p50"] * 1e6, lat["p95"] * 1e6,
                lat["min"] * 1e6, lat["max"] * 1e6, e["algbwGBps"],
                e["busbwGBps"], "" if e["correct"] else "  WRONG RESULT"))
        print(flush=True)


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------

def _parse_args(argv):
    ap = argparse.ArgumentParser(
        description="torch.distributed.all_reduce over a size sweep, the "
                    "Python baseline for distbench's Collectives allreduce")
    ap.add_argument("--backend", choices=("gloo", "nccl"),
                    help="default: nccl with --device cuda, else gloo")
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    ap.add_argument("--ranks", type=int, default=2, help="world size (default 2)")
    ap.add_argument("--dtypes", default="float32",
                    help="comma-separated: " + ", ".join(DTYPES) +
                         " (default float32)")
    ap.add_argument("--min-bytes", type=int, default=1024)
    ap.add_argument("--max-bytes", type=int, default=64 << 20)
    ap.add_argument("--step-factor", type=int, default=4)
    ap.add_argument("--warmup", type=int, default=5,
                    help="unmeasured iterations per dtype and size (default 5)")
    ap.add_argument("--iterations", type=int, default=20,
                    help="measured iterations per dtype and size (default 20)")
    ap.add_argument("--timing", choices=("auto", "event", "sync", "cpu"),
                    default="auto",
                    help="event: CUDA events around each call; sync: "
                         "perf_counter between torch.cuda.synchronize(); "
                         "cpu: perf_counter alone; auto: event on CUDA, cpu "
                         "on the CPU")
    ap.add_argument("--intra-op-threads", type=int, default=1,
                    help="torch.set_num_threads per rank (0: PyTorch's default)")
    ap.add_argument("--init-timeout", type=float, default=300.0)
    ap.add_argument("--json", metavar="PATH", help="write results as JSON")
    args = ap.parse_args(argv)

    backend = args.backend or ("nccl" if args.device == "cuda" else "gloo")
    dtypes = [d.strip() for d in args.dtypes.split(",") if d.strip()]
    for d in dtypes:
        if d not in DTYPES:
            ap.error(f"--dtypes: unknown {d!r}; known: {', '.join(DTYPES)}")
    if not dtypes or len(set(dtypes)) != len(dtypes):
        ap.error("--dtypes: a non-empty list without repeats")
    for name in ("ranks", "min_bytes", "iterations"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be >= 1")
    if args.max_bytes < args.min_bytes:
        ap.error("--max-bytes must be >= --min-bytes")
    if args.step_factor < 2:
        ap.error("--step-factor must be >= 2")
    if args.warmup < 0 or args.intra_op_threads < 0:
        ap.error("--warmup and --intra-op-threads must be >= 0")
    for d in dtypes:
        size = torch.tensor([], dtype=DTYPES[d]).element_size()
        for b in sizes(args.min_bytes, args.max_bytes, args.step_factor):
            if b % size:
                ap.error(f"{b} bytes is not a whole number of {d} elements")
    if backend == "nccl" and args.device != "cuda":
        ap.error("--backend nccl needs --device cuda")
    timing = args.timing
    if timing == "auto":
        timing = "event" if args.device == "cuda" else "cpu"
    if timing in ("event", "sync") and args.device != "cuda":
        ap.error(f"--timing {timing} needs --device cuda")
    if args.device == "cuda":
        if not torch.cuda.is_available():
            ap.error("--device cuda: torch.cuda.is_available() is False")
        if backend == "nccl" and args.ranks > torch.cuda.device_count():
            ap.error(f"--backend nccl needs a GPU per rank: {args.ranks} "
                     f"ranks, {torch.cuda.device_count()} GPUs")
    return {
        "backend": backend, "device": args.device, "ranks": args.ranks,
        "dtypes": dtypes, "min_bytes": args.min_bytes,
        "max_bytes": args.max_bytes, "step_factor": args.step_factor,
        "warmup": args.warmup, "iterations": args.iterations,
        "timing": timing, "intra_op_threads": args.intra_op_threads,
        "init_timeout": args.init_timeout, "json": args.json,
    }


def main(argv=None):
    cfg = _parse_args(sys.argv[1:] if argv is None else argv)
    gpu = torch.cuda.get_device_name(0) if cfg["device"] == "cuda" else None
    print("-----------------------------------")
    print("PyTorch all_reduce (Python baseline)")
    print("-----------------------------------")
    print()
    print(f"* PyTorch version: {torch.__version__} (CUDA {torch.version.cuda})")
    print(f"* Distributed backend: {cfg['backend']}")
    print(f"* Device: {cfg['device']}" + (f" ({gpu})" if gpu else ""))
    print(f"* Ranks: {cfg['ranks']}; {cfg['iterations']} measured iterations "
          f"(+{cfg['warmup']} warm-up) per dtype and size")
    print(flush=True)
    try:
        per_rank = run_all(cfg)
    except Exception as e:  # ProcessRaisedException / ProcessExitedException
        print(f"error: {e}", file=sys.stderr)
        return 1
    entries = combine(per_rank, cfg["ranks"])
    print_table(entries, cfg)
    wrong = [e for e in entries if not e["correct"]]
    if cfg["json"]:
        write_json(cfg["json"], {
            "tool": "pytorch-python", "benchmark": "allreduce",
            "torch": torch.__version__, "torchCuda": torch.version.cuda,
            "python": platform.python_version(), "host": host(),
            "backend": cfg["backend"], "device": cfg["device"], "gpu": gpu,
            "ranks": cfg["ranks"], "timing": cfg["timing"],
            "config": {
                "dtypes": cfg["dtypes"], "minBytes": cfg["min_bytes"],
                "maxBytes": cfg["max_bytes"], "stepFactor": cfg["step_factor"],
                "warmupIterations": cfg["warmup"],
                "iterations": cfg["iterations"],
                "intraOpThreads": cfg["intra_op_threads"],
            },
            "unit": "seconds/iteration (slowest rank)",
            "results": entries,
        })
    if wrong:
        print(f"error: {len(wrong)} wrong results (first: {wrong[0]['dtype']} "
              f"{wrong[0]['bytes']} B)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
