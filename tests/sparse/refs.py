"""Paddle 3.3's recorded results for paddle.sparse (tests/data/sparse_refs.json, written by
tools/record_sparse_refs.py) and the helpers that replay a case on DyGraph."""

import json
import pathlib

import numpy as np

import dygraph

REFS = json.loads((pathlib.Path(__file__).resolve().parents[1] / "data" /
                   "sparse_refs.json").read_text())


def build(arg, grads):
    """A case's argument as DyGraph sees it: a sparse or dense tensor (float ones need a
    gradient when the case records gradients), or the plain value."""
    if not isinstance(arg, dict):
        return arg
    if "coo" in arg:
        a = arg["coo"]
        x = dygraph.sparse.sparse_coo_tensor(np.asarray(a["indices"], dtype="int64"),
                                             np.asarray(a["values"], dtype=a["dtype"]),
                                             a["shape"])
    elif "csr" in arg:
        a = arg["csr"]
        x = dygraph.sparse.sparse_csr_tensor(a["crows"], a["cols"],
                                             np.asarray(a["values"], dtype=a["dtype"]),
                                             a["shape"])
    else:
        x = dygraph.to_tensor(np.asarray(arg["dense"], dtype=arg["dtype"]))
    x.stop_gradient = not (grads and x.dtype in (dygraph.float32, dygraph.float64))
    return x


def as_record(t):
    """A tensor's format, shape, dtype, index arrays and values, as the file stores them."""
    if t.is_sparse_coo():
        return {"format": "coo", "shape": t.shape, "dtype": t.dtype.name,
                "indices": t.indices().numpy().tolist(), "values": t.values().numpy()}
    if t.is_sparse_csr():
        return {"format": "csr", "shape": t.shape, "dtype": t.dtype.name,
                "crows": t.crows().numpy().tolist(), "cols": t.cols().numpy().tolist(),
                "values": t.values().numpy()}
    return {"format": "dense", "shape": t.shape, "dtype": t.dtype.name, "values": t.numpy()}


def function(name):
    target = dygraph
    for part in name.split("."):
        target = getattr(target, part)
    return target


def call(case, grads):
    """(the built arguments, DyGraph's result) of a recorded case."""
    built = [build(a, grads) for a in case["args"]]
    fn = case["fn"]
    if fn.startswith("Tensor."):
        return built, getattr(built[0], fn[7:])(*built[1:], **case["kwargs"])
    return built, function(fn)(*built, **case["kwargs"])


def gradients(built, out, weight):
    """The gradient records of sum(out values * weight) for the float inputs."""
    values = out.values() if out.is_sparse() else out
    w = dygraph.to_tensor(np.asarray(weight, dtype=values.numpy().dtype))
    (values * w).sum().backward()
    return [as_record(b.grad) if b.grad is not None else None
            for b in built if isinstance(b, dygraph.Tensor) and not b.stop_gradient]


def dense_of(record):
    """The dense array of a record."""
    values = np.asarray(record["values"], dtype=np.float64)
    if record["format"] == "dense":
        return values
    out = np.zeros(record["shape"])
    if record["format"] == "coo":
        np.add.at(out, tuple(np.asarray(record["indices"], dtype=np.int64)), values)
        return out
    shape = record["shape"]
    crows = np.asarray(record["crows"]).reshape(-1, shape[-2] + 1)
    flat = out.reshape(-1, shape[-2], shape[-1])
    for b, offsets in enumerate(crows):
        rows = np.repeat(np.arange(shape[-2]), np.diff(offsets))
        start = sum(int(c[-1]) for c in crows[:b])
        cols = np.asarray(record["cols"][start:start + int(offsets[-1])], dtype=np.int64)
        flat[b, rows, cols] = values[start:start + int(offsets[-1])]
    return out


def assert_same(got, want, what):
    """A DyGraph record against a recorded one: layout, shape, dtype and index arrays
    exactly, values to float32 rounding (nan where Paddle has nan). Where Paddle gives a
    sparse input a dense gradient, DyGraph's sparse one must hold the same numbers."""
    if want["format"] == "dense" and got["format"] != "dense":
        np.testing.assert_allclose(dense_of(got), dense_of(want), rtol=2e-6, atol=2e-6,
                                   err_msg=what)
        return
    for key in ("format", "shape", "dtype", "indices", "crows", "cols"):
        if key in want:
            assert got[key] == want[key], f"{what}: {key} {got[key]} != {want[key]}"
    np.testing.assert_allclose(np.asarray(got["values"], dtype=np.float64),
                               np.asarray(want["values"], dtype=np.float64),
                               rtol=2e-6, atol=2e-6, err_msg=what)


def label(case):
    """A readable test id: the function and its arguments' layouts and options."""
    parts = []
    for a in case["args"]:
        if isinstance(a, dict):
            kind = next(iter(a))
            shape = a[kind]["shape"] if kind in ("coo", "csr") else list(np.shape(a[kind]))
            parts.append(f"{kind}{shape}")
        else:
            parts.append(str(a)[:20])
    options = ",".join(f"{k}={v}" for k, v in case["kwargs"].items())
    return f"{case['fn']}({' '.join(parts)}{';' + options if options else ''})"
