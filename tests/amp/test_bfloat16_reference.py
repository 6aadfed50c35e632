"""auto_cast(dtype='bfloat16') against PyTorch's bfloat16 autocast on the CPU, recorded by
tools/record_bfloat16_autocast_refs.py: one step of a conv net (conv2d, relu, linear,
cross entropy). Low-precision ops take and give bfloat16 values, gradients included, and
their products accumulate in float32, in both; so the loss and every gradient agree to
the bit but for the order of float32 sums (which can move a bfloat16 rounding by a unit
on another BLAS)."""

import pathlib

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F

ml_dtypes = pytest.importorskip("ml_dtypes")

REFS = pathlib.Path(__file__).resolve().parent.parent / "data" / "bfloat16_autocast_refs.npz"


def _step(refs):
    leaves = {k: dygraph.to_tensor(refs[k], stop_gradient=False)
              for k in ("x", "conv_w", "conv_b", "fc_w", "fc_b")}
    with dygraph.amp.auto_cast(dtype="bfloat16"):
        h = F.relu(F.conv2d(leaves["x"], leaves["conv_w"], leaves["conv_b"]))
        out = F.linear(h.flatten(1), leaves["fc_w"].T, leaves["fc_b"])
    loss = F.cross_entropy(out.astype("float32"), dygraph.to_tensor(refs["label"]))
    loss.backward()
    return loss.numpy(), {k: v.grad.numpy() for k, v in leaves.items()}


def test_a_step_gives_pytorchs_loss_and_bfloat16_gradients():
    refs = np.load(REFS)
    loss, grads = _step(refs)
    np.testing.assert_allclose(loss, refs["loss"], rtol=1e-6)
    for name, got in grads.items():
        want = refs[f"grad_{name}"]
        as_bf16 = got.astype(ml_dtypes.bfloat16).astype(np.float32)
        np.testing.assert_array_equal(got, as_bf16, err_msg=f"{name}'s gradient is not "
                                      "made of bfloat16 values")
        # a bfloat16 unit in the last place: 2^-7 of the value at most
        np.testing.assert_allclose(got, want, rtol=2.0 ** -7, atol=1e-30, err_msg=name)
        assert (got == want).mean() >= 0.98, name
