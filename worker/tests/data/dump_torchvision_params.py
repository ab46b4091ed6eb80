#!/usr/bin/python3
"""Writes the reference files image_model_test.cpp checks our models against.

For each torchvision 0.14 model:
  <model>.params.txt  every state_dict entry (parameters and buffers), in state_dict order,
                      as "name [d0, d1, ...]" lines.
  <model>.logits.txt  (resnet18, resnext50_32x4d only) eval-mode logits for a [2, 3, 64, 64]
                      input, with weights and input filled by fill() below.

fill() is a hash of the element index rather than a seeded RNG, so the C++ test computes the same
weights itself: the check covers every layer of the real architectures without committing
tens of MB of weights. Keep both in step with fill() and fillState() in image_model_test.cpp.

Run with Debian's python3-torchvision (0.14.1):
  /usr/bin/python3 worker/tests/data/dump_torchvision_params.py [output_dir]
"""

import os
import sys

import torch
import torchvision

MODELS = ["resnet18", "resnet50", "resnet101", "resnext50_32x4d", "resnext101_32x8d"]
LOGIT_MODELS = ["resnet18", "resnext50_32x4d"]
NUM_CLASSES = 1000
INPUT_SHAPE = [2, 3, 64, 64]


def fill(shape, salt):
    """Values spread evenly over [-0.5, 0.5): a 32-bit integer hash of (flat index, salt).

    Integer arithmetic until the final division, with every product below 2**63, so C++ on int64
    tensors reproduces it bit for bit. The xor-shift-multiply rounds break up the lattice that
    the first (Weyl) step alone leaves between neighbouring elements.
    """
    mask = 0xFFFFFFFF
    n = 1
    for d in shape:
        n *= d
    x = (torch.arange(n, dtype=torch.int64) * 2654435761 + salt * 97531) & mask
    x = x ^ (x >> 16)
    x = (x * 0x7FEB352D) & mask
    x = x ^ (x >> 15)
    x = (x * 0x2C1B3C6D) & mask
    x = x ^ (x >> 16)
    return (x.double() / 2.0**32 - 0.5).float().reshape(shape)


def fill_state(model):
    """Deterministic weights that keep activations in a sane range through 100+ layers."""
    state = model.state_dict()
    for salt, (name, tensor) in enumerate(state.items()):
        if tensor.dtype != torch.float32:
            continue  # num_batches_tracked: unused in eval mode
        u = fill(list(tensor.shape), salt)
        leaf = name.rsplit(".", 1)[1]
        if leaf == "running_var":
            value = 1.0 + 0.5 * u
        elif leaf == "running_mean" or leaf == "bias":
            value = 0.02 * u
        elif tensor.dim() == 1:  # BatchNorm weight
            value = 1.0 + 0.2 * u
        else:  # conv / linear weight: He-scaled (variance 2 / fan_in) so ReLUs keep the signal
            fan_in = tensor[0].numel()
            value = u * (24.0 / fan_in) ** 0.5
        state[name] = value
    model.load_state_dict(state)


def shape_text(shape):
    return "[" + ", ".join(str(d) for d in shape) + "]"


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for name in MODELS:
        model = getattr(torchvision.models, name)(weights=None, num_classes=NUM_CLASSES)
        with open(os.path.join(out_dir, name + ".params.txt"), "w") as f:
            for key, tensor in model.state_dict().items():
                f.write(f"{key} {shape_text(tensor.shape)}\n")
        if name not in LOGIT_MODELS:
            continue
        fill_state(model)
        model.eval()
        with torch.no_grad():
            logits = model(fill(INPUT_SHAPE, 12345))
        with open(os.path.join(out_dir, name + ".logits.txt"), "w") as f:
            f.write(f"# torchvision {torchvision.__version__}, input {shape_text(INPUT_SHAPE)}, "
                    f"logits {shape_text(logits.shape)}\n")
            for value in logits.flatten().tolist():
                f.write(f"{value!r}\n")


if __name__ == "__main__":
    main()
