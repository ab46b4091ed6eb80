#!/usr/bin/python3
"""Python baseline for distbench: PyTorch's DDP + RPC benchmark, CPU edition.

distbench re-implements PyTorch's "Benchmark combining Distributed Data
Parallel and Distributed RPC" (torch/distributed/benchmarks/benchmark_ddp_rpc.py
upstream) in C++ with LibTorch. To say how fast distbench is we need PyTorch's
own Python implementation on the same machine. The upstream script is not
shipped by Debian's python3-torch, needs CUDA, and only works when
NUM_PS * EMBEDDING_DIM == 512 (it reshapes the concatenated lookups to 512
columns), so this file is an independent, faithful equivalent that runs on CPU.

Same machinery as the seed:
  * torch.multiprocessing.spawn starts every rank: trainers 0..T-1, parameter
    servers T..T+P-1, master T+P (the seed's layout).
  * torch.distributed.rpc over TensorPipe, init_method tcp on 127.0.0.1.
  * The master builds one torch.nn.EmbeddingBag(num_embeddings, dim, mode=...)
    per parameter server with rpc.remote and hands the RRefs to the trainers
    with rpc_async(_run_trainer).
  * Trainers wrap the dense stack in DistributedDataParallel over a gloo
    process group of the trainers only (its own port).
  * Per batch: a distributed autograd context, one lookup per PS through the
    RRefs, torch.cat along dim 1, the dense stack, CrossEntropyLoss,
    dist_autograd.backward, DistributedOptimizer(optim.SGD) step.

Deliberate differences from the seed, each matching distbench's design:
  * The dense input is the concatenation itself (width P * dim); the seed's
    reshape to 512 columns is dropped so any P and dim work.
  * The P lookups are issued concurrently (RRef.rpc_async().forward, then
    wait for all). --sequential-lookups restores the seed's one-after-another
    rpc_sync for comparison.
  * Epochs are timed with time.perf_counter (the seed uses time.time).
  * Python's and torch's RNGs are seeded per rank so runs are repeatable.
  * Throughput columns are labelled "examples/s" (the seed prints
    "epoch/sec" over what is really examples per second).

Machine note: the reference box for the recorded baseline has 2 logical
cores, and PyTorch's default there is 1 intra-op and 1 inter-op thread per
process (at::get_num_threads() == 1). All ranks share those cores, so the
default 8 trainers / 8 PS / 1 master run oversubscribes them 17 to 2. We keep
PyTorch's defaults untouched unless --torch-threads is given, because a user
running the seed would have exactly those defaults.

Run:  /usr/bin/python3 benchmarks/python/hybrid_ddp_rpc_baseline.py --preset tutorial
"""

import argparse
import datetime
import os
import platform
import random
import sys
import time

import torch
import torch.distributed as dist
import torch.distributed.autograd as dist_autograd
import torch.distributed.rpc as rpc
import torch.multiprocessing as mp
import torch.nn as nn
import torch.optim as optim
from torch.distributed.optim import DistributedOptimizer
from torch.distributed.rpc import RRef, TensorPipeRpcBackendOptions
from torch.nn.parallel import DistributedDataParallel as DDP

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from baseline_common import (free_port, host, percentile_cells,  # noqa: E402
                             require_positive, summary, table_header,
                             write_json)

PRESETS = {
    # The seed benchmark: 8 trainers, 8 PS, EmbeddingBag 300x64, 512-wide stack.
    "default": dict(trainers=8, ps=8, num_embeddings=300, embedding_dim=64,
                    dense_layers="256,128,ReLU,64,32,8"),
    # The DDP+RPC tutorial: 2 trainers, 1 PS, EmbeddingBag 100x16, Linear 16->8.
    "tutorial": dict(trainers=2, ps=1, num_embeddings=100, embedding_dim=16,
                     dense_layers="8"),
}


# --------------------------------------------------------------------------
# Model
# --------------------------------------------------------------------------

def parse_dense_layers(spec):
    """"256,128,ReLU,64,32,8" -> ["256", "128", "ReLU", ...], validated.

    The last entry must be a width: it is the class count of the targets.
    """
    items = [s.strip() for s in spec.split(",") if s.strip()]
    if not items:
        raise ValueError("--dense-layers is empty")
    for item in items:
        if item != "ReLU" and not (item.isdigit() and int(item) > 0):
            raise ValueError(f"--dense-layers: bad entry {item!r} "
                             "(positive integer width or ReLU)")
    if items[-1] == "ReLU":
        raise ValueError("--dense-layers must end with a width (the class count)")
    return items


def build_dense_stack(in_width, layers):
    modules = []
    width = in_width
    for item in layers:
        if item == "ReLU":
            modules.append(nn.ReLU())
        else:
            modules.append(nn.Linear(width, int(item)))
            width = int(item)
    return nn.Sequential(*modules)


def num_classes(layers):
    return int(layers[-1])


class HybridModel(nn.Module):
    """Sparse part on the parameter servers (EmbeddingBag RRefs), dense part
    replicated across trainers with DDP."""

    def __init__(self, emb_rrefs, dense_in, layers, sequential, rpc_timeout):
        super().__init__()
        # A plain list, not a ModuleList: RRefs are not modules, and keeping
        # them out means model.parameters() is exactly the DDP (local) params.
        self.emb_rrefs = emb_rrefs
        self.ddp = DDP(build_dense_stack(dense_in, layers))
        self.sequential = sequential
        self.rpc_timeout = rpc_timeout

    def forward(self, indices, offsets):
        if self.sequential:
            # The seed: one blocking lookup after another.
            lookups = [r.rpc_sync(timeout=self.rpc_timeout).forward(indices, offsets)
                       for r in self.emb_rrefs]
        else:
            # distbench: all P lookups in flight at once, then wait for all.
            futs = [r.rpc_async(timeout=self.rpc_timeout).forward(indices, offsets)
                    for r in self.emb_rrefs]
            lookups = torch.futures.wait_all(futs)
        return self.ddp(torch.cat(lookups, dim=1))


# --------------------------------------------------------------------------
# Trainer (runs on trainer ranks, invoked by the master over RPC)
# --------------------------------------------------------------------------

def _embedding_parameter_rrefs(emb_rref):
    # Runs on the PS that owns the table: RRefs to its parameters for the
    # DistributedOptimizer.
    return [RRef(p) for p in emb_rref.local_value().parameters()]


def _batches(cfg, classes):
    """The seed's get_next_batch: random bag sizes and offsets per batch."""
    for _ in range(cfg["batches_per_epoch"]):
        num_indices = random.randint(cfg["min_indices"], cfg["max_indices"])
        indices = torch.LongTensor(num_indices).random_(0, cfg["num_embeddings"])
        offsets = []
        start = 0
        while start < num_indices:
            offsets.append(start)
            start += random.randint(1, cfg["max_offset_step"])
        target = torch.LongTensor(len(offsets)).random_(classes)
        yield indices, torch.LongTensor(offsets), target


def _run_trainer(emb_rrefs, rank, cfg):
    layers = cfg["dense_layers"]
    classes = num_classes(layers)
    model = HybridModel(emb_rrefs, cfg["ps"] * cfg["embedding_dim"], layers,
                        cfg["sequential_lookups"], cfg["rpc_timeout"])

    param_rrefs = []
    for i, emb_rref in enumerate(emb_rrefs):
        param_rrefs.extend(rpc.rpc_sync(f"ps{i}", _embedding_parameter_rrefs,
                                        args=(emb_rref,), timeout=cfg["rpc_timeout"]))
    for p in model.parameters():
        param_rrefs.append(RRef(p))
    opt = DistributedOptimizer(optim.SGD, param_rrefs, lr=cfg["lr"])
    criterion = nn.CrossEntropyLoss()

    epoch_seconds = []
    epoch_examples = []
    for _ in range(cfg["warmup"] + cfg["epochs"]):
        examples = 0
        # Batch generation is inside the timed region, as in the seed.
        start = time.perf_counter()
        for indices, offsets, target in _batches(cfg, classes):
            examples += len(target)
            # A fresh context per batch holds that batch's gradients, so no
            # zero_grad is needed.
            with dist_autograd.context() as context_id:
                loss = criterion(model(indices, offsets), target)
                dist_autograd.backward(context_id, [loss])
                opt.step(context_id)
        epoch_seconds.append(time.perf_counter() - start)
        epoch_examples.append(examples)

    w = cfg["warmup"]
    return {"rank": rank, "epochSeconds": epoch_seconds[w:],
            "epochExamples": epoch_examples[w:]}


# --------------------------------------------------------------------------
# Reporting (master)
# --------------------------------------------------------------------------

def _table_row(name, examples_per_epoch, samples):
    return "%8s:" % name + percentile_cells(samples, examples_per_epoch)


def _report(cfg, results, wall_seconds):
    # The seed reports the example count of the last epoch it ran; keep that
    # so the examples/s columns are computed the same way.
    trainers = []
    for r in sorted(results, key=lambda r: r["rank"]):
        n = r["epochExamples"][-1] if r["epochExamples"] else 0
        trainers.append({"name": f"Trainer{r['rank']}", "rank": r["rank"],
                         "examplesPerEpoch": n,
                         "epochExamples": r["epochExamples"],
                         "epochSeconds": r["epochSeconds"]})
    pooled = [s for t in trainers for s in t["epochSeconds"]]
    total = sum(t["examplesPerEpoch"] for t in trainers)

    print("-------------------------------------------")
    print("PyTorch Distributed Benchmark (DDP and RPC)")
    print("-------------------------------------------")
    print()
    print(table_header(10, "sec/epoch", "examples/s"))
    for t in trainers:
        print(_table_row(t["name"], t["examplesPerEpoch"], t["epochSeconds"]))
    print(_table_row("All", total, pooled))
    print(f"\ntraining wall time (master, trainers kicked off -> all done): "
          f"{wall_seconds:.2f}s", flush=True)

    if cfg["json"]:
        for t in trainers:
            t["summary"] = summary(t["epochSeconds"], t["examplesPerEpoch"],
                                   "examplesPerSecond")
        all_summary = summary(pooled, total, "examplesPerSecond")
        doc = {
            "tool": "pytorch-python",
            "torch": torch.__version__,
            "python": platform.python_version(),
            "host": host(),
            "topology": {"trainers": cfg["trainers"],
                         "parameterServers": cfg["ps"],
                         "worldSize": cfg["trainers"] + cfg["ps"] + 1},
            "config": {k: v for k, v in cfg.items() if k != "json"},
            "unit": "seconds/epoch",
            "trainingWallSeconds": wall_seconds,
            "trainers": trainers,
            "all": dict(name="All", examplesPerEpoch=total, **all_summary),
        }
        write_json(cfg["json"], doc)


# --------------------------------------------------------------------------
# Ranks
# --------------------------------------------------------------------------

def _run_master(cfg):
    emb_rrefs = [
        rpc.remote(f"ps{i}", nn.EmbeddingBag,
                   args=(cfg["num_embeddings"], cfg["embedding_dim"]),
                   kwargs={"mode": cfg["mode"]}, timeout=cfg["rpc_timeout"])
        for i in range(cfg["ps"])
    ]
    start = time.perf_counter()
    # The whole training run is one RPC per trainer, so it gets its own
    # (long) timeout rather than the per-lookup one; 0 means none.
    futs = [rpc.rpc_async(f"trainer{t}", _run_trainer, args=(emb_rrefs, t, cfg),
                          timeout=cfg["train_timeout"])
            for t in range(cfg["trainers"])]
    results = [f.wait() for f in futs]
    _report(cfg, results, time.perf_counter() - start)


def _run_worker(rank, cfg):
    T, P = cfg["trainers"], cfg["ps"]
    world = T + P + 1
    if cfg["torch_threads"] > 0:
        torch.set_num_threads(cfg["torch_threads"])
    # Distinct seeds per rank: trainers draw different batches, and each PS
    # initialises its own table (the tables are created in the PS process).
    random.seed(cfg["seed"] + rank)
    torch.manual_seed(cfg["seed"] + rank)

    opts = TensorPipeRpcBackendOptions(
        init_method=f"tcp://127.0.0.1:{cfg['master_port']}",
        rpc_timeout=cfg["rpc_timeout"])

    if rank < T:
        name = f"trainer{rank}"
        # DDP's process group holds trainers only; separate port from RPC.
        dist.init_process_group(
            backend="gloo", rank=rank, world_size=T,
            init_method=f"tcp://127.0.0.1:{cfg['ddp_port']}",
            timeout=datetime.timedelta(seconds=cfg["init_timeout"]))
    elif rank < T + P:
        name = f"ps{rank - T}"
    else:
        name = "master"

    rpc.init_rpc(name, rank=rank, world_size=world,
                 backend=rpc.BackendType.TENSORPIPE, rpc_backend_options=opts)
    if name == "master":
        _run_master(cfg)
    # Trainers and PS only serve RPCs; a graceful shutdown waits for every
    # rank's outstanding work, so it also is the end-of-run barrier.
    rpc.shutdown()
    if rank < T:
        dist.destroy_process_group()


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------

def _parse_args(argv):
    ap = argparse.ArgumentParser(
        description="PyTorch DDP + RPC benchmark (CPU, gloo), Python baseline "
                    "for distbench")
    ap.add_argument("--preset", choices=sorted(PRESETS), default="default",
                    help="topology/model preset; explicit flags override it")
    ap.add_argument("--trainers", type=int)
    ap.add_argument("--ps", type=int, help="number of parameter servers")
    ap.add_argument("--num-embeddings", type=int)
    ap.add_argument("--embedding-dim", type=int)
    ap.add_argument("--dense-layers",
                    help='widths after the P*dim input, "ReLU" for activations; '
                         'last width = class count (default "256,128,ReLU,64,32,8")')
    ap.add_argument("--mode", choices=("sum", "mean", "max"), default="sum",
                    help="EmbeddingBag mode")
    ap.add_argument("--epochs", type=int, default=100, help="measured epochs")
    ap.add_argument("--warmup", type=int, default=5,
                    help="warm-up epochs, run but not measured")
    ap.add_argument("--batches-per-epoch", type=int, default=10)
    ap.add_argument("--min-indices", type=int, default=20)
    ap.add_argument("--max-indices", type=int, default=50)
    ap.add_argument("--max-offset-step", type=int, default=10)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=0,
                    help="base seed; rank r uses seed + r")
    ap.add_argument("--sequential-lookups", action="store_true",
                    help="the seed's one-after-another rpc_sync lookups "
                         "instead of concurrent rpc_async")
    ap.add_argument("--torch-threads", type=int, default=0,
                    help="torch.set_num_threads in every rank; 0 = leave "
                         "PyTorch's default")
    ap.add_argument("--master-port", type=int, default=0,
                    help="RPC rendezvous port (0 = pick a free one)")
    ap.add_argument("--ddp-port", type=int, default=0,
                    help="gloo process-group port (0 = pick a free one)")
    ap.add_argument("--rpc-timeout", type=float, default=120.0,
                    help="seconds, per RPC (lookups, setup, backward)")
    ap.add_argument("--train-timeout", type=float, default=3600.0,
                    help="seconds the master waits for a trainer's whole run "
                         "(0 = forever)")
    ap.add_argument("--init-timeout", type=float, default=300.0,
                    help="seconds for the gloo rendezvous")
    ap.add_argument("--json", metavar="FILE", help="write results as JSON")
    args = ap.parse_args(argv)

    for key, value in PRESETS[args.preset].items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    try:
        layers = parse_dense_layers(args.dense_layers)
    except ValueError as e:
        ap.error(str(e))
    require_positive(ap, args, ("trainers", "ps", "num_embeddings",
                                "embedding_dim", "batches_per_epoch",
                                "min_indices", "max_offset_step"))
    if args.epochs < 1 or args.warmup < 0:
        ap.error("--epochs must be >= 1 and --warmup >= 0")
    if args.max_indices < args.min_indices:
        ap.error("--max-indices must be >= --min-indices")

    master_port = args.master_port or free_port()
    ddp_port = args.ddp_port or free_port()
    while ddp_port == master_port:
        ddp_port = free_port()
    return {
        "preset": args.preset, "trainers": args.trainers, "ps": args.ps,
        "num_embeddings": args.num_embeddings,
        "embedding_dim": args.embedding_dim, "dense_layers": layers,
        "mode": args.mode, "epochs": args.epochs, "warmup": args.warmup,
        "batches_per_epoch": args.batches_per_epoch,
        "min_indices": args.min_indices, "max_indices": args.max_indices,
        "max_offset_step": args.max_offset_step, "lr": args.lr,
        "seed": args.seed, "sequential_lookups": args.sequential_lookups,
        "torch_threads": args.torch_threads,
        "master_port": master_port, "ddp_port": ddp_port,
        "rpc_timeout": args.rpc_timeout, "train_timeout": args.train_timeout,
        "init_timeout": args.init_timeout, "json": args.json,
    }


def main(argv=None):
    cfg = _parse_args(sys.argv[1:] if argv is None else argv)
    world = cfg["trainers"] + cfg["ps"] + 1
    print("-------------------------------------------")
    print("                  Info                     ")
    print("-------------------------------------------")
    print(f"* PyTorch version: {torch.__version__}")
    print(f"* Python: {platform.python_version()}  logical CPUs: {os.cpu_count()}")
    print(f"* torch threads per rank: "
          f"{cfg['torch_threads'] or torch.get_num_threads()}"
          f"{'' if cfg['torch_threads'] else ' (PyTorch default)'}")
    print(f"* topology: {cfg['trainers']} trainers, {cfg['ps']} PS, 1 master "
          f"(world {world})")
    print(f"* model: EmbeddingBag {cfg['num_embeddings']}x{cfg['embedding_dim']} "
          f"mode={cfg['mode']} per PS, dense "
          f"{cfg['ps'] * cfg['embedding_dim']}->{','.join(cfg['dense_layers'])}")
    print(f"* epochs: {cfg['epochs']} (+{cfg['warmup']} warm-up) x "
          f"{cfg['batches_per_epoch']} batches, lookups "
          f"{'sequential' if cfg['sequential_lookups'] else 'concurrent'}",
          flush=True)

    start = time.perf_counter()
    try:
        # join=True: if any rank raises or dies, spawn terminates the others
        # and raises here, so a failure anywhere fails the whole run.
        mp.spawn(_run_worker, args=(cfg,), nprocs=world, join=True)
    except Exception as e:  # ProcessRaisedException / ProcessExitedException
        print(f"error: benchmark failed: {e}", file=sys.stderr)
        return 1
    print(f"total wall time (spawn -> all ranks exited): "
          f"{time.perf_counter() - start:.2f}s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
