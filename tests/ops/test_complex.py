"""Behaviour of dygraph/ops/complex.py beyond the spec table (tests/op_specs)."""

import pytest

import dygraph as D
from dygraph.framework.errors import UnsupportedDTypeError


@pytest.mark.parametrize("op", [D.real, D.imag])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_real_and_imag_refuse_real_tensors_as_paddle(op, dtype):
    # Paddle has no real/imag kernel for real dtypes: RuntimeError
    with pytest.raises(RuntimeError, match=f"{op.__name__}.*{dtype}"):
        op(D.ones([2, 3], dtype=dtype))
    with pytest.raises(UnsupportedDTypeError):
        D.ones([2]).real()


def test_real_and_imag_of_a_complex_tensor():
    z = D.to_tensor([1 + 2j, 3 - 1j])
    assert D.real(z).numpy().tolist() == [1.0, 3.0]
    assert D.imag(z).numpy().tolist() == [2.0, -1.0]
    assert D.real(z).dtype == D.float32
