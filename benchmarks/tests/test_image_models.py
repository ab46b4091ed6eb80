#!/usr/bin/python3
"""benchmarks/python/image_models.py against torchvision.

ddp_baseline.py falls back on image_models.py where torchvision is missing
(the lent GPU machine may lack it). These tests prove, on a machine that has
torchvision (Debian's python3-torchvision 0.14), that the fallback is the
same model for every name it knows: the same parameter count, the same state
dict (names, shapes and, from the same seed, the same values bit for bit) and
the same outputs, with the default 1000 classes and with 10.

    /usr/bin/python3 benchmarks/tests/test_image_models.py [-v]

ctest: benchmark_python_image_models (label `benchmark`).
"""

import os
import sys
import unittest

import torch
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
import image_models  # noqa: E402

SEED = 1234


def build_both(name, num_classes):
    torch.manual_seed(SEED)
    theirs = getattr(torchvision.models, name)(num_classes=num_classes)
    torch.manual_seed(SEED)
    ours = image_models.build(name, num_classes=num_classes)
    return theirs, ours


class ImageModelsMatchTorchvision(unittest.TestCase):
    def check(self, name, num_classes):
        theirs, ours = build_both(name, num_classes)
        count = lambda m: sum(p.numel() for p in m.parameters())  # noqa: E731
        self.assertEqual(count(ours), count(theirs), "parameter count")
        a, b = theirs.state_dict(), ours.state_dict()
        self.assertEqual(list(b), list(a), "state dict names, in order")
        for key in a:
            self.assertEqual(b[key].shape, a[key].shape, key)
            self.assertTrue(torch.equal(b[key], a[key]),
                            f"{key}: values differ from the same seed")
        # Same outputs in both modes (training mode: batch statistics).
        x = torch.randn(2, 3, 64, 64)
        for train in (True, False):
            theirs.train(train)
            ours.train(train)
            with torch.no_grad():
                ya, yb = theirs(x), ours(x)
            self.assertEqual(yb.shape, (2, num_classes))
            self.assertEqual(yb.shape, ya.shape)
            self.assertTrue(torch.allclose(yb, ya, rtol=1e-5, atol=1e-6),
                            f"outputs differ (train={train}): max "
                            f"{(yb - ya).abs().max().item()}")

    def test_unknown_model(self):
        with self.assertRaises(ValueError):
            image_models.build("resnet34")


def _add(name, num_classes):
    def test(self):
        self.check(name, num_classes)
    setattr(ImageModelsMatchTorchvision, f"test_{name}_{num_classes}_classes", test)


for _name in image_models.MODELS:
    for _classes in (1000, 10):
        _add(_name, _classes)


if __name__ == "__main__":
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, torchvision {torchvision.__version__}",
          flush=True)
    unittest.main()
