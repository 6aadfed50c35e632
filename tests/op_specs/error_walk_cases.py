"""The error walk's cases: every spec-table op with a misshaped input or a wrong dtype.

Shared by tests/op_specs/test_error_walk.py, which replays the recorded expectations
(tests/data/error_walk_expectations.json) on DyGraph, and tools/record_error_walk.py, which
records them by running the same cases through Paddle and DyGraph. Both build the inputs,
the references and the digests here, so they cannot drift apart. No framework is imported:
the one to use is passed in.

A case is one spec entry with one variant: 'shape' (the first float input gets an extra
leading dim and a longer last dim) or a wrong dtype (every float input converted to bool,
int64 or complex64). What must happen is an exception of a named type, or a result whose
dtypes are recorded and whose values equal a reference:

- 'numpy': the entry's NumPy reference on the case's inputs in float64 (complex128 for the
  complex case), cast to the result's dtype;
- 'cast': the op on the case's inputs converted to float32 (their real part for the complex
  case), cast to the result's dtype: the op computes as if the caller had cast first;
- 'pinned': a recorded digest of the result, for results that neither reference gives (the
  references of some entries assume the entry's own shapes; random ops draw per shape).

>>> import numpy as np
>>> misshaped([np.ones((3, 4)), np.array([0, 1])])[0].shape
(3, 3, 9)
>>> case_key("add", "broadcast", "int64")
'add[broadcast]|int64'
"""

import warnings

import numpy as np

# The dtypes the walk gives every float input: none of them is a float dtype.
WRONG_DTYPES = ("bool", "int64", "complex64")
SHAPE = "shape"
VARIANTS = (SHAPE,) + WRONG_DTYPES
# Values are compared as float32 results of float64 references are.
RTOL, ATOL = 1e-4, 1e-5


def misshaped(arrays):
    """The inputs with the first float one given an extra leading and a changed trailing dim.

    Returns None when no float input has a dim to change.

    >>> misshaped([np.zeros(2), np.zeros(2)])[0].shape
    (3, 7)
    """
    out = list(arrays)
    for i, a in enumerate(out):
        a = np.asarray(a)
        if a.dtype.kind == "f" and a.ndim >= 1:
            out[i] = np.zeros((3,) + a.shape[:-1] + (a.shape[-1] + 5,), a.dtype)
            return out
    return None


def retyped(arrays, dtype):
    """The inputs with every float one converted to `dtype` (the others left as they are).

    >>> [a.dtype.name for a in retyped([np.zeros(2), np.array([1])], "bool")]
    ['bool', 'int64']
    """
    return [np.asarray(a).astype(dtype) if np.asarray(a).dtype.kind == "f" else np.asarray(a)
            for a in arrays]


def tensors(framework, arrays):
    """Tensors of `framework` (dygraph or paddle) from arrays; float64 becomes float32.

    >>> import dygraph
    >>> tensors(dygraph, [np.zeros(2)])[0].dtype == dygraph.float32
    True
    """
    out = []
    for a in arrays:
        a = np.asarray(a)
        out.append(framework.to_tensor(a.astype(np.float32) if a.dtype == np.float64 else a))
    return out


def entry_label(spec):
    """The data file's name of a spec entry: the op's name and the entry's id.

    >>> from tests.op_specs import OpSpec
    >>> entry_label(OpSpec("add", None, None, [], id="broadcast"))
    'add[broadcast]'
    """
    return spec.name + (f"[{spec.id}]" if spec.id else "")


def case_key(name, spec_id, variant):
    """The name of one case: op name, spec id, 'shape' or the wrong dtype.

    >>> case_key("exp", "", "bool")
    'exp|bool'
    """
    return name + (f"[{spec_id}]" if spec_id else "") + "|" + variant


def case_inputs(spec, variant):
    """The input arrays of one case (None for a shape case without a float input with dims).

    >>> from tests.op_specs import all_specs
    >>> case_inputs(all_specs()[0], "int64")[0].dtype.name
    'int64'
    """
    arrays = spec.make_inputs()
    return misshaped(arrays) if variant == SHAPE else retyped(arrays, variant)


def results(value):
    """The arrays of an op's result: a Tensor, or a (nested) tuple or list of them.

    >>> [a.shape for a in results((np.zeros(2), [np.zeros(3)]))]
    [(2,), (3,)]
    """
    if isinstance(value, (tuple, list)):
        return [a for item in value for a in results(item)]
    return [np.asarray(value.numpy() if hasattr(value, "numpy") else value)]


def _converted(spec, variant, arrays, float_dtype, real):
    """The case's inputs with the entry's float inputs (those the walk changed) converted."""
    out = []
    for a, original in zip(arrays, spec.make_inputs()):
        if np.asarray(original).dtype.kind == "f":
            if variant == "complex64" and not real:
                a = a.astype(np.complex128)
            else:
                a = np.real(a).astype(float_dtype)
        out.append(a)
    return out


def reference(kind, spec, variant, framework=None):
    """The reference arrays of a case, before casting to the result's dtypes.

    'numpy' runs the entry's NumPy reference in float64; 'cast' runs the op (of
    `framework`) on the inputs converted to float32.

    >>> from tests.op_specs import all_specs
    >>> exp = next(s for s in all_specs() if s.name == "exp" and not s.id)
    >>> reference("numpy", exp, "bool")[0].dtype.name
    'float64'
    """
    arrays = case_inputs(spec, variant)
    if kind == "numpy":
        return results(spec.ref(*_converted(spec, variant, arrays, np.float64, False)))
    return results(spec.fn(*tensors(framework, _converted(spec, variant, arrays, np.float32,
                                                          True))))


def matches(got, expected):
    """Whether result arrays equal reference arrays cast to the results' dtypes.

    >>> matches([np.array([1, 0])], [np.array([1.2, 0.0])])
    True
    >>> matches([np.array([True])], [np.array([0.0])])
    False
    """
    if len(got) != len(expected):
        return False
    for g, e in zip(got, expected):
        e = np.asarray(e)
        if g.shape != e.shape:
            return False
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # complex to real, NaN to int: compared as cast
            e = e.astype(g.dtype)
        if g.dtype.kind in "biu":
            if not np.array_equal(g, e):
                return False
        elif not np.allclose(g, e, rtol=RTOL, atol=ATOL, equal_nan=True):
            return False
    return True


def digest(array):
    """A few numbers that pin an array's values: the sum and a position-weighted sum of its
    finite entries (real and imaginary parts), and how many entries are not finite.

    >>> digest(np.array([1.0, 2.0, np.inf]))
    [3.0, 0.0, 2.0806, 0.0, 1]
    """
    a = np.asarray(array).astype(np.complex128).reshape(-1)
    finite = np.isfinite(a)
    weights = np.cos(np.arange(a.size))
    total, weighted = a[finite].sum(), (a[finite] * weights[finite]).sum()
    return [float(f"{v:.6g}") for v in (total.real, total.imag, weighted.real,
                                         weighted.imag)] + [int((~finite).sum())]


def digests_match(got, pinned):
    """Whether result arrays have the recorded digests (to about float32 precision).

    >>> digests_match([np.array([1.0, 2.0])], [digest(np.array([1.0, 2.0]))])
    True
    """
    if len(got) != len(pinned):
        return False
    for g, p in zip(got, pinned):
        d = digest(g)
        scale = max(1.0, float(np.abs(g[np.isfinite(g)]).sum()) if g.size else 1.0)
        if d[4] != p[4] or not np.allclose(d[:4], p[:4], rtol=RTOL, atol=ATOL * scale):
            return False
    return True
