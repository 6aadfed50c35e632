"""The special functions (dygraph/ops/unary/special.py) without SciPy: the NumPy fallbacks
against SciPy's values, a clear ImportError from those that have none, and DyGraph importing
and running without SciPy."""

import math

import numpy as np
import pytest

import dygraph as D
from dygraph.ops.unary import special


def _t(values, dtype=None):
    return D.to_tensor(np.asarray(values), dtype=dtype)


@pytest.fixture
def without_scipy():
    saved = dict(special._MODULES)
    special._MODULES[np] = False
    yield
    special._MODULES.clear()
    special._MODULES.update(saved)


def test_special_fallbacks_without_scipy(without_scipy):
    x = np.array([0.3, 1.0, 2.5, 7.0, 20.0, -0.5, -2.5])
    digamma = D.digamma(_t(x, "float64")).numpy()
    import scipy.special as sp

    np.testing.assert_allclose(digamma, sp.psi(x), rtol=1e-12)
    lgamma = D.lgamma(_t(x, "float64")).numpy()
    np.testing.assert_allclose(lgamma, [math.lgamma(v) for v in x], rtol=1e-12)
    np.testing.assert_allclose(D.i0(_t(x, "float64")).numpy(), sp.i0(x), rtol=1e-12)
    assert np.isnan(D.digamma(_t([-2.0], "float64")).item())
    with pytest.raises(ImportError, match="scipy"):
        D.i1(_t([1.0]))
    with pytest.raises(ImportError, match="scipy"):
        D.gammainc(_t([1.0]), _t([1.0]))


def test_dygraph_imports_and_runs_the_fallbacks_without_scipy():
    import subprocess
    import sys

    code = ("import sys; sys.modules['scipy'] = None; sys.modules['scipy.special'] = None\n"
            "import dygraph as D\n"
            "print(round(float(D.lgamma(D.to_tensor(4.0))), 5))\n"
            "try:\n    D.i1e(D.to_tensor(1.0))\n"
            "except ImportError as e:\n    print('scipy' in str(e))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout.split()
    assert out == ["1.79176", "True"]


@pytest.mark.parametrize("name", ["gammainc_", "gammaincc_"])
@pytest.mark.parametrize("dtype", ["int64", "complex64"])
def test_in_place_incomplete_gamma_refuses_a_non_float_x_as_paddle(name, dtype):
    # Paddle has no kernel writing the float result into such an x: RuntimeError
    x = D.ones([2], dtype=dtype)
    with pytest.raises(RuntimeError, match=f"{name}: (x must be a float tensor|.*{dtype})"):
        getattr(x, name)(_t([1.0, 2.0]))
    with pytest.raises(RuntimeError):
        getattr(D, name)(x, _t([1.0, 2.0]))
