"""Record PyTorch's bfloat16 autocast on the CPU for a small conv net into
tests/data/bfloat16_autocast_refs.npz: the inputs, the parameters, and the loss and every
gradient of one step with conv2d and linear under `torch.autocast('cpu', bfloat16)`.

tests/amp/test_bfloat16_reference.py runs the same step under DyGraph's
`auto_cast(dtype='bfloat16')` without PyTorch. In both, a low-precision op's inputs,
outputs and gradients are bfloat16 values and its products accumulate in float32. Run it
with a Python that has torch:

    /tmp/torch-venv/bin/python tools/record_bfloat16_autocast_refs.py
"""

import pathlib

import numpy as np
import torch

OUT = (pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" /
       "bfloat16_autocast_refs.npz")


def main():
    rng = np.random.default_rng(0)
    arrays = {"x": rng.standard_normal((4, 3, 8, 8)).astype(np.float32),
              "conv_w": (rng.standard_normal((6, 3, 3, 3)) * 0.3).astype(np.float32),
              "conv_b": (rng.standard_normal(6) * 0.1).astype(np.float32),
              "fc_w": (rng.standard_normal((5, 6 * 36)) * 0.05).astype(np.float32),
              "fc_b": (rng.standard_normal(5) * 0.1).astype(np.float32),
              "label": rng.integers(0, 5, 4)}
    leaves = {k: torch.tensor(v, requires_grad=True) for k, v in arrays.items()
              if k != "label"}
    with torch.autocast("cpu", dtype=torch.bfloat16):
        h = torch.relu(torch.nn.functional.conv2d(leaves["x"], leaves["conv_w"],
                                                  leaves["conv_b"]))
        out = torch.nn.functional.linear(h.flatten(1), leaves["fc_w"], leaves["fc_b"])
    loss = torch.nn.functional.cross_entropy(out.float(), torch.tensor(arrays["label"]))
    loss.backward()
    arrays["loss"] = loss.detach().numpy()
    arrays.update({f"grad_{k}": v.grad.numpy() for k, v in leaves.items()})
    np.savez(OUT, torch_version=np.array(torch.__version__), **arrays)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
