"""The spec table: one entry per differentiable op, driving the generic op tests.

Each `spec_*.py` module here defines `SPECS`, a list of OpSpec. An entry names the public op
(as exported: 'tanh', 'nn.functional.relu', 'linalg.inv'), a callable on Tensors, a NumPy
reference on arrays, the inputs (shapes for random floats in `domain`, or fixed arrays) and
which checks apply. tests/op_specs/test_op_specs.py runs forward vs reference, gradient vs float64
central differences and double backward over every entry, and fails when an exported
differentiable op has no entry. It runs every entry in float32 too (FLOAT32_TOL below).
The other suites that walk the table sit here as well: test_cross_mode.py (every entry in
every mode: static, to_static, jit.save/load, ONNX, auto_cast) and test_error_walk.py
(every entry with misshaped and wrongly typed inputs, error_walk_cases.py).
"""

import dataclasses
import importlib
import pkgutil
from collections.abc import Callable
from typing import Any

import numpy as np


@dataclasses.dataclass
class OpSpec:
    name: str                       # exported name the entry covers
    fn: Callable                    # (*Tensors) -> Tensor or tuple of Tensors
    ref: Callable                   # (*float64 arrays) -> array or tuple of arrays
    inputs: list                    # each: a shape tuple (random float64) or a fixed ndarray
    domain: tuple = (-1.0, 1.0)     # range of the random float inputs
    grad: bool = True               # check first derivatives
    double: bool = True             # check second derivatives
    grad_inputs: Any = None         # indices of inputs to differentiate (default: float ones)
    atol: float = 1e-6
    rtol: float = 1e-5
    id: str = ""                    # suffix that tells entries of one op apart
    float32: bool = True            # also run the float32 checks
    float32_reason: str = ""        # why not, when float32 is False
    family: str = ""                # key of FLOAT32_TOL (default: family_of the name)

    def make_inputs(self, seed=0, dtype=np.float64):
        """The entry's inputs; with dtype float32 every float input, random or fixed, is
        rounded to float32 (integer and bool inputs keep their dtypes)."""
        rng = np.random.default_rng(seed)
        arrays = []
        for spec in self.inputs:
            if isinstance(spec, np.ndarray):
                a = spec.copy()
            elif callable(spec):
                a = np.asarray(spec(rng))
            else:
                low, high = self.domain
                a = rng.uniform(low, high, spec)
            arrays.append(a.astype(dtype) if a.dtype.kind == "f" else a)
        return arrays

    def float32_tolerance(self, order=0):
        """The float32 tolerance as a fraction: of values and first derivatives (order 0
        or 1), or of second derivatives (order 2), which chain two derivative formulas'
        roundings and conditions."""
        factor = FLOAT32_SECOND_ORDER_FACTOR if order == 2 else 1
        return FLOAT32_TOL[self.family] * factor * FLOAT32_EPS


FLOAT32_EPS = float(np.finfo(np.float32).eps)  # 2**-23, about 1.2e-7

# float32 tolerances by op family, in multiples of FLOAT32_EPS. Each float32 result r (a
# forward output, or the gradient of an input for random float32 cotangents) is compared with
# its float64 counterpart w (the NumPy reference on the same float32-representable inputs,
# or the float64 analytic gradient) elementwise and against the array's scale:
#     |r - w| <= tol * FLOAT32_EPS * (|w| + max|w|)
# A correct float32 path errs by eps times a condition factor of the family: about 1 for one
# rounding a value (copies are exact), a few for a chain of libm calls, log2(n) for a pairwise
# sum or FFT of n terms, up to the inner dimension for a BLAS product (more where the terms
# cancel), cond(A) for a solve or decomposition. Each tolerance is the family's largest error
# measured over its entries (forward and gradient, the spec's small shapes, inputs drawn with
# seven seeds) times a margin of 2 to 4, rounded up to a power of two (one outlier left out:
# sinc's derivative, which cancels in float32 for small nonzero x, reaches 21 eps and 88 eps
# for the second derivative at inputs other than the spec's); a float16 rounding
# (2**13 float32 eps) or a dropped term is far outside every one of them. Second derivatives
# (double backward) get FLOAT32_SECOND_ORDER_FACTOR times the family's tolerance: measured
# the same way they reach 12 eps (cumprod) and 48 eps (a wide complete QR).
FLOAT32_TOL = {
    "manipulation": 4,      # copies, gathers, selections; scatter-add and fold sum a few terms
    "pooling": 4,           # window maxima and means
    "loss": 8,              # softmax cross-entropy, margins, CTC, divergences
    "elementwise": 16,      # activations, unary math, complex arithmetic, interpolation
    "special": 16,          # gamma-family, Bessel, erf/erfinv approximations
    "reduction": 16,        # sums, products, norms, statistics, cumulative ops, distances
    "conv": 16,             # im2col/GEMM, channels-last, depthwise and transposed convs
    "normalization": 16,    # batch, layer, group, instance, RMS and local-response norms
    "fft": 16,              # FFTs and the STFT built on them
    "matmul": 32,           # single-precision BLAS products and einsum; dot products cancel
    "linalg": 32,           # solves and decompositions of well-conditioned matrices
}
FLOAT32_SECOND_ORDER_FACTOR = 4

# The family of an entry: the first matching set of op names, else its module's family.
_FAMILY_OF_OPS = {
    "matmul": {
        "matmul", "mm", "bmm", "mv", "dot", "inner", "outer", "ger", "addmm", "baddbmm",
        "tensordot", "einsum", "kron", "cross", "linalg.multi_dot", "linalg.vecdot",
        "nn.functional.linear", "nn.functional.bilinear",
        "nn.functional.scaled_dot_product_attention"},
    "special": {
        "digamma", "lgamma", "gammaln", "gammainc", "gammaincc", "polygamma", "multigammaln",
        "i0", "i0e", "i1", "i1e", "erf", "erfinv"},
    "reduction": {
        "sum", "mean", "prod", "cumsum", "cumprod", "add_n", "trace", "cdist", "pdist", "dist",
        "diff", "reduce_as", "renorm", "nn.functional.cosine_similarity",
        "nn.functional.pairwise_distance", "linalg.norm", "linalg.vector_norm",
        "linalg.matrix_norm", "linalg.cov", "linalg.corrcoef"},
    "manipulation": {
        "kthvalue", "mode", "msort", "combinations", "t", "linalg.matrix_transpose",
        "nn.functional.embedding", "nn.functional.fold", "nn.functional.unfold",
        "nn.functional.pixel_shuffle", "nn.functional.pixel_unshuffle",
        "nn.functional.channel_shuffle", "nn.functional.temporal_shift",
        "nn.functional.zeropad2d", "nn.functional.max_unpool1d", "nn.functional.max_unpool2d",
        "nn.functional.max_unpool3d"},
    "normalization": {
        "nn.functional.rms_norm", "nn.functional.normalize"},
    "loss": {"nn.functional.kl_div", "nn.functional.square_error_cost"},
}
_FAMILY_OF_MODULE = {
    "spec_activation": "elementwise", "spec_unary": "elementwise", "spec_core": "elementwise",
    "spec_complex": "elementwise", "spec_complex_grad": "elementwise",
    "spec_elementwise_special": "elementwise", "spec_nn_common": "elementwise",
    "spec_nn_composite": "elementwise", "spec_order_and_products": "matmul",
    "spec_joins_views_scatters": "manipulation", "spec_manipulation": "manipulation",
    "spec_search": "manipulation", "spec_reduction": "reduction",
    "spec_scans_and_nan": "reduction", "spec_conv": "conv", "spec_pooling": "pooling",
    "spec_norm": "normalization", "spec_loss": "loss", "spec_fft": "fft", "spec_signal": "fft",
    "spec_linalg": "linalg", "spec_linalg_solvers": "linalg",
}


def family_of(name, module):
    """The FLOAT32_TOL family of an entry for op `name` in spec module `module`."""
    for family, names in _FAMILY_OF_OPS.items():
        if name in names:
            return family
    if name.endswith("_loss") or "cross_entropy" in name:
        return "loss"
    if "pool" in name:
        return "pooling"
    if module not in _FAMILY_OF_MODULE:
        raise ValueError(f"tests/op_specs/{module}.py: add its float32 family to "
                         "_FAMILY_OF_MODULE")
    return _FAMILY_OF_MODULE[module]


def all_specs():
    specs = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("spec_"):
            module = importlib.import_module(f"{__name__}.{info.name}")
            for spec in module.SPECS:
                spec.family = spec.family or family_of(spec.name, info.name)
            specs.extend(module.SPECS)
    return specs
