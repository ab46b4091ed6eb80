#!/usr/bin/python3
"""benchmarks/gpu/gpu_check.py: the pieces scripts/gpu-check.sh relies on.

The YAML subset reader against every spec of benchmarks/gpu/, the dry-run
rewrite (every `# dry-run:` value applied, nothing else touched, the result
still readable), the Python baselines' arguments read from the specs, the
GPU's short name, the fallback .deb unpacker and the ctest log summary.
Standard library only.

    /usr/bin/python3 benchmarks/tests/test_gpu_check_helper.py [-v]

ctest: benchmark_gpu_check_helper (label `benchmark`).
"""

import io
import os
import subprocess
import sys
import tarfile
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
GPU = HERE.parent / "gpu"
sys.path.insert(0, str(GPU))
import gpu_check  # noqa: E402

SPECS = sorted(GPU.glob("*.yaml"))


class YamlSubset(unittest.TestCase):
    def test_every_spec_reads(self):
        self.assertGreaterEqual(len(SPECS), 10)
        for spec in SPECS:
            doc = gpu_check.load_spec(spec)
            self.assertEqual(doc["kind"], "DistBenchmark", spec.name)
            self.assertEqual(doc["metadata"]["name"], f"gpu-{spec.stem}".replace("_", "-"))
            self.assertIn(doc["spec"]["runtime"]["device"], ("cuda", "cpu"), spec.name)

    def test_shapes(self):
        doc = gpu_check.parse_yaml(
            "# head\na:\n  b: 1   # note\n  c: [x, 2, 0.5]\n  d:\n    - p\n    - 3\n"
            "e: 'q r'\nf: true\ng:\n")
        self.assertEqual(doc, {"a": {"b": 1, "c": ["x", 2, 0.5], "d": ["p", 3]},
                               "e": "q r", "f": True, "g": None})

    def test_outside_the_subset_is_an_error(self):
        with self.assertRaises(ValueError):
            gpu_check.parse_yaml("a: {b: 1}\n")
        with self.assertRaises(ValueError):
            gpu_check.parse_yaml("a: |\n  text\n")


class DrySpecs(unittest.TestCase):
    def test_values_replaced_and_nothing_else(self):
        for spec in SPECS:
            real = spec.read_text()
            dry = gpu_check.dry_spec_text(real, spec.name)
            real_lines = real.splitlines()
            dry_lines = [line for line in dry.splitlines()
                         if not line.startswith("# Generated") and
                         not line.startswith("# every `# dry-run:`") and
                         not line.startswith("# (no `# dry-run:`")]
            self.assertEqual(len(dry_lines), len(real_lines), spec.name)
            for r, d in zip(real_lines, dry_lines):
                m = gpu_check.DRY.match(r)
                if m:
                    key, value = m.group(1)[:-1], m.group(3)
                    self.assertTrue(d.startswith(f"{key}: {value}"), (spec.name, d))
                    self.assertIn("# real: ", d)
                else:
                    self.assertEqual(d, r)

    def test_dry_specs_are_cpu_and_gloo(self):
        for spec in SPECS:
            doc = gpu_check.parse_yaml(gpu_check.dry_spec_text(spec.read_text(), spec.name))
            runtime = doc["spec"]["runtime"]
            self.assertEqual((runtime["device"], runtime["backend"]), ("cpu", "gloo"), spec.name)
            c = doc["spec"]["benchmark"].get("collectives")
            if c:
                self.assertNotIn("bfloat16", c["dtypes"], spec.name)  # Gloo has none
                self.assertLessEqual(c["maxBytes"], 1 << 20, spec.name)

    def test_real_specs_are_what_the_gpu_run_needs(self):
        for spec in SPECS:
            runtime = gpu_check.load_spec(spec)["spec"]["runtime"]
            if spec.stem.endswith("-cpu"):
                self.assertEqual(runtime["device"], "cpu", spec.name)
            else:
                self.assertEqual(runtime["device"], "cuda", spec.name)


class BaselineArgs(unittest.TestCase):
    def args(self, name, kind):
        got = gpu_check.baseline_args(gpu_check.load_spec(GPU / name), kind)
        return None if got is None else [str(a) for a in got]

    def test_ddp(self):
        a = self.args("ddp-resnet50.yaml", "ddp")
        pairs = dict(zip(a[::2], a[1::2]))
        self.assertEqual(pairs["--model"], "resnet50")
        self.assertEqual((pairs["--batch-size"], pairs["--image-size"]), ("32", "224"))
        self.assertEqual((pairs["--device"], pairs["--backend"]), ("cuda", "nccl"))
        self.assertEqual(pairs["--ranks"], "1")
        self.assertIsNone(self.args("ddp-resnet50.yaml", "allreduce"))

    def test_allreduce(self):
        a = self.args("collectives-nccl-ws1.yaml", "allreduce")
        pairs = dict(zip(a[::2], a[1::2]))
        self.assertEqual(pairs["--dtypes"], "float32,float16,bfloat16")
        self.assertEqual((pairs["--min-bytes"], pairs["--max-bytes"]), ("1024", str(256 << 20)))
        self.assertEqual((pairs["--ranks"], pairs["--backend"]), ("1", "nccl"))
        a = self.args("collectives-gloo-ws4.yaml", "allreduce")
        pairs = dict(zip(a[::2], a[1::2]))
        self.assertEqual((pairs["--ranks"], pairs["--backend"], pairs["--device"]),
                         ("4", "gloo", "cuda"))
        self.assertIsNone(self.args("hybrid-tutorial.yaml", "allreduce"))

    def test_ddp_rows(self):
        self.assertEqual(gpu_check.ddp_rows(1, 8), [1])
        self.assertEqual(gpu_check.ddp_rows(8, 8), [1, 2, 4, 8])
        self.assertEqual(gpu_check.ddp_rows(32, 8), [1, 2, 4, 8, 16, 32])


class Misc(unittest.TestCase):
    def test_slug(self):
        self.assertEqual(gpu_check.slug_of("NVIDIA H100 80GB HBM3"), "h100")
        self.assertEqual(gpu_check.slug_of("NVIDIA H200"), "h200")
        self.assertEqual(gpu_check.slug_of("NVIDIA A100-SXM4-80GB"), "a100")

    def test_unpack_without_dpkg(self):
        with tempfile.TemporaryDirectory() as tmp:
            data = io.BytesIO()
            with tarfile.open(fileobj=data, mode="w:xz") as t:
                body = b"hello\n"
                info = tarfile.TarInfo("./usr/include/x.h")
                info.size = len(body)
                t.addfile(info, io.BytesIO(body))
                link = tarfile.TarInfo("./usr/lib/libx.so")
                link.type, link.linkname = tarfile.SYMTYPE, "/lib/libx.so.1"
                t.addfile(link)
            members = [(b"debian-binary", b"2.0\n"), (b"control.tar.xz", b""),
                       (b"data.tar.xz", data.getvalue())]
            deb = Path(tmp) / "x.deb"
            with open(deb, "wb") as f:
                f.write(b"!<arch>\n")
                for name, body in members:
                    f.write(name.ljust(16) + b"0".ljust(12) + b"0".ljust(6) * 2 +
                            b"100644".ljust(8) + str(len(body)).encode().ljust(10) + b"`\n")
                    f.write(body + (b"\n" if len(body) % 2 else b""))
            dest = Path(tmp) / "root"
            rc = subprocess.run([sys.executable, GPU / "gpu_check.py", "unpack", deb, dest]).returncode
            self.assertEqual(rc, 0)
            self.assertEqual((dest / "usr/include/x.h").read_text(), "hello\n")
            self.assertEqual(os.readlink(dest / "usr/lib/libx.so"), "/lib/libx.so.1")

    def test_ctest_summary(self):
        log = ("Test project /b\n"
               "    Start 1: Gpu.Probe\n"
               "1: [ RUN      ] Gpu.Probe\n"
               "1: worker/tests/gpu_test.cpp:12: Skipped\n"
               "1: no CUDA device (torch::cuda::is_available() is false)\n"
               "1/2 Test #1: Gpu.Probe ........................***Skipped   0.02 sec\n"
               "2/2 Test #2: Gpu.Other ........................   Passed    0.01 sec\n")
        with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
            f.write(log)
        try:
            out = subprocess.run([sys.executable, GPU / "gpu_check.py", "ctest-summary", f.name],
                                 capture_output=True, text=True).stdout
        finally:
            os.unlink(f.name)
        self.assertIn("Gpu.Probe: Skipped (no CUDA device (torch::cuda::is_available() is false))", out)
        self.assertIn("Gpu.Other: Passed", out)
        self.assertIn("1 skipped", out)


if __name__ == "__main__":
    unittest.main()
