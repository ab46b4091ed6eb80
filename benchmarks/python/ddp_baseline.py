#!/usr/bin/python3
"""Python baseline for distbench: PyTorch's DDP benchmark.

distbench's DDP kind re-implements PyTorch's distributed data parallel
benchmark (torch/benchmarks/distributed/ddp/benchmark.py upstream) in C++
with LibTorch. To say how fast distbench is we need PyTorch's own Python
implementation on the same machine. The upstream script needs CUDA and one
launcher per rank, so this file is the same measurement reduced to what we
compare against: on CPU over gloo by default, or with --device cuda on GPUs
(NCCL, one GPU per rank; or --backend gloo on CUDA tensors, where ranks may
share a GPU: rank r uses GPU r mod the GPU count).

Per sweep row, as the seed's benchmark_process_group:
  * a row of N ranks spawns N processes (torch.multiprocessing, gloo,
    MASTER_ADDR 127.0.0.1 and a free port); the `no ddp` row is one process
    with the plain model;
  * torch.manual_seed(seed + rank) (the seed: manual_seed(rank); --seed 0);
  * the model is torchvision.models.<name>(num_classes=...) (without
    torchvision: the same model from image_models.py, identical from the same
    seed), one fixed random batch torch.randn(batch, 3, S, S) with random int
    targets, reused every iteration; CrossEntropyLoss; SGD(lr=0.001,
    momentum=0.9, weight_decay=1e-4);
  * DistributedDataParallel(model, bucket_cap_mb=..., broadcast_buffers=False)
    unless the row is `no ddp` (with CUDA: device_ids=[the rank's GPU]);
  * each iteration is timed from forward to the end of optimizer.step()
    (forward, loss, zero_grad, backward, step, the seed's order); with CUDA
    the clock is read after torch.cuda.synchronize(), so an iteration ends
    when the GPU has finished it; warm-up iterations are discarded;
  * every rank's measurements are pooled (the seed's allgather_run; here the
    ranks hand them to the parent over a multiprocessing queue, rank order).

Deliberate differences from the seed, each matching distbench's design:
  * CPU and gloo by default; rows are labelled R (ranks), G (GPUs) as the
    seed does only with --device cuda.
  * Each row runs in freshly spawned processes instead of subgroups of one
    long-lived world; the seed's extra "warmup" row is therefore dropped (the
    per-row warm-up iterations do its job).
  * torch.set_num_threads(--intra-op-threads) in every rank, default 1:
    distbench's spec.runtime.intraOpThreads default, so ranks sharing a small
    machine's cores do not preempt one another. 0 leaves PyTorch's default.
  * DDP ranks meet at a barrier after the warm-up iterations (outside the
    timed region), as distbench's replicas do, so they start measuring
    together.
  * Iterations are timed with time.perf_counter (the seed: time.time).
  * Rows are given explicitly (--ranks 1,2): no ranks-per-machine doubling.

With --phases each rank also times the phases of its measured iterations
(forward and loss, zero_grad, backward with DDP's wait, step) and counts its
minor page faults (getrusage), to set beside distbench-ddp-step's.

Run:  /usr/bin/python3 benchmarks/python/ddp_baseline.py --model resnet18 \
          --batch-size 16 --image-size 64 --ranks 1,2 --warmup 3 --iterations 10
"""

import argparse
import datetime
import os
import platform
import queue
import resource
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.optim as optim
from torch.nn.parallel import DistributedDataParallel as DDP

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from baseline_common import (free_port, host, percentile_cells,  # noqa: E402
                             require_positive, summary, table_header,
                             write_json)
import image_models  # noqa: E402

try:
    import torchvision
except ImportError:  # the lent GPU machine may lack it: image_models.py
    torchvision = None


def build_model(source, name, num_classes):
    """torchvision.models.<name>, or image_models.py's identical copy."""
    if source == "torchvision":
        return getattr(torchvision.models, name)(num_classes=num_classes)
    return image_models.build(name, num_classes=num_classes)


def model_source_label(source):
    if source == "torchvision":
        return f"torchvision {torchvision.__version__}"
    return "benchmarks/python/image_models.py (torchvision's definitions)"


def _device(cfg, rank):
    """The rank's device: the CPU, or GPU rank mod the GPU count."""
    if cfg["device"] != "cuda":
        return torch.device("cpu")
    return torch.device("cuda", rank % torch.cuda.device_count())


# --------------------------------------------------------------------------
# One row on one rank (the seed's benchmark_process_group)
# --------------------------------------------------------------------------

def _run_rank(rank, cfg, row, results):
    world = row["ranks"]
    if cfg["intra_op_threads"] > 0:
        torch.set_num_threads(cfg["intra_op_threads"])
    device = _device(cfg, rank)
    cuda = device.type == "cuda"
    if cuda:
        torch.cuda.set_device(device)
    if row["ddp"]:
        os.environ["MASTER_ADDR"] = "127.0.0.1"
        os.environ["MASTER_PORT"] = str(row["port"])
        dist.init_process_group(
            backend=cfg["backend"], rank=rank, world_size=world,
            timeout=datetime.timedelta(seconds=cfg["init_timeout"]))

    torch.manual_seed(cfg["seed"] + rank)
    model = build_model(cfg["model_source"], cfg["model"], cfg["num_classes"])
    model.train()
    s = cfg["image_size"]
    # Drawn on the CPU, as before, so a seed gives the same batch everywhere.
    inputs = torch.randn(cfg["batch_size"], 3, s, s)
    target = torch.randint(0, cfg["num_classes"], (cfg["batch_size"],),
                           dtype=torch.long)
    if cuda:
        model = model.to(device)
        inputs, target = inputs.to(device), target.to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(model.parameters(), lr=0.001, momentum=0.9,
                          weight_decay=1e-4)
    if row["ddp"]:
        model = DDP(model, device_ids=[device.index] if cuda else None,
                    bucket_cap_mb=cfg["bucket_cap_mb"],
                    broadcast_buffers=False)

    samples = []
    # --phases: when each phase of a measured iteration ended, and the
    # page faults (minor) the measured iterations took.
    phases = {"forward": [], "zeroGrad": [], "backward": [], "step": []}
    faults = 0
    warmup = cfg["warmup"]
    timed = cfg["phases"]
    if cuda:
        # The GPU runs asynchronously: a time is taken once it has caught up.
        def clock():
            torch.cuda.synchronize(device)
            return time.perf_counter()
    else:
        clock = time.perf_counter
    for i in range(warmup + cfg["iterations"]):
        if i == warmup and row["ddp"]:
            # replicas start the measured iterations together
            if cuda and cfg["backend"] == "nccl":
                dist.barrier(device_ids=[device.index])
            else:
                dist.barrier()
        if timed and i == warmup:
            faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        start = clock()
        output = model(inputs)
        loss = criterion(output, target)
        t_forward = clock() if timed else 0.0
        optimizer.zero_grad()
        t_zero = clock() if timed else 0.0
        loss.backward()  # with DDP: and the wait for the last allreduce
        t_backward = clock() if timed else 0.0
        optimizer.step()
        end = clock()
        if i >= warmup:
            samples.append(end - start)
            if timed:
                phases["forward"].append(t_forward - start)
                phases["zeroGrad"].append(t_zero - t_forward)
                phases["backward"].append(t_backward - t_zero)
                phases["step"].append(end - t_backward)
    if timed:
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
        phases["pageFaultsPerIteration"] = faults / cfg["iterations"]

    if row["ddp"]:
        if cuda and cfg["backend"] == "nccl":
            dist.barrier(device_ids=[device.index])
        else:
            dist.barrier()
        dist.destroy_process_group()
    results.put((rank, samples, phases if timed else None))


def run_row(cfg, row):
    """Spawn the row's ranks; return (per-rank samples in rank order, wall s)."""
    n = row["ranks"]
    if row["ddp"]:
        row = dict(row, port=free_port())
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    start = time.perf_counter()
    procs = mp.spawn(_run_rank, args=(cfg, row, results), nprocs=n, join=False)
    got = {}
    # Drain the queue while the ranks run (a rank cannot exit until its put
    # is flushed), and notice a rank that died.
    while len(got) < n:
        try:
            rank, samples, phases = results.get(timeout=0.5)
            got[rank] = (samples, phases)
        except queue.Empty:
            # join(0) raises ProcessRaisedException / ProcessExitedException
            # (after terminating the others) if any rank failed.
            if procs.join(timeout=0) and len(got) < n:
                try:
                    rank, samples, phases = results.get(timeout=5)
                    got[rank] = (samples, phases)
                    continue
                except queue.Empty:
                    raise RuntimeError(f"row {row['label']}: ranks exited "
                                       f"without reporting ({len(got)}/{n})")
    while not procs.join():
        pass
    wall = time.perf_counter() - start
    return [got[r][0] for r in range(n)], [got[r][1] for r in range(n)], wall


# --------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------

def _table_header():
    # Blank over the row prefix "   2 ranks --    1M/2R:".
    return table_header(23, "sec/iter", "ex/sec")


def _table_row(row, batch_size, samples, unit):
    # The seed's "   2 GPUs --    1M/2G:"; on the CPU, ranks for GPUs.
    return ("%4d %5s -- %8s:" % (row["ranks"], unit, row["label"]) +
            percentile_cells(samples, batch_size))


def _phase_line(phases):
    """--phases: p50 ms of each phase (every rank pooled) and page faults."""
    cells = []
    for name in ("forward", "zeroGrad", "backward", "step"):
        pooled = [s for r in phases for s in r[name]]
        cells.append(f"{name} {1e3 * float(np.percentile(pooled, 50)):.2f}")
    faults = sum(r["pageFaultsPerIteration"] for r in phases) / len(phases)
    return ("%23s  p50 ms: " % "" + ", ".join(cells) +
            f"; page faults/iteration/rank {faults:.0f}")


def _row_label(n, per_machine, letter="R"):
    """distbench's labels: 1M/nR within one machine, then whole machines
    (the seed's 1M/nG with --device cuda)."""
    if n <= per_machine:
        return f"1M/{n}{letter}"
    if n % per_machine == 0:
        return f"{n // per_machine}M/{per_machine}{letter}"
    return f"1M/{n}{letter}"


def plan_rows(cfg):
    letter = "G" if cfg.get("device") == "cuda" else "R"
    rows = []
    if not cfg["skip_no_ddp"]:
        rows.append({"label": "no ddp", "ranks": 1, "ddp": False})
    for n in cfg["ranks"]:
        rows.append({"label": _row_label(n, cfg["ranks_per_machine"], letter),
                     "ranks": n, "ddp": True})
    return rows


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------

def _int_list(text):
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of "
                                         f"integers: {text!r}")
    if not values or any(v < 1 for v in values):
        raise argparse.ArgumentTypeError(f"need world sizes >= 1: {text!r}")
    return values


def _parse_args(argv):
    ap = argparse.ArgumentParser(
        description="PyTorch DDP benchmark (CPU and gloo, or CUDA and NCCL), "
                    "Python baseline for distbench's DDP kind")
    ap.add_argument("--model", default="resnet18",
                    help="a torchvision.models constructor (default resnet18); "
                         "without torchvision one of "
                         + ", ".join(image_models.MODELS))
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                    help="where every rank computes (default cpu); cuda: rank "
                         "r on GPU r mod the GPU count")
    ap.add_argument("--backend", choices=("gloo", "nccl"),
                    help="c10d backend (default: nccl with --device cuda, "
                         "else gloo); nccl needs --device cuda and a GPU per "
                         "rank")
    ap.add_argument("--model-source", choices=("auto", "torchvision", "own"),
                    default="auto",
                    help="torchvision.models, or image_models.py's identical "
                         "definitions (own); auto: torchvision when it "
                         "imports (default)")
    ap.add_argument("--batch-size", type=int, default=16, help="per replica")
    ap.add_argument("--image-size", type=int, default=64,
                    help="square RGB inputs (default 64)")
    ap.add_argument("--num-classes", type=int, default=1000)
    ap.add_argument("--warmup", type=int, default=3,
                    help="warm-up iterations per row, not measured")
    ap.add_argument("--iterations", type=int, default=10,
                    help="measured iterations per row and rank")
    ap.add_argument("--bucket-cap-mb", type=float, default=25.0,
                    help="DDP bucket_cap_mb (the seed's --bucket-size)")
    ap.add_argument("--ranks", type=_int_list, default=[1, 2],
                    help="comma-separated world sizes of the DDP rows, run in "
                         "increasing order (default 1,2)")
    ap.add_argument("--skip-no-ddp", action="store_true",
                    help="leave out the single-process `no ddp` row")
    ap.add_argument("--ranks-per-machine", type=int, default=8,
                    help="only for row labels, as distbench's "
                         "ddp.ranksPerMachine (default 8)")
    ap.add_argument("--intra-op-threads", type=int, default=1,
                    help="torch.set_num_threads in every rank (default 1, "
                         "distbench's default; 0 = PyTorch's default)")
    ap.add_argument("--seed", type=int, default=0,
                    help="rank r seeds torch with seed + r (default 0, the "
                         "seed's manual_seed(rank))")
    ap.add_argument("--init-timeout", type=float, default=300.0,
                    help="seconds for the gloo rendezvous")
    ap.add_argument("--phases", action="store_true",
                    help="also time each phase of an iteration (forward and "
                         "loss, zero_grad, backward with DDP's wait, step) "
                         "and count page faults; printed under each row and "
                         "written to the JSON rows as \"phases\"")
    ap.add_argument("--json", metavar="PATH", help="write results as JSON")
    args = ap.parse_args(argv)

    source = args.model_source
    if source == "auto":
        source = "torchvision" if torchvision is not None else "own"
    if source == "torchvision":
        if torchvision is None:
            ap.error("--model-source torchvision: torchvision does not import")
        ctor = getattr(torchvision.models, args.model, None)
        if args.model.startswith("_") or not callable(ctor) or isinstance(ctor, type):
            ap.error(f"--model: torchvision.models has no model {args.model!r}")
    elif args.model not in image_models.MODELS:
        ap.error(f"--model: {args.model!r} is not one of image_models.py's "
                 f"{', '.join(image_models.MODELS)} (torchvision "
                 f"{'is not installed' if torchvision is None else 'not used'})")
    backend = args.backend or ("nccl" if args.device == "cuda" else "gloo")
    if backend == "nccl" and args.device != "cuda":
        ap.error("--backend nccl needs --device cuda")
    if args.device == "cuda":
        if not torch.cuda.is_available():
            ap.error("--device cuda: torch.cuda.is_available() is False")
        gpus = torch.cuda.device_count()
        if backend == "nccl" and max(args.ranks) > gpus:
            ap.error(f"--backend nccl needs a GPU per rank: {max(args.ranks)} "
                     f"ranks, {gpus} GPUs (--backend gloo shares them)")
    require_positive(ap, args, ("batch_size", "image_size", "num_classes",
                                "iterations", "ranks_per_machine"))
    if args.warmup < 0 or args.intra_op_threads < 0:
        ap.error("--warmup and --intra-op-threads must be >= 0")
    if args.bucket_cap_mb <= 0:
        ap.error("--bucket-cap-mb must be > 0")
    return {
        "model": args.model, "batch_size": args.batch_size,
        "image_size": args.image_size, "num_classes": args.num_classes,
        "warmup": args.warmup, "iterations": args.iterations,
        "bucket_cap_mb": args.bucket_cap_mb,
        "ranks": sorted(set(args.ranks)), "skip_no_ddp": args.skip_no_ddp,
        "ranks_per_machine": args.ranks_per_machine,
        "intra_op_threads": args.intra_op_threads, "seed": args.seed,
        "init_timeout": args.init_timeout, "json": args.json,
        "phases": args.phases, "device": args.device, "backend": backend,
        "model_source": source,
    }


def main(argv=None):
    cfg = _parse_args(sys.argv[1:] if argv is None else argv)
    rows = plan_rows(cfg)
    if not rows:
        print("error: no rows to run (--skip-no-ddp and no --ranks)",
              file=sys.stderr)
        return 2
    print("-----------------------------------")
    print("PyTorch distributed benchmark suite")
    print("-----------------------------------")
    print()
    print(f"* PyTorch version: {torch.__version__} (model: "
          f"{model_source_label(cfg['model_source'])})")
    gpu = (torch.cuda.get_device_name(0) if cfg["device"] == "cuda" else None)
    where = f"CUDA, {gpu}" if gpu else "CPU"
    print(f"* Distributed backend: {cfg['backend']} ({where})")
    print(f"* Python: {platform.python_version()}  logical CPUs: "
          f"{os.cpu_count()}")
    print(f"* intra-op threads per rank: "
          f"{cfg['intra_op_threads'] or 'PyTorch default'}")
    print(f"* bucket_cap_mb: {cfg['bucket_cap_mb']:g}; {cfg['iterations']} "
          f"measured iterations (+{cfg['warmup']} warm-up) per row and rank")
    print()
    print(f"Benchmark: {cfg['model']} with batch size {cfg['batch_size']}")
    print()
    print(_table_header(), flush=True)

    out_rows = []
    for row in rows:
        try:
            per_rank, phases, wall = run_row(cfg, row)
        except Exception as e:  # ProcessRaisedException / ProcessExitedException
            print(f"error: row {row['label']} failed: {e}", file=sys.stderr)
            return 1
        pooled = [s for r in per_rank for s in r]
        print(_table_row(row, cfg["batch_size"], pooled,
                         "GPUs" if cfg["device"] == "cuda" else "ranks"),
              flush=True)
        out_rows.append({"row": row["label"], "ranks": row["ranks"],
                         "ddp": row["ddp"], "samples": pooled,
                         "perRank": per_rank,
                         "summary": summary(pooled, cfg["batch_size"],
                                            "ratePerSecond", (99,)),
                         "wallSeconds": wall})
        if cfg["phases"]:
            out_rows[-1]["phases"] = phases
            print(_phase_line(phases), flush=True)

    if cfg["json"]:
        doc = {
            "tool": "pytorch-python",
            "benchmark": "ddp",
            "torch": torch.__version__,
            "torchvision": (torchvision.__version__ if torchvision is not None
                            else None),
            "modelSource": model_source_label(cfg["model_source"]),
            "python": platform.python_version(),
            "host": host(),
            "backend": cfg["backend"],
            "device": cfg["device"],
            "gpu": gpu,
            "torchCuda": torch.version.cuda,
            "group": f"{cfg['model']} with batch size {cfg['batch_size']}",
            "config": {
                "model": cfg["model"], "batchSize": cfg["batch_size"],
                "imageSize": cfg["image_size"],
                "numClasses": cfg["num_classes"],
                "warmupIterations": cfg["warmup"],
                "iterations": cfg["iterations"],
                "bucketCapMB": cfg["bucket_cap_mb"],
                "ranks": cfg["ranks"], "noDdpRow": not cfg["skip_no_ddp"],
                "ranksPerMachine": cfg["ranks_per_machine"],
                "intraOpThreads": cfg["intra_op_threads"],
                "seed": cfg["seed"],
                "learningRate": 0.001, "momentum": 0.9, "weightDecay": 1e-4,
            },
            "unit": "seconds/iteration",
            "rows": out_rows,
        }
        write_json(cfg["json"], doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
