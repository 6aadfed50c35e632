"""Record Paddle 3.3's results for paddle.sparse into tests/data/sparse_refs.json.

tests/sparse/ replays these cases on DyGraph without Paddle. Each case is one call of a
function of paddle.sparse (or paddle.sparse.nn.functional, or a Tensor method): its
arguments (sparse tensors by their index arrays and values, dense tensors, plain values),
Paddle's output (format, shape, dtype, index arrays and values) and, for float outputs,
the gradients of sum(out values * weight) for each float input, or the type of the
exception Paddle raised.

Only what Paddle 3.3 computes on a CPU is recorded: its CPU build has no sparse matmul,
mv, addmm, masked_matmul or pca_lowrank (tests/sparse checks those against NumPy and
SciPy). Left out as well, because Paddle 3.3 returns wrong results or corrupts memory
there: arithmetic, reshapes, transposes and slices of COO tensors with dense dims; the
gradient of subtract; sums over a list of axes (only the first is summed) and CSR sums of
batches (wrong shapes); dilated submanifold convolutions, submanifold convolutions with
an even kernel size (other output points) and the 'SAME' padding of sparse conv3d
(treated as no padding); a cast of the indices alone (its values cannot be read back).
Run it with a Python that has paddlepaddle (DyGraph is not needed):

    /tmp/paddle-venv/bin/python tools/record_sparse_refs.py
"""

import json
import pathlib
import warnings

import numpy as np
import paddle

warnings.filterwarnings("ignore")
OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "sparse_refs.json"

# A 4 x 5 matrix with an empty row, and a batch of two 3 x 4 matrices.
MATRIX = np.array([[0, 1.5, 0, 0, -2], [0, 0, 0, 0, 0], [3, 0, 0.5, 0, 0],
                   [0, -1, 0, 4, 0.25]])
BATCH = np.array([[[0, 1, 0, 2], [0, 0, 0, 0], [-3, 0, 0.5, 0]],
                  [[1, 0, 0, 0], [0, 2, -1, 0], [0, 0, 0, 0.75]]])


def coo(indices, values, shape, dtype="float32"):
    return {"coo": {"indices": np.asarray(indices).tolist(),
                    "values": np.asarray(values).tolist(), "shape": list(shape),
                    "dtype": dtype}}


def csr(crows, cols, values, shape, dtype="float32"):
    return {"csr": {"crows": list(crows), "cols": list(cols),
                    "values": np.asarray(values).tolist(), "shape": list(shape),
                    "dtype": dtype}}


def dense(values, dtype="float32"):
    return {"dense": np.asarray(values).tolist(), "dtype": dtype}


def coo_of(array, sparse_dim=None, dtype="float32"):
    """The nonzero entries of `array` as a COO argument (row-major order)."""
    array = np.asarray(array)
    sparse_dim = array.ndim if sparse_dim is None else sparse_dim
    mask = array != 0
    if sparse_dim < array.ndim:
        mask = mask.any(axis=tuple(range(sparse_dim, array.ndim)))
    found = np.nonzero(mask)
    return coo(np.stack(found), array[found], array.shape, dtype)


def csr_of(array, dtype="float32"):
    array = np.asarray(array)
    mats = array.reshape((-1,) + array.shape[-2:])
    crows, cols, values = [], [], []
    for mat in mats:
        counts = (mat != 0).sum(axis=1)
        crows += [0] + np.cumsum(counts).tolist()
        r, c = np.nonzero(mat)
        cols += c.tolist()
        values += mat[r, c].tolist()
    return csr(crows, cols, values, array.shape, dtype)


def _build(arg, grads):
    if not isinstance(arg, dict):
        return arg
    if "coo" in arg:
        a = arg["coo"]
        x = paddle.sparse.sparse_coo_tensor(np.asarray(a["indices"], dtype="int64"),
                                            np.asarray(a["values"], dtype=a["dtype"]),
                                            a["shape"])
    elif "csr" in arg:
        a = arg["csr"]
        x = paddle.sparse.sparse_csr_tensor(a["crows"], a["cols"],
                                            np.asarray(a["values"], dtype=a["dtype"]),
                                            a["shape"])
    else:
        x = paddle.to_tensor(np.asarray(arg["dense"], dtype=arg["dtype"]))
    x.stop_gradient = not (grads and x.dtype in (paddle.float32, paddle.float64))
    return x


def _as_record(t):
    if t.is_sparse_coo():
        return {"format": "coo", "shape": list(t.shape), "dtype": str(t.dtype)[7:],
                "indices": t.indices().numpy().tolist(),
                "values": t.values().numpy().tolist()}
    if t.is_sparse_csr():
        return {"format": "csr", "shape": list(t.shape), "dtype": str(t.dtype)[7:],
                "crows": t.crows().numpy().tolist(), "cols": t.cols().numpy().tolist(),
                "values": t.values().numpy().tolist()}
    return {"format": "dense", "shape": list(t.shape), "dtype": t.numpy().dtype.name,
            "values": t.numpy().tolist()}


def _function(name):
    target = paddle
    for part in name.split("."):
        target = getattr(target, part)
    return target


def run(fn, args, kwargs=None, grads=True):
    """One case: Paddle's output (and gradients) or the exception it raised. `fn` names a
    function under paddle ('sparse.sin', 'sparse.nn.functional.relu') or a Tensor method
    ('Tensor.to_sparse_coo', called on the first argument)."""
    kwargs = kwargs or {}
    case = {"fn": fn, "args": args, "kwargs": kwargs}
    built = [_build(a, grads) for a in args]
    try:
        if fn.startswith("Tensor."):
            out = getattr(built[0], fn[7:])(*built[1:], **kwargs)
        else:
            out = _function(fn)(*built, **kwargs)
    except Exception as exc:  # the recorded outcome is the exception's type
        case["raises"] = type(exc).__name__
        return case
    if not isinstance(out, paddle.Tensor):
        case["result"] = out
        return case
    case["out"] = _as_record(out)
    wanted = [b for b in built if isinstance(b, paddle.Tensor) and not b.stop_gradient]
    if wanted and out.dtype in (paddle.float32, paddle.float64):
        values = out.values() if out.is_sparse() else out
        weight = np.cos(np.arange(values.size) * 0.7).reshape(values.shape)
        total = (values * paddle.to_tensor(weight.astype(values.numpy().dtype))).sum()
        try:
            total.backward()
        except Exception as exc:  # Paddle 3.3 lacks some CSR gradients: none recorded
            case["grads_raise"] = type(exc).__name__
            return case
        case["weight"] = weight.tolist()
        case["grads"] = [_as_record(b.grad) if b.grad is not None else None
                         for b in wanted]
    return case


UNARY = ["abs", "asin", "asinh", "atan", "atanh", "deg2rad", "expm1", "log1p", "neg",
         "rad2deg", "sin", "sinh", "sqrt", "square", "tan", "tanh"]


def creation_cases():
    cases = [run("sparse.sparse_coo_tensor", [[[0, 1, 3], [4, 0, 1]], [1.0, 2.0, 3.0]],
                 {"shape": [4, 5]}, grads=False),
             run("sparse.sparse_coo_tensor", [[[0, 1, 3], [4, 0, 1]], [1.0, 2.0, 3.0]],
                 grads=False),
             run("sparse.sparse_coo_tensor", [[[0, 2]], [[1.0, 2.0], [3.0, 4.0]]],
                 grads=False),
             run("sparse.sparse_coo_tensor", [[[0, 2]], [1, 2]], {"shape": [3]}, grads=False),
             run("sparse.sparse_coo_tensor", [[[0, 2]], [1, 2]],
                 {"shape": [3], "dtype": "float64"}, grads=False),
             run("sparse.sparse_coo_tensor", [[[0, 5]], [1.0, 2.0]], {"shape": [3]},
                 grads=False),
             run("sparse.sparse_coo_tensor", [[[0, 1]], [1.0, 2.0, 3.0]], {"shape": [3]},
                 grads=False),
             run("sparse.sparse_coo_tensor", [[0, 1], [1.0, 2.0]], {"shape": [3]},
                 grads=False),
             run("sparse.sparse_coo_tensor", [[[0, 1], [1, 0]], [1.0, 2.0]], {"shape": [3]},
                 grads=False),
             run("sparse.sparse_csr_tensor", [[0, 2, 2, 3], [0, 3, 1], [1.0, 2.0, 3.0]],
                 {"shape": [3, 4]}, grads=False),
             run("sparse.sparse_csr_tensor", [[0, 2, 2, 3], [0, 3, 1], [1.0, 2.0, 3.0]],
                 grads=False),
             run("sparse.sparse_csr_tensor", [[0, 1, 2, 0, 1, 1], [1, 2, 0], [1.0, 2.0, 3.0]],
                 {"shape": [2, 2, 3]}, grads=False),
             run("sparse.sparse_csr_tensor", [[0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0]],
                 {"shape": [3, 3]}, grads=False),
             run("sparse.sparse_csr_tensor", [[0, 1, 2], [0, 1], [1.0, 2.0, 3.0]],
                 {"shape": [2, 2]}, grads=False),
             run("sparse.sparse_csr_tensor", [[0, 1, 3], [0, 1], [1.0, 2.0]],
                 {"shape": [2, 2]}, grads=False),
             run("sparse.sparse_csr_tensor", [[0, 1], [1], [1.0]], {"shape": [3]},
                 grads=False)]
    return cases


def conversion_cases():
    cases = []
    for k in (1, 2):
        cases.append(run("Tensor.to_sparse_coo", [dense(MATRIX), k]))
    for k in (1, 2, 3):
        cases.append(run("Tensor.to_sparse_coo", [dense(BATCH), k]))
    cases.append(run("Tensor.to_sparse_csr", [dense(MATRIX)]))
    cases.append(run("Tensor.to_sparse_csr", [dense(BATCH)]))
    cases.append(run("Tensor.to_sparse_csr", [dense(BATCH[0, 0])]))
    cases.append(run("Tensor.to_sparse_coo", [dense(MATRIX), 3]))
    cases.append(run("Tensor.to_sparse_coo", [dense(MATRIX), 0]))
    cases.append(run("Tensor.to_dense", [coo_of(MATRIX)]))
    cases.append(run("Tensor.to_dense", [coo_of(BATCH, 2)]))
    cases.append(run("Tensor.to_dense", [csr_of(BATCH)]))
    cases.append(run("Tensor.to_sparse_csr", [coo_of(MATRIX)]))
    cases.append(run("Tensor.to_sparse_csr", [coo_of(BATCH)]))
    cases.append(run("Tensor.to_sparse_coo", [csr_of(MATRIX), 2]))
    cases.append(run("Tensor.to_sparse_coo", [csr_of(BATCH), 3]))
    cases.append(run("sparse.coalesce", [coo([[1, 0, 1, 2], [0, 1, 0, 2]],
                                             [1.0, 2.0, 3.0, 4.0], [3, 3])]))
    cases.append(run("sparse.coalesce", [coo([[2, 0, 2]], [[1.0, 2.0], [3.0, 4.0],
                                                            [5.0, 6.0]], [3, 2])]))
    return cases


def unary_cases():
    cases = []
    small = np.array([[0, 0.5, 0, -0.25], [0.75, 0, 0, 0], [0, -0.5, 0.125, 0]])
    positive = np.abs(small) + (small != 0) * 0.5
    for name in UNARY:
        source = positive if name in ("sqrt", "log1p") else small
        cases.append(run(f"sparse.{name}", [coo_of(source)]))
        cases.append(run(f"sparse.{name}", [csr_of(source)]))
    cases.append(run("sparse.sin", [coo_of(BATCH, 2)]))
    cases.append(run("sparse.pow", [coo_of(small), 3]))
    cases.append(run("sparse.pow", [csr_of(positive), 0.5]))
    cases.append(run("sparse.cast", [coo_of(small)], {"value_dtype": "float64"}))
    cases.append(run("sparse.cast", [csr_of(small)],
                     {"index_dtype": "int32", "value_dtype": "float64"}))
    cases.append(run("sparse.isnan", [coo([[0, 1, 2]], [1.0, np.nan, 2.0], [4])]))
    cases.append(run("sparse.isnan", [csr([0, 1, 2], [0, 1], [np.nan, 1.0], [2, 2])]))
    for fn, kwargs in (("relu", {}), ("relu6", {}), ("leaky_relu", {"negative_slope": 0.2})):
        cases.append(run(f"sparse.nn.functional.{fn}", [coo_of(MATRIX * 4)], kwargs))
        cases.append(run(f"sparse.nn.functional.{fn}", [csr_of(MATRIX * 4)], kwargs))
    return cases


def binary_cases():
    cases = []
    other = np.array([[0, 2, 0, 1, 0], [0, 0, 0, 0, 0], [-1, 0, 0, 0, 0], [0, 0, 3, -4, 0]])
    for name in ("add", "subtract", "multiply", "divide"):
        grads = name != "subtract"  # Paddle 3.3's subtract gradient corrupts memory
        cases.append(run(f"sparse.{name}", [coo_of(MATRIX), coo_of(other)], grads=grads))
        cases.append(run(f"sparse.{name}", [csr_of(MATRIX), csr_of(other)], grads=grads))
        cases.append(run(f"sparse.{name}", [coo_of(BATCH), coo_of(BATCH[::-1])],
                         grads=grads))
    for name in ("multiply", "divide"):
        cases.append(run(f"sparse.{name}", [coo_of(MATRIX), 2.0]))
        cases.append(run(f"sparse.{name}", [csr_of(MATRIX), 4]))
    cases.append(run("sparse.add", [coo_of(MATRIX), coo_of(MATRIX[:3])]))
    cases.append(run("sparse.add", [coo_of(MATRIX), coo_of(MATRIX, dtype="float64")]))
    cases.append(run("sparse.mask_as", [dense(np.arange(20.0).reshape(4, 5)), coo_of(MATRIX)]))
    cases.append(run("sparse.mask_as", [dense(np.arange(24.0).reshape(2, 3, 4)),
                                        csr_of(BATCH)]))
    cases.append(run("sparse.is_same_shape", [coo_of(MATRIX), csr_of(MATRIX)]))
    cases.append(run("sparse.is_same_shape", [coo_of(MATRIX), dense(BATCH)]))
    return cases


def shape_cases():
    cases = []
    for perm in ([1, 0], [0, 1]):
        cases.append(run("sparse.transpose", [coo_of(MATRIX), perm]))
        cases.append(run("sparse.transpose", [csr_of(MATRIX), perm]))
    for perm in ([1, 0, 2], [2, 1, 0], [0, 2, 1]):
        cases.append(run("sparse.transpose", [coo_of(BATCH), perm]))
        cases.append(run("sparse.transpose", [csr_of(BATCH), perm]))
    for shape in ([20], [2, -1], [0, 5], [5, 2, 2]):
        cases.append(run("sparse.reshape", [coo_of(MATRIX), shape]))
    cases.append(run("sparse.reshape", [csr_of(MATRIX), [2, 10]]))
    cases.append(run("sparse.reshape", [csr_of(MATRIX), [2, 2, 5]]))
    for axes, starts, ends in (([0], [1], [3]), ([1], [-3], [10]), ([0, 1], [1, 0], [4, 2]),
                               ([0], [2], [1])):
        cases.append(run("sparse.slice", [coo_of(MATRIX), axes, starts, ends]))
        cases.append(run("sparse.slice", [csr_of(MATRIX), axes, starts, ends]))
    cases.append(run("sparse.slice", [coo_of(BATCH), [0, 2], [1, 1], [2, 4]]))
    cases.append(run("sparse.slice", [csr_of(BATCH), [1], [1], [3]]))
    return cases


def sum_cases():
    cases = []
    for kwargs in ({}, {"keepdim": True}, {"axis": 0}, {"axis": 1}, {"axis": -1},
                   {"axis": 0, "keepdim": True}, {"axis": 1, "dtype": "float64"}):
        cases.append(run("sparse.sum", [coo_of(MATRIX)], kwargs))
    for kwargs in ({}, {"axis": -1}, {"axis": -1, "keepdim": True}):
        cases.append(run("sparse.sum", [csr_of(MATRIX)], kwargs))
    for kwargs in ({"axis": 0}, {"axis": 2}, {"axis": 1, "keepdim": True}):
        cases.append(run("sparse.sum", [coo_of(BATCH)], kwargs))
    for kwargs in ({"axis": 0}, {"axis": 2}, {"axis": 0, "keepdim": True}):
        cases.append(run("sparse.sum", [coo_of(BATCH, 2)], kwargs))
    cases.append(run("sparse.sum", [coo_of(MATRIX, dtype="int32")], {"axis": 1}))
    return cases


def softmax_cases():
    rows = np.array([[0, 1, 2, 0], [0, 0, 0, 0], [3, 0, -1, 0.5]])
    return [run("sparse.nn.functional.softmax", [coo_of(rows)]),
            run("sparse.nn.functional.softmax", [csr_of(rows)]),
            run("sparse.nn.functional.softmax", [csr_of(BATCH)]),
            run("sparse.nn.functional.softmax", [coo_of(BATCH)]),
            run("sparse.nn.functional.softmax", [coo_of(BATCH)], {"axis": 1})]


POINTS = [[0, 0, 0, 0, 1, 1], [0, 1, 1, 2, 0, 2], [1, 0, 2, 2, 1, 1], [2, 1, 0, 2, 0, 3]]


def conv_cases():
    rng = np.random.RandomState(0)
    feats = np.round(rng.randn(6, 2), 3)
    x = coo(POINTS, feats, [2, 3, 3, 4, 2])
    w3 = dense(np.round(rng.randn(3, 3, 3, 2, 3), 3))
    w2 = dense(np.round(rng.randn(2, 2, 2, 2, 3), 3))
    bias = dense(np.round(rng.randn(3), 3))
    F = "sparse.nn.functional."
    cases = [run(F + "subm_conv3d", [x, w3]),
             run(F + "subm_conv3d", [x, w3, bias], {"padding": 1}),
             run(F + "conv3d", [x, w3, bias], {"padding": 1}),
             run(F + "conv3d", [x, w3]),
             run(F + "conv3d", [x, w2], {"stride": 2}),
             run(F + "conv3d", [x, w3], {"stride": [1, 2, 2], "padding": [1, 1, 0, 0, 1, 1]}),
             run(F + "conv3d", [x, w2], {"dilation": 2, "padding": 1})]
    points2 = [[0, 0, 0, 1], [0, 1, 2, 2], [1, 0, 2, 0]]
    x2 = coo(points2, np.round(rng.randn(4, 3), 3), [2, 3, 3, 3])
    w = dense(np.round(rng.randn(3, 3, 3, 2), 3))
    cases += [run(F + "conv2d", [x2, w], {"padding": 1}),
              run(F + "conv2d", [x2, w], {"stride": 2}),
              run(F + "subm_conv2d", [x2, w]),
              run(F + "subm_conv2d", [x2, w, dense([0.5, -1.0])])]
    for kwargs in ({"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                   {"kernel_size": [1, 2, 2], "stride": 1}):
        cases.append(run(F + "max_pool3d", [coo(POINTS, feats, [2, 3, 3, 4, 2])], kwargs))
    return cases


def batch_norm_cases():
    """Sparse BatchNorm in training mode: its output values and the running statistics."""
    rng = np.random.RandomState(1)
    feats = np.round(rng.randn(6, 2), 3)
    x = paddle.sparse.sparse_coo_tensor(POINTS, feats.astype("float32"), [2, 3, 3, 4, 2])
    x.stop_gradient = False
    bn = paddle.sparse.nn.BatchNorm(2)
    out = bn(x)
    weight = np.cos(np.arange(12) * 0.7).reshape(6, 2)
    (out.values() * paddle.to_tensor(weight.astype("float32"))).sum().backward()
    # Not recorded: eval mode. Paddle 3.3's sparse BatchNorm keeps the use_global_stats
    # its first call chose, so after a training call eval() still normalises with (and
    # updates) batch statistics.
    return [{"fn": "BatchNorm", "features": feats.tolist(), "weight": weight.tolist(),
             "out": out.values().numpy().tolist(), "mean": bn._mean.numpy().tolist(),
             "variance": bn._variance.numpy().tolist(),
             "grad": x.grad.values().numpy().tolist(),
             "grad_weight": bn.weight.grad.numpy().tolist()}]


def method_cases():
    x = coo_of(MATRIX)
    cases = []
    for method in ("nnz", "sparse_dim", "dense_dim", "is_coalesced", "is_sparse",
                   "is_sparse_coo", "is_sparse_csr"):
        for arg in (x, coo_of(BATCH, 2), csr_of(MATRIX), dense(MATRIX)):
            case = {"fn": f"Tensor.{method}", "args": [arg], "kwargs": {}}
            try:
                case["result"] = getattr(_build(arg, False), method)()
            except Exception as exc:  # the recorded outcome is the exception's type
                case["raises"] = type(exc).__name__
            cases.append(case)
    return cases


def main():
    refs = {"paddle": paddle.__version__, "cases": (
        creation_cases() + conversion_cases() + unary_cases() + binary_cases()
        + shape_cases() + sum_cases() + softmax_cases() + conv_cases() + method_cases()),
        "batch_norm": batch_norm_cases()}
    OUT.write_text(json.dumps(refs, separators=(",", ":")) + "\n")
    print(f"{len(refs['cases'])} cases -> {OUT}")


if __name__ == "__main__":
    main()
