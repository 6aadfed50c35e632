"""Behaviour of the binary arithmetic ops (dygraph/ops/math/arithmetic.py) beyond the spec
table: dtype rules and inputs Paddle treats in its own way."""

import numpy as np

import dygraph as D


def test_remainder_of_complex_numbers_rounds_the_quotient_to_the_nearest_gaussian_integer():
    x = np.array([5 + 3j, -5 + 3j, 5 - 3j, 2.5 + 0j], np.complex64)
    y = np.array([2 + 1j, 2 + 1j, 2 + 0j, -2 + 0j], np.complex64)
    out = D.remainder(D.to_tensor(x), D.to_tensor(y))
    assert out.dtype == D.complex64
    # 2.6+0.2j rounds to 3; -1.4+2.2j to -1+2j; 2.5-1.5j to 3-2j (halves away from zero)
    np.testing.assert_allclose(out.numpy(), [-1 + 0j, -1 + 0j, -1 + 1j, 0.5 + 0j], atol=1e-6)
