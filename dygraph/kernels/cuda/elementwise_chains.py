"""Chains of element-wise ops as one generated CUDA kernel (CuPy ElementwiseKernel).

A program run on a GPU launches one kernel per element-wise op: `relu(x + b)` reads and
writes the whole tensor twice and costs two launches. dygraph/static/fuse_elementwise.py
finds such chains in a to_static program; this module writes the kernel of one chain:
every op of the chain computed per element in registers, and only the values something
reads afterwards written out.

Each fusable op class has a C expression here that does the arithmetic of its NumPy
`forward`, step by step in the same order, in the op's output dtype (float32 in `float`,
float64 in `double`), with its Python-float attributes rounded to that dtype as NumPy
rounds a Python float against an array. Each op's result is rounded to its dtype, as the
unfused ops' arrays are, and the kernel is compiled with `--fmad=false` (no multiply-add
contraction), so the fused kernel rounds as the op-by-op run does; only the CUDA math
functions (exp, tanh, erf) differ from NumPy's in their last bits, as they do unfused.
tests/kernels/test_elementwise_chains.py compiles the generated C on the host and
compares it with the ops' forwards, and with nvcc for the GPU where it is installed.

Example:
    >>> from dygraph.ops.activation.piecewise import Relu
    >>> from dygraph.ops.math.arithmetic import Add
    >>> members = [(Add(), [("in", 0), ("in", 1)]), (Relu(), [("val", 0)])]
    >>> source = chain_source(members, ["float32", "float32"], ["float32"] * 2, [1])
    >>> print(source.body)
    float v0 = (in0 + in1);
    float v1 = np_maximum(v0, ((float)0));
    out0 = v1;
"""

import functools
import hashlib
from collections import namedtuple

import numpy as np

__all__ = ["PREAMBLE", "STATEMENTS", "ChainSource", "chain_kernel", "chain_source", "fusable"]

# C types of the dtypes a chain reads; chain values (the ops' results) are float32/float64.
C_TYPES = {"float32": "float", "float64": "double", "bool": "bool", "int8": "signed char",
           "int16": "short", "int32": "int", "int64": "long long", "uint8": "unsigned char"}
VALUE_DTYPES = frozenset(("float32", "float64"))

# NumPy's maximum, minimum and clip for floats: a NaN operand gives NaN, and of two equal
# values (0.0 and -0.0) maximum and minimum give the second, clip its input; CUDA's fmax
# and fmin do neither.
PREAMBLE = """
template <typename T> __device__ T np_maximum(T a, T b) {
  return (a > b || isnan(a)) ? a : b;
}
template <typename T> __device__ T np_minimum(T a, T b) {
  return (a < b || isnan(a)) ? a : b;
}
template <typename T> __device__ T np_clip(T x, T lo, T hi) {
  T y = x < lo ? lo : x;
  return y > hi ? hi : y;
}
"""

ChainSource = namedtuple("ChainSource", "in_params out_params body name")

# Kernel name -> what it computes as NumPy statements (the chain's ops' own forwards), run
# by the CuPy stand-in (tools/cupy_standin/) where the kernel would run.
STATEMENTS = {}
_COMPILED = {}  # kernel name -> the compiled cupy.ElementwiseKernel


def _number(value, c):
    """A Python number as a C constant of type `c`, rounded as NumPy rounds it against
    an array of that type; None for what a C literal cannot say (inf, NaN, complex)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        return None
    if isinstance(value, (complex, np.complexfloating)) or not np.isfinite(value):
        return None
    text = repr(float(value)) if isinstance(value, (float, np.floating)) else str(int(value))
    return f"(({c}){text})"


def _builders():
    """{op class: builder(op, operands, k) -> C expression}; `operands` are the C
    expressions of the op's inputs in the op's type, k(number) its constants."""
    from dygraph.ops.activation import piecewise as pw
    from dygraph.ops.activation import smooth
    from dygraph.ops.math import arithmetic as ar
    from dygraph.ops.math import extrema
    from dygraph.ops.unary import core, explog

    def sigmoid(x, k):
        return f"({k(1.0)} / ({k(1.0)} + exp(-{x})))"

    def softplus(x, k):  # max(x, 0) + log1p(exp(-|x|)), as smooth._softplus_array
        return f"(np_maximum({x}, {k(0)}) + log1p(exp(-fabs({x}))))"

    def gelu(op, a, k):
        x = a[0]
        if op.approximate:
            cubic = f"{k(smooth._GELU_CUBIC)} * {x} * {x} * {x}"
            inner = f"{k(smooth._SQRT_2_OVER_PI)} * ({x} + {cubic})"
            return f"({k(0.5)} * {x} * ({k(1.0)} + tanh({inner})))"
        return f"({k(0.5)} * {x} * ({k(1.0)} + erf({x} * {k(smooth._SQRT_HALF)})))"

    def exp_linear(op, a, k):
        x = a[0]
        out = (f"(np_maximum({x}, {k(0)}) + {k(op.alpha)} * "
               f"expm1(np_minimum({x}, {k(0)}) * {k(op.inv)}))")
        return f"({out} * {k(op.scale)})" if op.scale != 1.0 else out

    def softplus_op(op, a, k):
        x = a[0]
        z = f"({x} * {k(op.beta)})" if op.beta != 1 else x
        soft = softplus(z, k)
        if op.beta != 1:
            soft = f"({soft} / {k(op.beta)})"
        return f"(({z} > {k(op.threshold)}) ? {x} : {soft})"

    return {
        ar.Add: lambda op, a, k: f"({a[0]} + {a[1]})",
        ar.Subtract: lambda op, a, k: f"({a[0]} - {a[1]})",
        ar.Multiply: lambda op, a, k: f"({a[0]} * {a[1]})",
        ar.Divide: lambda op, a, k: f"({a[0]} / {a[1]})",
        ar.Neg: lambda op, a, k: f"(-{a[0]})",
        extrema.Maximum: lambda op, a, k: f"np_maximum({a[0]}, {a[1]})",
        extrema.Minimum: lambda op, a, k: f"np_minimum({a[0]}, {a[1]})",
        core.Exp: lambda op, a, k: f"exp({a[0]})",
        core.Log: lambda op, a, k: f"log({a[0]})",
        core.Sqrt: lambda op, a, k: f"sqrt({a[0]})",
        core.Tanh: lambda op, a, k: f"tanh({a[0]})",
        core.Sin: lambda op, a, k: f"sin({a[0]})",
        core.Cos: lambda op, a, k: f"cos({a[0]})",
        core.Abs: lambda op, a, k: f"fabs({a[0]})",
        core.Square: lambda op, a, k: f"({a[0]} * {a[0]})",
        explog.Expm1: lambda op, a, k: f"expm1({a[0]})",
        explog.Log1p: lambda op, a, k: f"log1p({a[0]})",
        explog.Rsqrt: lambda op, a, k: f"({k(1.0)} / sqrt({a[0]}))",
        explog.Reciprocal: lambda op, a, k: f"({k(1.0)} / {a[0]})",
        pw.Relu: lambda op, a, k: f"np_maximum({a[0]}, {k(0)})",
        pw.Relu6: lambda op, a, k: f"np_clip({a[0]}, {k(0)}, {k(6)})",
        pw.LeakyRelu: lambda op, a, k: (f"(np_maximum({a[0]}, {k(0)}) + {k(op.slope)} * "
                                        f"np_minimum({a[0]}, {k(0)}))"),
        pw.Hardtanh: lambda op, a, k: f"np_clip({a[0]}, {k(op.low)}, {k(op.high)})",
        pw.Hardsigmoid: lambda op, a, k: (f"np_clip({a[0]} * {k(op.slope)} + {k(op.offset)}, "
                                          f"{k(0)}, {k(1)})"),
        pw.Hardswish: lambda op, a, k: (f"({a[0]} * np_clip({a[0]} + {k(3)}, {k(0)}, {k(6)})"
                                        f" / {k(6)})"),
        smooth.Sigmoid: lambda op, a, k: sigmoid(a[0], k),
        smooth.Silu: lambda op, a, k: f"({a[0]} * {sigmoid(a[0], k)})",
        smooth.Gelu: gelu,
        smooth.ExpLinear: exp_linear,
        smooth.Softplus: softplus_op,
        smooth.Softsign: lambda op, a, k: f"({a[0]} / ({k(1.0)} + fabs({a[0]})))",
        smooth.Mish: lambda op, a, k: f"({a[0]} * tanh({softplus(a[0], k)}))",
        smooth.Tanhshrink: lambda op, a, k: f"({a[0]} - tanh({a[0]}))",
    }


@functools.cache
def _table():
    """The builders, made at the first use (the op modules import late)."""
    return _builders()


class _Unsayable(Exception):
    """An op attribute that a C constant cannot carry (inf, NaN, complex, None)."""


def _expression(op, operands, c):
    def k(value):
        text = _number(value, c)
        if text is None:
            raise _Unsayable(value)
        return text

    return _table()[type(op)](op, operands, k)


def fusable(op):
    """Whether `op` (an Op instance) has a C expression here, for its attributes.

    Example:
        >>> from dygraph.ops.activation.piecewise import LeakyRelu
        >>> fusable(LeakyRelu(0.1)), fusable(LeakyRelu(float("nan")))
        (True, False)
    """
    if type(op) not in _table():
        return False
    try:
        _expression(op, ["x", "y"], "double")
    except _Unsayable:
        return False
    return True


def chain_source(members, in_dtypes, value_dtypes, written):
    """The kernel of a chain: `members` [(op, refs)] in order, each ref ("in", k) (the
    chain's input k) or ("val", j) (member j's result); `in_dtypes` the inputs' dtype
    names, `value_dtypes` the members' result dtypes (float32/float64), `written` the
    members whose results the kernel writes (its outputs, in this order)."""
    lines = []

    def operand(ref, c):
        kind, k = ref
        name, dtype = (f"in{k}", in_dtypes[k]) if kind == "in" else (f"v{k}", value_dtypes[k])
        return name if C_TYPES[dtype] == c else f"(({c}){name})"

    for j, (op, refs) in enumerate(members):
        c = C_TYPES[value_dtypes[j]]
        lines.append(f"{c} v{j} = {_expression(op, [operand(r, c) for r in refs], c)};")
    lines += [f"out{n} = v{j};" for n, j in enumerate(written)]
    in_params = ", ".join(f"{d} in{k}" for k, d in enumerate(in_dtypes))
    out_params = ", ".join(f"{value_dtypes[j]} out{n}" for n, j in enumerate(written))
    body = "\n".join(lines)
    digest = hashlib.sha1(f"{in_params}|{out_params}|{body}".encode()).hexdigest()[:12]
    return ChainSource(in_params, out_params, body, f"dygraph_chain_{digest}")


def _statement(members, value_dtypes, written):
    """The chain as NumPy statements: the members' own forwards, each result in its dtype."""

    def run(*inputs):
        values = []
        with np.errstate(all="ignore"):
            for (op, refs), dtype in zip(members, value_dtypes):
                args = [inputs[k] if kind == "in" else values[k] for kind, k in refs]
                values.append(np.array(op.forward(np, *args), dtype, copy=True))
        return tuple(values[j] for j in written)

    return run


def chain_kernel(members, in_dtypes, value_dtypes, written):
    """kernel(*inputs) -> the tuple of the written members' results, for CuPy arrays of
    `in_dtypes` (broadcast together); compiled at the first use of its source.

    Example:
        >>> import cupy  # doctest: +SKIP
        >>> from dygraph.ops.unary.core import Exp, Tanh
        >>> members = [(Exp(), [("in", 0)]), (Tanh(), [("val", 0)])]
        >>> kernel = chain_kernel(members, ["float64"], ["float64"] * 2, [1])  # doctest: +SKIP
        >>> kernel(cupy.zeros(2))  # doctest: +SKIP
        (array([0.76159416, 0.76159416]),)
    """
    source = chain_source(members, in_dtypes, value_dtypes, written)
    compiled = _COMPILED.get(source.name)
    if compiled is None:
        import cupy

        STATEMENTS[source.name] = _statement(members, value_dtypes, written)
        compiled = _COMPILED[source.name] = cupy.ElementwiseKernel(
            source.in_params, source.out_params, source.body, source.name,
            preamble=PREAMBLE, options=("--fmad=false",), return_tuple=True)
    return compiled
