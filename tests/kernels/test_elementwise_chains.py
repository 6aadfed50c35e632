"""The generated CUDA C of element-wise chains (dygraph/kernels/cuda/elementwise_chains.py),
checked without a GPU: each kernel body is compiled as host C++ (g++, no contraction of
multiply-adds, as the kernels are compiled with --fmad=false), run over the elements,
and compared with the ops' own NumPy forwards; and compiled for the GPU by nvcc where it
is installed. Arithmetic matches to the bit (NaN, -0.0 and infinities included); the
math functions (exp, tanh, erf) are the C library's here and CUDA's on a GPU, so those
ops match to a few units in the last place."""

import ctypes
import shutil
import subprocess

import numpy as np
import pytest

from dygraph.kernels.cuda import elementwise_chains as chains
from dygraph.ops.activation import piecewise as pw
from dygraph.ops.activation import smooth
from dygraph.ops.math import arithmetic as ar
from dygraph.ops.math import extrema
from dygraph.ops.unary import core, explog
from tests.kernels.elementwise_c import host_library

# One instance per fusable class (attributes too): every builder is compiled and run.
UNARY = {
    "neg": ar.Neg(), "exp": core.Exp(), "log": core.Log(), "sqrt": core.Sqrt(),
    "tanh": core.Tanh(), "sin": core.Sin(), "cos": core.Cos(), "abs": core.Abs(),
    "square": core.Square(), "expm1": explog.Expm1(), "log1p": explog.Log1p(),
    "rsqrt": explog.Rsqrt(), "reciprocal": explog.Reciprocal(), "relu": pw.Relu(),
    "relu6": pw.Relu6(), "leaky_relu": pw.LeakyRelu(0.1), "hardtanh": pw.Hardtanh(-0.7, 1.3),
    "hardsigmoid": pw.Hardsigmoid(0.1666667, 0.5), "hardswish": pw.Hardswish(),
    "sigmoid": smooth.Sigmoid(), "silu": smooth.Silu(), "gelu": smooth.Gelu(False),
    "gelu_tanh": smooth.Gelu(True), "elu": smooth.ExpLinear(1.0, 1.0, 1.0),
    "celu": smooth.ExpLinear(0.7, 1.0, 1 / 0.7),
    "selu": smooth.ExpLinear(1.6732632423543772, 1.0507009873554805, 1.0),
    "softplus": smooth.Softplus(1, 20), "softplus_beta": smooth.Softplus(2.0, 10.0),
    "softsign": smooth.Softsign(), "mish": smooth.Mish(), "tanhshrink": smooth.Tanhshrink(),
}
BINARY = {"add": ar.Add(), "subtract": ar.Subtract(), "multiply": ar.Multiply(),
          "divide": ar.Divide(), "maximum": extrema.Maximum(), "minimum": extrema.Minimum()}
# Ops whose C is arithmetic and comparisons only: the same bits as NumPy.
EXACT = {"neg", "abs", "square", "relu", "relu6", "leaky_relu", "hardtanh", "hardsigmoid",
         "hardswish", "reciprocal", "sqrt", *BINARY}

# Chains of several ops: (name, members, input dtypes, written members).
CHAINS = [
    ("bias_relu", [(ar.Add(), [("in", 0), ("in", 1)]), (pw.Relu(), [("val", 0)])],
     ["float32", "float32"], [1]),
    ("kept_middle", [(ar.Multiply(), [("in", 0), ("in", 1)]), (core.Tanh(), [("val", 0)]),
                     (ar.Subtract(), [("val", 1), ("val", 0)])], ["float32", "float32"], [0, 2]),
    ("mixed_dtypes", [(ar.Multiply(), [("in", 0), ("in", 1)]), (ar.Add(), [("val", 0), ("in", 2)]),
                      (smooth.Sigmoid(), [("val", 1)])], ["float32", "float64", "bool"], [2]),
    ("integer_input", [(ar.Divide(), [("in", 0), ("in", 1)]), (core.Exp(), [("val", 0)])],
     ["int64", "int32"], [0, 1]),
    ("diamond", [(ar.Add(), [("in", 0), ("in", 0)]), (core.Tanh(), [("val", 0)]),
                 (smooth.Sigmoid(), [("val", 0)]), (ar.Divide(), [("val", 2), ("in", 1)]),
                 (ar.Subtract(), [("val", 1), ("val", 3)])], ["float64", "float64"], [1, 2, 4]),
]

_SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -3.0, 3.0, 6.0, 20.0, -20.0, 1e-30, -1e-30, 88.0,
            -88.0, 700.0, np.inf, -np.inf, np.nan]


def _values(dtype, n=512, seed=0):
    """Special values, then random ones over several scales, in `dtype`."""
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "b":
        return rng.random(n) < 0.5
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-50, 50, n).astype(dtype)
    scale = 10.0 ** rng.integers(-3, 3, n - len(_SPECIAL))
    x = np.concatenate([_SPECIAL, rng.standard_normal(n - len(_SPECIAL)) * scale])
    return x.astype(dtype)


def _cases():
    cases = []
    for dtype in ("float32", "float64"):
        for name, op in UNARY.items():
            cases.append((f"{name}_{dtype}", [(op, [("in", 0)])], [dtype], [0]))
        for name, op in BINARY.items():
            cases.append((f"{name}_{dtype}", [(op, [("in", 0), ("in", 1)])], [dtype] * 2, [0]))
    return cases + CHAINS


def _value_dtypes(members, in_dtypes):
    """The members' result dtypes, as FusedElementwise finds them: from the forwards."""
    ones = [np.ones(1, d) for d in in_dtypes]
    values = []
    for op, refs in members:
        values.append(op.forward(np, *[ones[k] if kind == "in" else values[k]
                                       for kind, k in refs]))
    return [v.dtype.name for v in values]


def _host_function(name, source):
    """The kernel body in a C function over contiguous arrays of n elements."""
    params, bind = [], []
    for role, spec in (("in", source.in_params), ("out", source.out_params)):
        for item in spec.split(", "):
            dtype, pname = item.split()
            ctype = chains.C_TYPES[dtype]
            if role == "in":
                params.append(f"const {ctype}* {pname}_at")
                bind.append(f"const {ctype} {pname} = {pname}_at[i];")
            else:
                params.append(f"{ctype}* {pname}_at")
                bind.append(f"{ctype}& {pname} = {pname}_at[i];")
    return (f'extern "C" void {name}({", ".join(params)}, long long n) {{\n'
            f"  for (long long i = 0; i < n; ++i) {{\n    {' '.join(bind)}\n"
            f"{source.body}\n  }}\n}}\n")


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """{case name: (the case, its C function)} from one host build of every case."""
    cases = {c[0]: (c, chains.chain_source(c[1], c[2], _value_dtypes(c[1], c[2]), c[3]))
             for c in _cases()}
    text = ("#include <cmath>\nusing namespace std;\n#define __device__\n" + chains.PREAMBLE +
            "".join(_host_function(name, source) for name, (_, source) in cases.items()))
    lib = host_library(tmp_path_factory, "chains", text)
    return {name: (case, getattr(lib, name)) for name, (case, _) in cases.items()}


def _run_host(function, members, in_dtypes, written, inputs):
    """The compiled chain over `inputs` (broadcast together): its written results."""
    value_dtypes = _value_dtypes(members, in_dtypes)
    arrays = [np.ascontiguousarray(a) for a in np.broadcast_arrays(*inputs)]
    outs = [np.empty(arrays[0].shape, value_dtypes[j]) for j in written]
    pointers = [a.ctypes.data_as(ctypes.c_void_p) for a in arrays + outs]
    function(*pointers, ctypes.c_longlong(arrays[0].size))
    return outs


def _compare(name, got, want):
    assert got.dtype == want.dtype and got.shape == want.shape, name
    if name.split("_float")[0] in EXACT:
        np.testing.assert_array_equal(got.view(f"u{got.itemsize}"),
                                      want.view(f"u{want.itemsize}"), err_msg=name)
        return
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=name)
    finite = np.isfinite(want)
    np.testing.assert_array_equal(got[~finite & ~np.isnan(want)],
                                  want[~finite & ~np.isnan(want)], err_msg=name)
    # A few units in the last place of the result, or of the inputs' scale near zero
    # (1 + tanh(x) for very negative x cancels).
    eps = np.finfo(got.dtype).eps
    np.testing.assert_allclose(got[finite], want[finite], rtol=8 * eps, atol=8 * eps,
                               err_msg=name)


@pytest.mark.parametrize("name", [c[0] for c in _cases()])
def test_generated_c_computes_what_the_ops_forwards_compute(compiled, name):
    (_, members, in_dtypes, written), function = compiled[name]
    inputs = [_values(d, seed=k) for k, d in enumerate(in_dtypes)]
    if name in ("bias_relu", "mixed_dtypes"):  # a broadcast row and a 0-d scalar
        inputs = [inputs[0].reshape(32, 16), inputs[1][:16]] + [
            inputs[2][:1].reshape(()) for _ in inputs[2:]]
    want = chains._statement(members, _value_dtypes(members, in_dtypes), written)(*inputs)
    got = _run_host(function, members, in_dtypes, written, inputs)
    for g, w in zip(got, want):
        _compare(name, g, w)


def test_every_fusable_class_is_checked_here():
    checked = {type(op) for op in [*UNARY.values(), *BINARY.values()]}
    assert checked == set(chains._table())


def test_constants_round_as_numpy_rounds_a_python_float():
    # 0.1 rounds to float32 before the multiply, as NumPy rounds a Python float.
    source = chains.chain_source([(pw.LeakyRelu(0.1), [("in", 0)])], ["float32"],
                                 ["float32"], [0])
    assert "((float)0.1)" in source.body
    assert not chains.fusable(pw.LeakyRelu(float("inf")))
    assert not chains.fusable(pw.Hardtanh(None, 1.0))


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_the_chains_compile_for_the_gpu(tmp_path):
    """Each body in a kernel shaped as CuPy shapes an ElementwiseKernel of these params."""
    kernels = []
    for name, members, in_dtypes, written in _cases():
        source = chains.chain_source(members, in_dtypes, _value_dtypes(members, in_dtypes),
                                     written)
        host = _host_function(name, source).replace('extern "C" void', "__global__ void")
        kernels.append(host.replace("for (long long i = 0; i < n; ++i)",
                                    "for (long long i = blockIdx.x * blockDim.x + threadIdx.x;"
                                    " i < n; i += blockDim.x * gridDim.x)"))
    source = "#include <cstddef>\n" + chains.PREAMBLE + "".join(kernels)
    path = tmp_path / "chains.cu"
    path.write_text(source)
    done = subprocess.run(["nvcc", "-ptx", "-arch=compute_90", "--fmad=false", str(path),
                           "-o", str(tmp_path / "chains.ptx")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
