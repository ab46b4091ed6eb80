#!/usr/bin/env python3
"""The parts of scripts/gpu-check.sh that are easier in Python than in bash.

Standard library only: it runs on the lent GPU machine (whatever Python has
PyTorch there) and on this Debian host alike. Subcommands:

  env --out DIR --mode real|dry [--deps DIR]
        environment.txt and environment.json in DIR (GPU, driver, nvcc, torch
        and its CUDA/cuDNN/NCCL, the pip packages' NCCL and cuDNN, OS, glibc,
        libstdc++, tools, cores), and DIR/logs/environment.sh: the same as
        shell assignments (GPU_SLUG, TORCH_CMAKE_PREFIX, NVCC, NCCL_INCLUDE_DIR,
        ...) for gpu-check.sh to source.
  dry-specs --out DIR SPEC...
        each SPEC with every "# dry-run: VALUE" applied, as DIR/<same name>.
  baseline-args --kind ddp|allreduce SPEC
        the Python baseline's arguments for SPEC, one per line (exit 3: the
        spec has nothing for that baseline).
  unpack DEB DEST
        a .deb's data into DEST without dpkg-deb, ar or xz (the fallback).
  check-build --prefix DIR --build DIR [BINARY...]
        that the build took every bundled package from the prefix: the
        CMake cache's package paths, every header the compiler read (ninja's
        deps or the .d files) and, with LD_LIBRARY_PATH as set, what ldd
        resolves for BINARY.
  ctest-summary LOG
        one line per test of a `ctest -V` log: status and, for a skipped
        test, the reason it printed.
"""

import argparse
import glob
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import time

# --------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------


def sh(cmd, timeout=60):
    """(exit status or None when missing/timed out, combined output)."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors="replace", timeout=timeout)
        return p.returncode, p.stdout.strip()
    except FileNotFoundError:
        return None, f"{cmd[0]}: not found"
    except subprocess.TimeoutExpired:
        return None, f"{' '.join(cmd)}: timed out after {timeout} s"


def first_line(text):
    return text.splitlines()[0].strip() if text.strip() else ""


def version_key(v):
    return tuple(int(x) for x in re.findall(r"\d+", v))


# --------------------------------------------------------------------------
# A YAML subset: what benchmarks/gpu/*.yaml use (block mappings, scalars,
# flow lists, comments). Enough to read the specs without PyYAML, which the
# GPU machine's Python may lack.
# --------------------------------------------------------------------------

def _scalar(text):
    t = text.strip()
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "'\"":
        return t[1:-1]
    if t in ("true", "false"):
        return t == "true"
    if t in ("null", "~", ""):
        return None
    for conv in (int, float):
        try:
            return conv(t)
        except ValueError:
            pass
    return t


def _value(text):
    t = text.strip()
    if t.startswith("["):
        if not t.endswith("]"):
            raise ValueError(f"unterminated flow list: {t!r}")
        inner = t[1:-1].strip()
        return [_scalar(x) for x in inner.split(",")] if inner else []
    if t.startswith("{") or t.startswith("|") or t.startswith(">"):
        raise ValueError(f"not in the YAML subset gpu_check.py reads: {t!r}")
    return _scalar(t)


def parse_yaml(text):
    root = {}
    stack = [(-1, root)]  # (indent, container)
    pending = None  # (indent, parent dict, key) awaiting a nested block
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = re.sub(r"(^|\s)#.*$", "", raw).rstrip()
        if not line.strip() or line.strip() == "---":
            continue
        indent = len(line) - len(line.lstrip())
        body = line.strip()
        if pending is not None:
            p_indent, parent, key = pending
            pending = None
            if indent > p_indent:
                parent[key] = [] if body.startswith("- ") or body == "-" else {}
                stack.append((indent, parent[key]))
        while stack and indent < stack[-1][0]:
            stack.pop()
        container = stack[-1][1]
        if body.startswith("- ") or body == "-":
            if not isinstance(container, list):
                raise ValueError(f"line {lineno}: a list item where a mapping is")
            container.append(_value(body[2:]))
            continue
        m = re.match(r"^([A-Za-z0-9_.\-]+):(\s+(.*))?$", body)
        if not m or not isinstance(container, dict):
            raise ValueError(f"line {lineno}: not in the YAML subset: {raw!r}")
        key, rest = m.group(1), (m.group(3) or "").strip()
        if rest:
            container[key] = _value(rest)
        else:
            container[key] = None
            pending = (indent, container, key)
    return root


def load_spec(path):
    with open(path) as f:
        return parse_yaml(f.read())


# --------------------------------------------------------------------------
# dry-specs
# --------------------------------------------------------------------------

DRY = re.compile(r"^(\s*[A-Za-z0-9_.\-]+:)\s*(.*?)\s*#\s*dry-run:\s*(.*?)\s*$")


def dry_spec_text(text, source):
    out = [f"# Generated by benchmarks/gpu/gpu_check.py dry-specs from {source}:",
           "# every `# dry-run:` value applied (the real value follows `# real:`)."]
    changed = 0
    for line in text.splitlines():
        m = DRY.match(line)
        if m:
            key, real, dry = m.groups()
            column = line.index("#", len(key))  # keep the comments aligned
            line = f"{key} {dry}".ljust(column - 1) + f" # real: {real}"
            changed += 1
        out.append(line)
    if not changed:
        out.insert(2, "# (no `# dry-run:` values: the same as the real run)")
    return "\n".join(out) + "\n"


def cmd_dry_specs(args):
    os.makedirs(args.out, exist_ok=True)
    for spec in args.specs:
        with open(spec) as f:
            text = dry_spec_text(f.read(), os.path.relpath(spec))
        parse_yaml(text)  # still in the subset
        with open(os.path.join(args.out, os.path.basename(spec)), "w") as f:
            f.write(text)
    return 0


# --------------------------------------------------------------------------
# baseline-args
# --------------------------------------------------------------------------

def _get(d, *keys, default=None):
    for k in keys:
        if not isinstance(d, dict) or d.get(k) is None:
            return default
        d = d[k]
    return d


def ddp_rows(trainers, per_machine):
    """World sizes of the DDP sweep's rows, as distbench's: 1, 2, 4, ... on
    one machine, then whole machines."""
    rows, n = [], 1
    while n <= trainers and n <= per_machine:
        rows.append(n)
        n *= 2
    m = 2
    while m * per_machine <= trainers:
        rows.append(m * per_machine)
        m *= 2
    return rows


def baseline_args(spec, kind):
    s = spec.get("spec", {})
    bench = s.get("benchmark", {}) or {}
    runtime = s.get("runtime", {}) or {}
    device = runtime.get("device", "cpu")
    backend = runtime.get("backend", "gloo")
    threads = runtime.get("intraOpThreads", 1)
    trainers = _get(s, "topology", "trainers", default=8)
    if kind == "ddp":
        if bench.get("kind") != "DDP":
            return None
        ddp = bench.get("ddp", {}) or {}
        models = ddp.get("models") or ["resnet50"]
        if len(models) != 1:
            raise ValueError("the DDP baseline runs one model: give the spec one")
        per_machine = ddp.get("ranksPerMachine", 8)
        return ["--model", models[0],
                "--batch-size", ddp.get("batchSize", 32),
                "--image-size", ddp.get("imageSize", 224),
                "--num-classes", ddp.get("numClasses", 1000),
                "--warmup", ddp.get("warmupIterations", 5),
                "--iterations", ddp.get("iterations", 10),
                "--bucket-cap-mb", bench.get("bucketCapMB", 25),
                "--ranks", ",".join(str(r) for r in ddp_rows(trainers, per_machine)),
                "--ranks-per-machine", per_machine,
                "--intra-op-threads", threads,
                "--seed", bench.get("seed", 0),
                "--device", device, "--backend", backend]
    if kind == "allreduce":
        if bench.get("kind") != "Collectives":
            return None
        c = bench.get("collectives", {}) or {}
        if "allreduce" not in (c.get("ops") or ["allreduce"]):
            return None
        return ["--backend", backend, "--device", device, "--ranks", trainers,
                "--dtypes", ",".join(c.get("dtypes") or ["float32"]),
                "--min-bytes", c.get("minBytes", 1024),
                "--max-bytes", c.get("maxBytes", 64 << 20),
                "--step-factor", c.get("stepFactor", 4),
                "--warmup", c.get("warmupIterations", 5),
                "--iterations", c.get("iterations", 20),
                "--intra-op-threads", threads]
    raise ValueError(f"unknown baseline kind {kind!r}")


def cmd_baseline_args(args):
    got = baseline_args(load_spec(args.spec), args.kind)
    if got is None:
        return 3
    for a in got:
        print(a)
    return 0


# --------------------------------------------------------------------------
# unpack: a .deb without dpkg-deb (ar archive, then a compressed tar)
# --------------------------------------------------------------------------

def ar_members(path):
    with open(path, "rb") as f:
        if f.read(8) != b"!<arch>\n":
            raise ValueError(f"{path}: not an ar archive")
        while True:
            header = f.read(60)
            if len(header) < 60:
                return
            name = header[:16].decode().strip().rstrip("/")
            size = int(header[48:58].decode().strip())
            data = f.read(size)
            if size % 2:
                f.read(1)
            yield name, data


def cmd_unpack(args):
    import io
    for name, data in ar_members(args.deb):
        if name.startswith("data.tar"):
            if name.endswith(".zst"):
                raise SystemExit(f"{args.deb}: {name} needs zstd")
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as t:
                if hasattr(tarfile, "tar_filter"):
                    # 'tar', not 'data': Debian's absolute symlinks are
                    # kept; gpu-check.sh rewrites them after unpacking.
                    t.extractall(args.dest, filter="tar")
                else:
                    t.extractall(args.dest)
            return 0
    raise SystemExit(f"{args.deb}: no data.tar member")


# --------------------------------------------------------------------------
# env
# --------------------------------------------------------------------------

TORCH_PROBE = r"""
import json, os, sys
out = {}
try:
    import torch
except Exception as e:
    print(json.dumps({"error": f"import torch: {e}"})); sys.exit(0)
out["torch"] = torch.__version__
out["torchCuda"] = torch.version.cuda
out["cxx11Abi"] = bool(torch._C._GLIBCXX_USE_CXX11_ABI)
out["cmakePrefixPath"] = getattr(torch.utils, "cmake_prefix_path", None)
out["torchDir"] = os.path.dirname(torch.__file__)
try:
    out["cudnn"] = torch.backends.cudnn.version()
except Exception as e:
    out["cudnn"] = f"error: {e}"
try:
    v = torch.cuda.nccl.version()
    out["nccl"] = ".".join(str(x) for x in v) if isinstance(v, tuple) else str(v)
except Exception as e:
    out["nccl"] = f"error: {e}"
out["cudaAvailable"] = torch.cuda.is_available()
out["deviceCount"] = torch.cuda.device_count() if out["cudaAvailable"] else 0
if out["cudaAvailable"]:
    out["devices"] = [torch.cuda.get_device_name(i) for i in range(out["deviceCount"])]
    out["capability"] = ".".join(str(x) for x in torch.cuda.get_device_capability(0))
try:
    import torchvision
    out["torchvision"] = torchvision.__version__
except Exception:
    out["torchvision"] = None
try:
    import numpy
    out["numpy"] = numpy.__version__
except Exception:
    out["numpy"] = None
print(json.dumps(out))
"""


def site_dirs(torch_dir):
    dirs = []
    if torch_dir:
        dirs.append(os.path.dirname(torch_dir))
    try:
        import site
        dirs += site.getsitepackages() + [site.getusersitepackages()]
    except Exception:
        pass
    return [d for d in dict.fromkeys(dirs) if d and os.path.isdir(d)]


def find_pip_lib(dirs, header, lib_glob):
    """(include dir, library path) of an nvidia-* pip package, searched under
    site-packages/nvidia/ (the CUDA 12 layout nvidia/<pkg>/ and CUDA 13's
    nvidia/cu13/ alike)."""
    for d in dirs:
        for h in sorted(glob.glob(os.path.join(d, "nvidia", "**", "include", header),
                                  recursive=True)):
            inc = os.path.dirname(h)
            root = os.path.dirname(inc)
            libs = sorted(glob.glob(os.path.join(root, "lib*", lib_glob)))
            return inc, (libs[0] if libs else None)
    return None, None


def find_nvcc():
    for cand in (shutil.which("nvcc"),
                 os.path.join(os.environ.get("CUDA_HOME", ""), "bin", "nvcc"),
                 "/usr/local/cuda/bin/nvcc"):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return os.path.realpath(cand)
    found = sorted(glob.glob("/usr/local/cuda-*/bin/nvcc"))
    return found[-1] if found else None


def glibcxx_max(cxx):
    path = None
    if cxx:
        rc, out = sh([cxx, "-print-file-name=libstdc++.so.6"])
        if rc == 0 and os.path.isabs(out) and os.path.exists(out):
            path = out
    if not path:
        rc, out = sh(["ldconfig", "-p"])
        m = re.search(r"libstdc\+\+\.so\.6 \(.*x86-64.*\) => (\S+)", out or "")
        path = m.group(1) if m else None
    if not path:
        return None, None
    with open(os.path.realpath(path), "rb") as f:
        found = set(re.findall(rb"GLIBCXX_(3\.4(?:\.\d+)?)\b", f.read()))
    versions = sorted((v.decode() for v in found), key=version_key)
    return path, (versions[-1] if versions else None)


def slug_of(name):
    """'NVIDIA H100 80GB HBM3' -> 'h100'; 'NVIDIA H200' -> 'h200'."""
    words = re.split(r"[\s_-]+", re.sub(r"(?i)^nvidia\s+", "", name or ""))
    for i, w in enumerate(words):
        if re.match(r"^[A-Za-z]+\d+[A-Za-z]*$", w):  # H100, A100, L40S
            return w.lower()
        if re.match(r"^\d+[A-Za-z]*$", w) and i:  # RTX 4090 -> rtx-4090
            return f"{words[i - 1]}-{w}".lower()
    return re.sub(r"[^a-z0-9]+", "-", (name or "gpu").lower()).strip("-") or "gpu"


def read_manifest(deps):
    m = {}
    path = os.path.join(deps or "", "MANIFEST")
    if deps and os.path.exists(path):
        for line in open(path):
            mm = re.match(r"^(needs-glibc|needs-glibcxx|total-bytes|key|fetched): (.*)$", line)
            if mm:
                m[mm.group(1)] = mm.group(2).strip()
    return m


def cmd_env(args):
    env = {"mode": args.mode, "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "hostname": platform.node()}
    raw = []  # (title, command output) for environment.txt

    def record(title, cmd, timeout=60):
        rc, out = sh(cmd, timeout)
        raw.append((f"$ {' '.join(cmd)}", out if out else f"(exit {rc}, no output)"))
        return rc, out

    # GPU and driver
    rc, out = record("gpus", ["nvidia-smi", "-L"])
    env["nvidiaSmiList"] = out if rc == 0 else None
    rc, out = record("query", ["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                               "--format=csv"])
    gpus = []
    if rc == 0:
        for line in out.splitlines()[1:]:
            parts = [p.strip() for p in line.split(",")]
            if len(parts) == 3:
                gpus.append({"name": parts[0], "driver": parts[1], "memory": parts[2]})
    env["gpus"] = gpus
    rc, out = sh(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"])
    env["computeCapability"] = first_line(out) if rc == 0 else None

    nvcc = find_nvcc()
    env["nvcc"] = nvcc
    env["cudaHome"] = os.path.dirname(os.path.dirname(nvcc)) if nvcc else None
    if nvcc:
        rc, out = record("nvcc", [nvcc, "--version"])
        m = re.search(r"release ([\d.]+)", out or "")
        env["nvccVersion"] = m.group(1) if m else None
    else:
        raw.append(("$ nvcc --version", "nvcc: not found"))
        env["nvccVersion"] = None

    # Python and torch (in a child: importing torch can hang on a bad driver)
    env["python"] = {"executable": sys.executable, "version": platform.python_version()}
    rc, out = sh([sys.executable, "-c", TORCH_PROBE], timeout=240)
    try:
        env["torch"] = json.loads(out.splitlines()[-1]) if out else {"error": "no output"}
    except (ValueError, IndexError):
        env["torch"] = {"error": out[-2000:]}
    raw.append(("$ python -c '<torch probe>'", json.dumps(env["torch"], indent=2)))
    t = env["torch"]

    dirs = site_dirs(t.get("torchDir"))
    nccl_inc, nccl_lib = find_pip_lib(dirs, "nccl.h", "libnccl.so*")
    cudnn_inc, cudnn_lib = find_pip_lib(dirs, "cudnn.h", "libcudnn.so*")
    if not nccl_inc and env["cudaHome"]:
        h = os.path.join(env["cudaHome"], "include", "nccl.h")
        if os.path.exists(h):
            nccl_inc = os.path.dirname(h)
            libs = sorted(glob.glob(os.path.join(env["cudaHome"], "lib*", "libnccl.so*")))
            nccl_lib = libs[0] if libs else None
    env["nccl"] = {"include": nccl_inc, "library": nccl_lib}
    env["cudnn"] = {"include": cudnn_inc, "library": cudnn_lib}
    nvidia_libs = sorted({os.path.dirname(p) for d in dirs for p in
                          glob.glob(os.path.join(d, "nvidia", "**", "lib", "*.so*"),
                                    recursive=True)})
    env["nvidiaLibDirs"] = nvidia_libs

    # OS, C library, compilers, tools
    osr = {}
    if os.path.exists("/etc/os-release"):
        for line in open("/etc/os-release"):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                osr[k] = v.strip('"')
        raw.append(("$ cat /etc/os-release", open("/etc/os-release").read().strip()))
    env["os"] = osr.get("PRETTY_NAME") or platform.platform()
    env["kernel"] = platform.release()
    try:
        env["glibc"] = os.confstr("CS_GNU_LIBC_VERSION").split()[-1]
    except (ValueError, OSError, AttributeError):
        env["glibc"] = platform.libc_ver()[1] or None
    cxx = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    env["cxx"] = cxx
    if cxx:
        rc, out = record("cxx", [cxx, "--version"])
        env["cxxVersion"] = first_line(out)
    libstdcxx, glibcxx = glibcxx_max(cxx)
    env["libstdcxx"] = {"path": libstdcxx, "newestGLIBCXX": glibcxx}
    for tool in ("cmake", "ninja"):
        rc, out = record(tool, [tool, "--version"])
        env[f"{tool}Version"] = first_line(out) if rc == 0 else None
    env["tools"] = {tool: shutil.which(tool) for tool in
                    ("dpkg-deb", "ar", "tar", "xz", "zstd", "timeout", "ccache", "ldd", "make")}
    env["nproc"] = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal:"):
                env["memoryGiB"] = round(int(line.split()[1]) / 1048576, 1)
    except OSError:
        pass

    # Can the Debian 12 bundle run here?
    man = read_manifest(args.deps)
    env["bundle"] = man
    problems = []
    if man.get("needs-glibc") and env.get("glibc") and \
            version_key(env["glibc"]) < version_key(man["needs-glibc"]):
        problems.append(f"glibc {env['glibc']} < {man['needs-glibc']}")
    if man.get("needs-glibcxx") and glibcxx and \
            version_key(glibcxx) < version_key(man["needs-glibcxx"]):
        problems.append(f"GLIBCXX_{glibcxx} < {man['needs-glibcxx']}")
    if t.get("cxx11Abi") is False:
        problems.append("torch is built with the old C++ ABI (_GLIBCXX_USE_CXX11_ABI=0); "
                        "Debian's libraries use the new one")
    env["bundleProblems"] = problems

    gpu_name = gpus[0]["name"] if gpus else ((t.get("devices") or [None])[0])
    env["gpuName"] = gpu_name
    env["gpuSlug"] = slug_of(gpu_name) if gpu_name else "cpu"
    arch = env.get("computeCapability") or t.get("capability")

    os.makedirs(os.path.join(args.out, "logs"), exist_ok=True)
    with open(os.path.join(args.out, "environment.json"), "w") as f:
        json.dump(env, f, indent=2)
        f.write("\n")
    lines = [
        f"mode:            {args.mode}",
        f"date:            {env['date']}  host {env['hostname']}",
        f"gpu:             {gpu_name or 'none'}" + (f" ({gpus[0]['memory']}, driver {gpus[0]['driver']})" if gpus else ""),
        f"compute cap:     {arch or '-'}",
        f"nvcc:            {env['nvccVersion'] or 'not found'} ({nvcc or '-'})",
        f"python:          {platform.python_version()} ({sys.executable})",
        f"torch:           {t.get('torch', t.get('error'))}, CUDA {t.get('torchCuda')}, cuDNN {t.get('cudnn')}, NCCL {t.get('nccl')}",
        f"torch C++ ABI:   _GLIBCXX_USE_CXX11_ABI="
        + ("-" if t.get("cxx11Abi") is None else str(int(t["cxx11Abi"]))),
        f"torch devices:   {', '.join(t.get('devices') or []) or 'none'} (cuda available: {t.get('cudaAvailable')})",
        f"torchvision:     {t.get('torchvision')}",
        f"torch cmake:     {t.get('cmakePrefixPath')}",
        f"nccl:            include {nccl_inc}, library {nccl_lib}",
        f"cudnn:           include {cudnn_inc}, library {cudnn_lib}",
        f"os:              {env['os']}, kernel {env['kernel']}",
        f"glibc:           {env['glibc']}; libstdc++ {libstdcxx} (newest GLIBCXX_{glibcxx})",
        f"compiler:        {env.get('cxxVersion')} ({cxx})",
        f"cmake / ninja:   {env['cmakeVersion']} / {env['ninjaVersion']}",
        f"cores / memory:  {env['nproc']} / {env.get('memoryGiB')} GiB",
        f"tools:           " + ", ".join(f"{k} {'yes' if v else 'no'}" for k, v in env["tools"].items()),
        f"bundle:          {man.get('total-bytes', 'no MANIFEST')}; needs glibc {man.get('needs-glibc')}, GLIBCXX_{man.get('needs-glibcxx')}: "
        + ("OK" if not problems else "PROBLEM: " + "; ".join(problems)),
    ]
    text = "\n".join(lines) + "\n\n" + "\n\n".join(f"{a}\n{b}" for a, b in raw) + "\n"
    with open(os.path.join(args.out, "environment.txt"), "w") as f:
        f.write(text)
    print("\n".join(lines))

    shell = {
        "GPU_SLUG": env["gpuSlug"], "GPU_NAME": gpu_name or "",
        "GPU_COUNT": str(t.get("deviceCount") or 0),
        "TORCH_CMAKE_PREFIX": t.get("cmakePrefixPath") or "",
        "TORCH_VERSION": t.get("torch") or "",
        "TORCH_CXX11_ABI": "" if t.get("cxx11Abi") is None else str(int(t["cxx11Abi"])),
        "NVCC": nvcc or "", "CUDA_HOME_DIR": env["cudaHome"] or "",
        "CUDA_ARCH": arch or "",
        "NCCL_INCLUDE_DIR": nccl_inc or "", "NCCL_LIBRARY": nccl_lib or "",
        "CUDNN_INCLUDE_DIR": cudnn_inc or "", "CUDNN_LIBRARY": cudnn_lib or "",
        "NVIDIA_LIB_DIRS": ":".join(nvidia_libs),
        "BUNDLE_PROBLEMS": "; ".join(problems),
    }
    with open(os.path.join(args.out, "logs", "environment.sh"), "w") as f:
        for k, v in shell.items():
            f.write(f"{k}={shlex.quote(v)}\n")
    return 0


# --------------------------------------------------------------------------
# check-build
# --------------------------------------------------------------------------

CACHE_KEYS = re.compile(
    r"^(?P<key>(?:yaml-cpp|cpprestsdk|prometheus-cpp|civetweb|GTest|Boost|boost_[a-z_]+)_DIR|"
    r"OPENSSL_INCLUDE_DIR|OPENSSL_SSL_LIBRARY|OPENSSL_CRYPTO_LIBRARY|ZLIB_INCLUDE_DIR|"
    r"ZLIB_LIBRARY(?:_RELEASE)?|CURL_INCLUDE_DIR|CURL_LIBRARY(?:_RELEASE)?):[A-Z]+=(?P<value>.*)$")


def header_deps(build):
    """Every file the compiler read, from ninja's log or the .d files."""
    paths = set()
    if os.path.exists(os.path.join(build, "build.ninja")) and shutil.which("ninja"):
        rc, out = sh(["ninja", "-C", build, "-t", "deps"], timeout=120)
        for line in out.splitlines():
            if line.startswith("    "):
                paths.add(line.strip())
    else:
        for d in glob.glob(os.path.join(build, "**", "*.d"), recursive=True):
            with open(d, errors="replace") as f:
                for tok in f.read().replace("\\\n", " ").split():
                    if tok.startswith("/"):
                        paths.add(tok)
    return paths


def cmd_check_build(args):
    prefix = os.path.realpath(args.prefix)
    problems, notes = [], []

    cache = os.path.join(args.build, "CMakeCache.txt")
    found = {}
    if os.path.exists(cache):
        for line in open(cache, errors="replace"):
            m = CACHE_KEYS.match(line.strip())
            if m and m.group("value") and not m.group("value").endswith("-NOTFOUND"):
                found[m.group("key")] = m.group("value")
    for key, value in sorted(found.items()):
        inside = os.path.realpath(value).startswith(prefix + os.sep)
        (notes if inside else problems).append(
            f"cache {key} = {value}" + ("" if inside else "  (not from the bundle)"))
    for key in ("yaml-cpp_DIR", "cpprestsdk_DIR", "prometheus-cpp_DIR", "GTest_DIR",
                "OPENSSL_INCLUDE_DIR", "ZLIB_INCLUDE_DIR"):
        if key not in found:
            problems.append(f"cache {key}: not set (was the package found at all?)")

    tops = set()
    inc = os.path.join(prefix, "usr", "include")
    if os.path.isdir(inc):
        tops = {n for n in os.listdir(inc) if n != "x86_64-linux-gnu"}
    deps = header_deps(args.build)
    from_bundle, leaked = 0, set()
    for p in deps:
        # ninja writes the paths inside the build directory relative to it.
        real = os.path.realpath(os.path.join(args.build, p))
        if real.startswith(prefix + os.sep):
            from_bundle += 1
            continue
        m = re.match(r"^/usr/(?:local/)?include/(?:x86_64-linux-gnu/)?([^/]+)", p)
        if m and m.group(1) in tops:
            leaked.add(p)
    notes.append(f"{len(deps)} files read by the compiler, {from_bundle} of them from the bundle")
    if not deps:
        problems.append(f"no dependency information in {args.build} (nothing built?)")
    elif not from_bundle:
        problems.append("the compiler read no header from the bundle")
    for p in sorted(leaked)[:40]:
        problems.append(f"header from the system, not the bundle: {p}")
    if len(leaked) > 40:
        problems.append(f"... and {len(leaked) - 40} more")

    libdir = os.path.join(prefix, "usr", "lib", "x86_64-linux-gnu")
    bundled = {n for n in os.listdir(libdir)} if os.path.isdir(libdir) else set()
    for binary in args.binaries:
        rc, out = sh(["ldd", binary])
        if rc is None:
            notes.append(f"ldd {binary}: {out}")
            continue
        for line in out.splitlines():
            m = re.match(r"^\s*(\S+) => (.*?)(?: \(0x[0-9a-f]+\))?$", line)
            if not m:
                continue
            soname, where = m.groups()
            if where.strip() == "not found":
                problems.append(f"{os.path.basename(binary)}: {soname} not found")
            elif soname in bundled and not os.path.realpath(where).startswith(prefix + os.sep):
                problems.append(f"{os.path.basename(binary)}: {soname} => {where} (not the bundle's)")
    for n in notes:
        print(f"  ok: {n}")
    for p in problems:
        print(f"  PROBLEM: {p}")
    print(f"check-build: {'OK' if not problems else f'{len(problems)} problems'}")
    return 1 if problems else 0


# --------------------------------------------------------------------------
# ctest-summary
# --------------------------------------------------------------------------

def cmd_ctest_summary(args):
    text = open(args.log, errors="replace").read()
    if re.search(r"No tests were found", text):
        print("ctest-summary: no tests carry the label (ctest: No tests were found)")
        return 0
    status = {}
    for m in re.finditer(r"^\s*\d+/\d+ Test\s+#(\d+): (\S+) \.*\s*(\*\*\*)?([A-Za-z][A-Za-z ]*?)\s+[\d.]+ sec",
                         text, re.M):
        status[m.group(1)] = (m.group(2), m.group(4).strip())
    reasons = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^(\d+): .*(?:Skipped|SKIPPED)\s*$", line) or \
            re.match(r"^(\d+): .*: Skipped$", line)
        if m and m.group(1) not in reasons:
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            mm = re.match(rf"^{m.group(1)}: (.*)$", nxt)
            reasons[m.group(1)] = mm.group(1).strip() if mm else ""
    counts = {}
    for num, (name, st) in sorted(status.items(), key=lambda kv: int(kv[0])):
        counts[st] = counts.get(st, 0) + 1
        why = reasons.get(num)
        print(f"  {name}: {st}" + (f" ({why})" if why else ""))
    print("ctest-summary: " + (", ".join(f"{v} {k.lower()}" for k, v in counts.items())
                              or "no test results found in the log"))
    return 0


# --------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("env")
    p.add_argument("--out", required=True)
    p.add_argument("--mode", choices=("real", "dry"), required=True)
    p.add_argument("--deps")
    p.set_defaults(fn=cmd_env)
    p = sub.add_parser("dry-specs")
    p.add_argument("--out", required=True)
    p.add_argument("specs", nargs="+")
    p.set_defaults(fn=cmd_dry_specs)
    p = sub.add_parser("baseline-args")
    p.add_argument("--kind", choices=("ddp", "allreduce"), required=True)
    p.add_argument("spec")
    p.set_defaults(fn=cmd_baseline_args)
    p = sub.add_parser("unpack")
    p.add_argument("deb")
    p.add_argument("dest")
    p.set_defaults(fn=cmd_unpack)
    p = sub.add_parser("check-build")
    p.add_argument("--prefix", required=True)
    p.add_argument("--build", required=True)
    p.add_argument("binaries", nargs="*")
    p.set_defaults(fn=cmd_check_build)
    p = sub.add_parser("ctest-summary")
    p.add_argument("log")
    p.set_defaults(fn=cmd_ctest_summary)
    args = ap.parse_args(argv)
    try:
        return args.fn(args)
    except (OSError, ValueError) as e:
        print(f"gpu_check.py {args.cmd}: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
