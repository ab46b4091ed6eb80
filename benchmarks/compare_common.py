"""Shared by compare_ddp.py and compare_hybrid.py.

Both scripts run distbench and a PyTorch Python baseline back to back on this
machine; this module holds what they do alike: the machine and version
header, running a command with its output logged to files and a timeout,
deriving a DistBenchmark YAML from `distbench render`, checking up front that
both sides can start, the failure report and the common command-line flags.

Also what both read from distbench's JSON report (docs/report-schema.md,
schema version 2): percentiles recomputed from a series' samples.

Standard library only. Not a script: the compare scripts put their own
directory on sys.path and import it.
"""

import math
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


def print_machine(python_docs, distbench_docs, torch_probe=None,
                  distbench_probe=None):
    """The machine and version header. python_docs: the Python side's reports
    (their "torch"), distbench_docs: distbench's (their "versions"); the last
    one that names a version wins over the probes."""
    torch_py, torch_db, distbench_version = torch_probe, None, distbench_probe
    for doc in python_docs:
        torch_py = doc.get("torch") or torch_py
    for doc in distbench_docs:
        versions = doc.get("versions", {})
        torch_db = versions.get("torch") or torch_db
        distbench_version = versions.get("distbench") or distbench_version
    print(f"machine: {nproc()} CPUs (nproc), {cpu_model()}, "
          f"{platform.system()} {platform.release()}")
    print(f"torch:   python side {torch_py or '?'} (torch.__version__), "
          f"distbench side LibTorch {torch_db or '?'}; "
          f"distbench {distbench_version or '?'}")


# --------------------------------------------------------------------------
# distbench's report
# --------------------------------------------------------------------------

REPORT_SCHEMA_VERSION = 2


class BadReport(Exception):
    """A report lacks what a compare script reads from it."""


def percentile(samples, p):
    """numpy.percentile(samples, p) with its default linear interpolation,
    computed as report/src/percentiles.cpp does (numpy's _lerp: from the
    nearer end, so p100 is exactly the maximum)."""
    xs = sorted(float(x) for x in samples)
    if not xs:
        return float("nan")
    pos = (len(xs) - 1) * p / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    t = pos - lo
    diff = xs[hi] - xs[lo]
    return xs[hi] - diff * (1.0 - t) if t >= 0.5 else xs[lo] + diff * t


def check_schema(doc, where):
    """BadReport unless doc is a distbench report of the schema read here."""
    version = doc.get("schemaVersion") if isinstance(doc, dict) else None
    if version != REPORT_SCHEMA_VERSION:
        raise BadReport(f"{where}: schemaVersion is {version!r}; this script "
                        f"reads version {REPORT_SCHEMA_VERSION} "
                        f"(docs/report-schema.md)")


def report_series(doc, index, where, group=None, row=None):
    """doc["series"][index], checked to be a non-empty series of that group
    and row when they are given."""
    series = doc.get("series")
    if not isinstance(series, list):
        raise BadReport(f"{where}: no series array")
    if not isinstance(index, int) or not 0 <= index < len(series):
        raise BadReport(f"{where}: series index {index!r} out of range "
                        f"(0..{len(series) - 1})")
    s = series[index]
    for field, want in (("group", group), ("row", row)):
        if want is not None and s.get(field) != want:
            raise BadReport(f"{where}: series[{index}].{field} is "
                            f"{s.get(field)!r}, expected {want!r}")
    if not s.get("samples"):
        raise BadReport(f"{where}: series[{index}] has no samples")
    return s


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
            proc = subprocess.run([str(c) for c in cmd], stdin=subprocess.DEVNULL,
                                  stdout=out, stderr=err, cwd=REPO,
                                  timeout=timeout)
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


def render_yaml(distbench, source, overrides, path, log_prefix, timeout, comment):
    """`distbench render SOURCE...`'s resolved resource with each (field,
    value) of overrides whose value is not None replaced, written to path
    below the line `comment`."""
    cmd = [distbench, "render", *source]
    run_logged(cmd, log_prefix, timeout)
    text = Path(f"{log_prefix}.stdout").read_text()
    marker = re.search(r"^--- # config file.*$", text, re.M)
    if not marker:
        raise RunFailed(cmd, 0, Path(f"{log_prefix}.stderr"),
                        "no '--- # config file' document in its output")
    doc = text[marker.end():].lstrip("\n")
    for field, value in overrides:
        if value is None:
            continue
        doc, n = re.subn(rf"^([ \t]+{field}:)[ \t]*\S+[ \t]*$", rf"\g<1> {value}",
                         doc, flags=re.M)
        if n != 1:
            raise RunFailed(cmd, 0, Path(f"{log_prefix}.stderr"),
                            f"expected one '{field}:' line in the rendered "
                            f"config, found {n}")
    path.write_text(f"{comment}\n---\n{doc}")
    return path


def probe(cmd):
    """First line of a quick command's stdout, or None."""
    try:
        out = subprocess.run([str(c) for c in cmd], stdin=subprocess.DEVNULL,
                             capture_output=True, text=True, timeout=120, cwd=REPO)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0 or not out.stdout.strip():
        return None
    return out.stdout.strip().splitlines()[0]


def preflight(python, distbench, modules, note):
    """Before the (slow) runs: can either side start at all?

    Returns (torch version or None, distbench version or None, RunFailed or
    None). modules: what the Python side imports ("torch, numpy"); note: what
    to say when it cannot."""
    torch_probe = probe([python, "-c", f"import {modules}; print(torch.__version__)"])
    distbench_probe = probe([distbench, "--version"])
    if distbench_probe:
        distbench_probe = distbench_probe.split()[-1]  # "distbench 0.1.0"
    failure = None
    if torch_probe is None:
        failure = RunFailed([python, "-c", f"import {modules}"],
                            "could not start", Path(os.devnull), note)
    elif not os.access(distbench, os.X_OK) or os.path.isdir(distbench):
        failure = RunFailed([distbench], "could not start", Path(os.devnull),
                            "distbench binary missing or not executable; build "
                            "the project or pass --distbench PATH")
    return torch_probe, distbench_probe, failure


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


def print_columns(header, rows):
    """A text table: the first column left-aligned, the others right-aligned,
    " | " between them and a "-+-" rule under the header."""
    widths = [max(len(h), *(len(row[i]) for row in rows)) if rows else len(h)
              for i, h in enumerate(header)]
    fmt = " | ".join(["{:<%d}" % widths[0]] +
                     ["{:>%d}" % w for w in widths[1:]])
    print(fmt.format(*header))
    print("-+-".join("-" * w for w in widths))
    for row in rows:
        print(fmt.format(*row))


# --------------------------------------------------------------------------
# Work directory and exit status
# --------------------------------------------------------------------------

def make_workdir(out, prefix):
    """--out DIR (created), or a new temporary directory."""
    if out:
        workdir = Path(out).resolve()
        workdir.mkdir(parents=True, exist_ok=True)
        return workdir
    return Path(tempfile.mkdtemp(prefix=prefix))


def finish(failure, workdir, keep):
    """Report a failure (keeping the work directory) or, on success, keep it
    when --out named it and remove it otherwise. Returns the exit status."""
    if failure:
        print_failure(failure)
        print(f"reports and logs kept in {workdir}", file=sys.stderr)
        return 1
    if keep:
        print(f"reports and logs kept in {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------

def add_binary_args(ap, python_needs):
    """--distbench and --python; python_needs: "torch and numpy"."""
    ap.add_argument("--distbench", default=str(REPO / "build" / "bin" / "distbench"),
                    help="the distbench binary (default: build/bin/distbench "
                         "in the repository)")
    ap.add_argument("--python", default="/usr/bin/python3"
                    if os.path.exists("/usr/bin/python3") else sys.executable,
                    help=f"interpreter for the Python baseline (needs "
                         f"{python_needs}; default: /usr/bin/python3)")


def add_output_args(ap):
    """--out and --timeout."""
    ap.add_argument("--out", metavar="DIR",
                    help="keep the JSON reports, logs and YAML here "
                         "(default: a temporary directory, removed on success)")
    ap.add_argument("--timeout", type=float, default=3600.0, metavar="SECONDS",
                    help="per command (default: 3600)")
