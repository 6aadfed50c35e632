"""Special functions: digamma, lgamma/gammaln, polygamma, multigammaln, the modified Bessel
functions i0/i0e/i1/i1e and the regularized incomplete gamma functions gammainc/gammaincc.

Values come from `scipy.special` (imported on first use, so `import dygraph` does not need
SciPy; `cupyx.scipy.special` for GPU arrays). Without SciPy, lgamma, digamma and i0 fall
back to short NumPy evaluations; the others raise an ImportError that names SciPy.
"""

import math
import operator

import numpy as np

from dygraph.autograd import grad_mode
from dygraph.autograd.backward_math import register
from dygraph.autograd.function import Op, apply
from dygraph.autograd.whole_call import captured_whole
from dygraph.backend import device_constant
from dygraph.framework.errors import AssertedValueError, UnsupportedDTypeError, op_error
from dygraph.ops.common import as_tensor, binary_operands, float_operand
from dygraph.ops.inplace import make_inplace, run_inplace
from dygraph.tensor.tensor import Tensor

__all__ = ["digamma", "lgamma", "gammaln", "polygamma", "multigammaln", "i0", "i0e", "i1",
           "i1e", "gammainc", "gammaincc"]
NONDIFF = set()

# {array module: scipy.special-like module or False when missing}
_MODULES = {}
# Bernoulli numbers B2k / (2k) for the digamma asymptotic series.
_DIGAMMA_SERIES = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)


def special_module(xp):
    """scipy.special for NumPy arrays, cupyx.scipy.special for CuPy's; None when missing.

    Example:
        >>> special_module(np) is None or hasattr(special_module(np), 'erf')
        True
    """
    if xp not in _MODULES:
        try:
            if xp is np:
                import scipy.special as module
            else:
                import cupyx.scipy.special as module
        except ImportError:
            module = False
        _MODULES[xp] = module
    return _MODULES[xp] or None


def _need(xp, op):
    special = special_module(xp)
    if special is None:
        raise op_error(op, "needs SciPy (scipy.special; cupyx.scipy.special on GPU), which "
                       "is not installed: pip install scipy", ImportError)
    return special


def _digamma_fallback(xp, x):
    """psi(x): the reflection formula below 0.5, the recurrence psi(x) = psi(x+1) - 1/x up
    to x >= 8, then the asymptotic series (about 1e-15 relative error there)."""
    x = xp.asarray(x, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        reflect = x < 0.5
        z = xp.where(reflect, 1.0 - x, x)
        shift = xp.zeros_like(z)
        while True:
            small = z < 8.0
            if not small.any():
                break
            shift = shift - xp.where(small, 1.0 / z, 0.0)
            z = xp.where(small, z + 1.0, z)
        inv2 = 1.0 / (z * z)
        series = xp.zeros_like(z)
        for coef in reversed(_DIGAMMA_SERIES):
            series = (series + coef) * inv2
        value = xp.log(z) - 0.5 / z - series + shift
        reflected = value - math.pi / xp.tan(math.pi * x)
        out = xp.where(reflect, reflected, value)
        return xp.where((x <= 0) & (x == xp.floor(x)), xp.nan, out)


# The scipy.special (cupyx.scipy.special) functions a _Special op may apply, by name: a
# closed table, so that a saved program can select one of these and nothing else.
_SPECIAL = {name: operator.attrgetter(name) for name in (
    "psi", "gammaln", "i0", "i0e", "i1", "i1e", "polygamma")}


def _eval(xp, name, x, *extra, op=None):
    """scipy.special.<name>(*extra, x) in x's dtype; the NumPy fallbacks without SciPy."""
    special = special_module(xp)
    if special is not None:
        # CuPy's polygamma needs its order as an array (SciPy takes either): made on the
        # device once per value, so a call copies nothing from the host
        extra = [device_constant(xp, ("special_order", e), lambda e=e: np.asarray(e))
                 for e in extra]
        out = _SPECIAL[name](special)(*extra, x)
    elif name == "gammaln":  # math.lgamma per element, on the host
        from dygraph.backend import as_numpy

        out = np.vectorize(math.lgamma, otypes=[np.float64])(as_numpy(x))
    elif name == "psi":
        out = _digamma_fallback(xp, x)
    elif name == "i0":
        out = xp.i0(x)
    else:
        _need(xp, op or name)
    return xp.asarray(out).astype(x.dtype, copy=False)


class _Special(Op):
    """One special function of x; `extra` are leading constant arguments (the order n)."""

    attrs = ("extra", "fn_name", "op_name")
    attr_kinds = {"fn_name": _SPECIAL}

    save_inputs = True

    def __init__(self, op_name, fn_name, *extra):
        self.op_name = op_name
        self.fn_name = fn_name
        self.extra = extra

    @property
    def name(self):
        return self.op_name

    def forward(self, xp, x):
        return _eval(xp, self.fn_name, x, *self.extra, op=self.op_name)

    def backward(self, m, g):
        x = self.x(0, m)
        name = self.fn_name
        if name == "gammaln":
            return (g * m.digamma(x),)
        if name == "psi":
            return (g * m.polygamma(x, 1),)
        if name == "polygamma":
            return (g * m.polygamma(x, self.extra[0] + 1),)
        if name == "i0":
            return (g * m.i1(x),)
        if name == "i0e":
            return (g * (m.i1e(x) - m.sign(x) * m.i0e(x)),)
        # i1' = i0 - i1/x and i1e' = i0e - i1e (sign(x) + 1/x); the limit at 0 is 1/2.
        zero = x == 0
        safe = m.where(zero, m.ones_like(x), x)
        if name == "i1":
            return (g * m.where(zero, m.ones_like(x) * 0.5, m.i0(x) - m.i1(x) / safe),)
        return (g * m.where(zero, m.ones_like(x) * 0.5,
                            m.i0e(x) - m.i1e(x) * (m.sign(x) + 1.0 / safe)),)


def _unary(op_name, fn_name, doc):
    def op(x, name=None):
        return apply(_Special(op_name, fn_name), float_operand(x, op_name))

    op.__name__ = op.__qualname__ = op_name
    op.__doc__ = doc
    return op


digamma = _unary("digamma", "psi", """\
The digamma function psi(x) = d/dx log(Gamma(x)).

    Example:
        >>> import dygraph
        >>> dygraph.digamma(dygraph.to_tensor([1.0])).numpy().round(5)
        array([-0.57722], dtype=float32)
    """)
lgamma = _unary("lgamma", "gammaln", """\
log|Gamma(x)|, elementwise.

    Example:
        >>> import dygraph
        >>> dygraph.lgamma(dygraph.to_tensor([4.0])).numpy().round(5)
        array([1.79176], dtype=float32)
    """)
gammaln = _unary("gammaln", "gammaln", """\
log|Gamma(x)| (the same as `lgamma`).

    Example:
        >>> import dygraph
        >>> dygraph.gammaln(dygraph.to_tensor([1.0, 2.0])).numpy()
        array([0., 0.], dtype=float32)
    """)
i0 = _unary("i0", "i0", """\
The modified Bessel function of the first kind, order 0.

    Example:
        >>> import dygraph
        >>> dygraph.i0(dygraph.to_tensor([0.0, 1.0])).numpy().round(5)
        array([1.     , 1.26607], dtype=float32)
    """)
i0e = _unary("i0e", "i0e", """\
The exponentially scaled Bessel function i0(x) * exp(-|x|) (needs SciPy).

    Example:
        >>> import dygraph
        >>> dygraph.i0e(dygraph.to_tensor([0.0, 1.0])).numpy().round(5)
        array([1.     , 0.46576], dtype=float32)
    """)
i1 = _unary("i1", "i1", """\
The modified Bessel function of the first kind, order 1 (needs SciPy).

    Example:
        >>> import dygraph
        >>> dygraph.i1(dygraph.to_tensor([0.0, 1.0])).numpy().round(5)
        array([0.     , 0.56516], dtype=float32)
    """)
i1e = _unary("i1e", "i1e", """\
The exponentially scaled Bessel function i1(x) * exp(-|x|) (needs SciPy).

    Example:
        >>> import dygraph
        >>> dygraph.i1e(dygraph.to_tensor([0.0, 1.0])).numpy().round(5)
        array([0.     , 0.20791], dtype=float32)
    """)


def polygamma(x, n, name=None):
    """The n-th derivative of digamma (n >= 0; n = 0 is digamma itself; needs SciPy
    for n >= 1).

    Example:
        >>> import dygraph
        >>> dygraph.polygamma(dygraph.to_tensor([1.0]), 1).numpy().round(5)
        array([1.64493], dtype=float32)
    """
    if isinstance(n, Tensor):
        n = int(n.item())
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
        raise op_error("polygamma", f"n must be a non-negative int, got {n!r}", TypeError)
    x = float_operand(x, "polygamma")
    if n == 0:
        return digamma(x)
    return apply(_Special("polygamma", "polygamma", int(n)), x)


@captured_whole
def multigammaln(x, p, name=None):
    """The log of the multivariate gamma function of dimension p:
    p(p-1)/4 log(pi) + sum_{j<p} lgamma(x - j/2), defined for x > (p - 1) / 2.

    Example:
        >>> import dygraph
        >>> dygraph.multigammaln(dygraph.to_tensor([2.5]), 2).numpy().round(4)
        array([0.857], dtype=float32)
    """
    x = as_tensor(x, "multigammaln")
    kind = x._data.dtype.kind
    if kind != "f":  # Paddle: no type promotion of integers, no kernel for bool or complex
        raise op_error("multigammaln", f"x must be a float tensor, got {x.dtype}",
                       TypeError if kind in "iu" else UnsupportedDTypeError)
    if isinstance(p, (float, np.floating)) and float(p).is_integer():
        p = int(p)  # Paddle takes 2.0 for 2
    if not isinstance(p, (int, np.integer)) or isinstance(p, bool):
        raise op_error("multigammaln", f"p must be an int, got {p!r}", ValueError)
    if p < 1:
        raise op_error("multigammaln", f"p must be >= 1, got {p}", AssertedValueError)
    # Outside the domain x > (p - 1) / 2 the terms are log|Gamma| values, as in Paddle
    total = lgamma(x)
    for j in range(1, p):
        total = total + lgamma(x - j / 2.0)
    return total + p * (p - 1) / 4.0 * math.log(math.pi)


class _IncompleteGamma(Op):
    """P(a, y) (upper=False) or Q(a, y) = 1 - P; the gradient goes to y only (as in
    Paddle): dP/dy = y^(a-1) exp(-y) / Gamma(a)."""

    attrs = ("upper",)

    save_inputs = True

    def __init__(self, upper):
        self.upper = upper

    @property
    def name(self):
        return "gammaincc" if self.upper else "gammainc"

    def forward(self, xp, a, y):
        special = _need(xp, self.name)
        out = (special.gammaincc if self.upper else special.gammainc)(a, y)
        # Paddle's kernel answers P = 0 (Q = 1) for a negative a or y, where SciPy gives
        # NaN; only the in-place forms reach them (the others refuse negatives). At a = 0
        # SciPy's limits are kept (P(0, y > 0) = 1), where Paddle's kernel gives 0.
        outside = (a < 0) | (y < 0)
        if xp is not np or outside.any():  # on a GPU without reading the mask on the host
            out = xp.where(outside, 1.0 if self.upper else 0.0, out)
        return out.astype(y.dtype, copy=False)

    def backward(self, m, g):
        a, y = self.x(0, m), self.x(1, m)
        density = m.exp((a - 1.0) * m.log(y) - y - m.lgamma(a))
        return (None, -g * density if self.upper else g * density)


def _incomplete(x, y, upper, checked=True):
    """P or Q of x, y; `checked` refuses negative values (ValueError), as Paddle's
    gammainc/gammaincc do and its in-place forms do not (they give P = 0, Q = 1 there)."""
    op = "gammaincc" if upper else "gammainc"
    x, y = binary_operands(float_operand(x, op), float_operand(y, op), op)
    if checked and (bool((x._data < 0).any()) or bool((y._data < 0).any())):
        raise op_error(op, "x and y must be non-negative")
    return apply(_IncompleteGamma(upper), x, y)


def gammainc(x, y, name=None):
    """The regularized lower incomplete gamma function P(x, y) (needs SciPy); x, y >= 0.

    Example:
        >>> import dygraph
        >>> dygraph.gammainc(dygraph.to_tensor([1.0]), dygraph.to_tensor([1.0])).numpy().round(5)
        array([0.63212], dtype=float32)
    """
    return _incomplete(x, y, False)


def gammaincc(x, y, name=None):
    """The regularized upper incomplete gamma function Q(x, y) = 1 - P(x, y) (needs SciPy).

    Example:
        >>> import dygraph
        >>> dygraph.gammaincc(dygraph.to_tensor([1.0]), dygraph.to_tensor([1.0])).numpy().round(5)
        array([0.36788], dtype=float32)
    """
    return _incomplete(x, y, True)


for _name, _fn_name in (("digamma", "psi"), ("lgamma", "gammaln"), ("i0", "i0"),
                        ("i0e", "i0e"), ("i1", "i1"), ("i1e", "i1e")):
    register(_name, array_fn=lambda xp, f=_fn_name: lambda x: _eval(xp, f, x),
             tensor_fn=globals()[_name])
register("polygamma", array_fn=lambda xp: lambda x, n: _eval(xp, "polygamma", x, n)
         if n else _eval(xp, "psi", x), tensor_fn=polygamma)
def _inplace_incomplete(op, upper):
    """The function behind x.gammainc_(y) / x.gammaincc_(y): x must be a float tensor
    (RuntimeError, as Paddle's in-place forms have no kernel writing their float result
    into an integer x), and negative values are not refused (P = 0, Q = 1 there)."""

    def fn(x, y, name=None):
        if as_tensor(x, op)._data.dtype.kind != "f":
            raise op_error(op, f"x must be a float tensor, got {x.dtype}",
                           UnsupportedDTypeError)
        return _incomplete(x, y, upper, checked=False)

    fn.__name__ = op[:-1]
    return fn


def multigammaln_(x, p, name=None):
    """In-place `multigammaln`; returns x. As in Paddle, whose multigammaln_ assigns its
    result into x, a leaf that requires grad is not refused: x takes the result's place
    in the graph (it is no longer a leaf) and backward still fills x.grad, with the
    gradient with respect to x's values before the call.

    Example:
        >>> import dygraph
        >>> x = dygraph.to_tensor([2.5], stop_gradient=False)
        >>> x.multigammaln_(2).sum().backward()
        >>> x.is_leaf, x.grad.numpy().round(4)
        (False, array([1.1259], dtype=float32))
    """
    state = grad_mode.state
    if (isinstance(x, Tensor) and x._node is None and not x._sg and state.grad_on
            and state.static_program is None):
        # The graph reads a copy of x (clone saves nothing), so x's new values cannot
        # spoil the backward; the copy's gradient goes on to x, the leaf it came from.
        out = multigammaln(x.clone(), p)
        x._version[0] += 1
        x._data, x._node, x._idx, x._sg = out._data, out._node, out._idx, out._sg
        return x
    return run_inplace("multigammaln_", multigammaln, x, p)


for _name in ("digamma", "lgamma", "gammaln", "polygamma", "i0"):
    setattr(Tensor, _name + "_", make_inplace(_name + "_", globals()[_name]))
Tensor.multigammaln_ = multigammaln_
for _name, _upper in (("gammainc_", False), ("gammaincc_", True)):
    setattr(Tensor, _name, make_inplace(_name, _inplace_incomplete(_name, _upper)))
