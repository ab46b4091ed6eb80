"""Shared by the Python baselines (ddp_baseline.py, hybrid_ddp_rpc_baseline.py).

What both do alike: the seed's percentile table, the JSON summary of a list
of timings, the host block of the JSON report and writing it, a free local
port for a rendezvous, and the ">= 1" checks of their command lines. Not a
script: the baselines put their own directory on sys.path and import it.
"""

import json
import os
import socket

import numpy as np

PERCENTILES = (50, 75, 90, 95)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def require_positive(ap, args, names):
    """ap.error unless every args.NAME is >= 1."""
    for name in names:
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be >= 1")


# --------------------------------------------------------------------------
# The seed's table
# --------------------------------------------------------------------------

def table_header(prefix_width, seconds_label, rate_label):
    """Blank over the row prefix, then a (seconds, rate) pair per percentile."""
    line = "%*s" % (prefix_width, "")
    for _ in PERCENTILES:
        line += "%14s%10s" % (seconds_label, rate_label)
    return line


def percentile_cells(samples, per_sample):
    """"  pNN:  S.SSSs  RATE/s" per percentile; RATE = per_sample / S."""
    a = np.asarray(samples, dtype=np.float64)
    line = ""
    for p in PERCENTILES:
        v = float(np.percentile(a, p))
        line += "  p%02d:  %1.3fs  %6d/s" % (p, v, per_sample / v)
    return line


# --------------------------------------------------------------------------
# JSON
# --------------------------------------------------------------------------

def summary(samples, per_sample, rate_key, extra_percentiles=()):
    """count, pNN (numpy's default linear interpolation), min, max, mean,
    stdev, and rate_key: {pNN: per_sample / pNN} for PERCENTILES."""
    a = np.asarray(samples, dtype=np.float64)
    s = {"count": int(a.size)}
    for p in PERCENTILES + tuple(extra_percentiles):
        s[f"p{p}"] = float(np.percentile(a, p))  # numpy default: linear
    s.update(min=float(a.min()), max=float(a.max()), mean=float(a.mean()),
             stdev=float(a.std()))
    s[rate_key] = {f"p{p}": per_sample / s[f"p{p}"] for p in PERCENTILES}
    return s


def host():
    return {"hostname": socket.gethostname(), "logicalCpus": os.cpu_count()}


def write_json(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
