"""Record Paddle 3.3's results for paddle.geometric into tests/data/geometric_refs.json.

tests/geometric/ replays these cases on DyGraph without Paddle. Each case is one call: its
arguments (tensors with their values and dtypes, or plain values), and Paddle's outputs
(values, dtypes, shapes), the gradients of sum(out * weight) for float outputs, or the type
of the exception Paddle raised. Sampling draws from Paddle's own engine, so its random cases
record what does not depend on the draw (dtypes, shapes, counts) and the cases where every
neighbour is kept. Cases on which Paddle 3.3's CPU kernels crash the process (sample_size -1,
segment ops on empty data, out-of-range nodes) are left out; the tests say what DyGraph
does there. Run it with a Python that has paddlepaddle (DyGraph is not needed):

    /tmp/paddle-venv/bin/python tools/record_geometric_refs.py
"""

import json
import pathlib
import warnings

import numpy as np
import paddle

warnings.filterwarnings("ignore")
OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "geometric_refs.json"
G = paddle.geometric


def t(values, dtype):
    """A tensor argument: its values and dtype."""
    return {"tensor": np.asarray(values).tolist(), "dtype": dtype}


def feature(shape, seed, dtype="float32"):
    """Deterministic feature values of `shape` (integers for integer dtypes)."""
    n = int(np.prod(shape))
    values = np.sin(np.arange(n) * 0.9 + seed) * 3
    if not dtype.startswith("float"):
        values = np.round(values * 3)
    return t(values.reshape(shape), dtype)


def _build(arg):
    if isinstance(arg, dict) and "tensor" in arg:
        return paddle.to_tensor(np.asarray(arg["tensor"], dtype=arg["dtype"]),
                                stop_gradient=not arg["dtype"].startswith("float"))
    if isinstance(arg, list) and arg and isinstance(arg[0], dict):
        return [_build(a) for a in arg]
    return arg


def run(fn, args, kwargs=None, grads=True):
    """One case: Paddle's outputs (and gradients) or the exception it raised."""
    kwargs = kwargs or {}
    case = {"fn": fn, "args": args, "kwargs": kwargs}
    built = [_build(a) for a in args]
    built_kwargs = {k: _build(v) for k, v in kwargs.items()}
    try:
        out = getattr(G, fn)(*built, **built_kwargs)
    except Exception as exc:  # the recorded outcome is the exception's type
        case["raises"] = type(exc).__name__
        return case
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    case["out"] = [{"values": o.numpy().tolist(), "dtype": o.numpy().dtype.name,
                    "shape": list(o.shape)} for o in outs]
    wanted = [b for b in built if isinstance(b, paddle.Tensor) and not b.stop_gradient]
    if grads and wanted and outs[0].dtype in (paddle.float32, paddle.float64):
        weight = np.cos(np.arange(outs[0].size) * 0.7).reshape(outs[0].shape)
        total = (outs[0] * paddle.to_tensor(weight.astype(outs[0].numpy().dtype))).sum()
        got = paddle.grad(total, wanted, allow_unused=True)
        case["weight"] = weight.tolist()
        case["grads"] = [None if g is None else g.numpy().tolist() for g in got]
    return case


SRC = [0, 1, 2, 0, 4, 3, 2, 1]
DST = [1, 2, 1, 0, 1, 1, 4, 4]


def message_passing_cases():
    cases = []
    src, dst = t(SRC, "int64"), t(DST, "int64")
    x = feature([6, 3], 1)
    for reduce in ("sum", "mean", "max", "min"):
        cases.append(run("send_u_recv", [x, src, dst], {"reduce_op": reduce}))
        cases.append(run("send_u_recv", [feature([6, 3], 2, "int32"), src, dst],
                         {"reduce_op": reduce}))
        # Repeated edges and tied values: the gradient of a max goes to every tie.
        cases.append(run("send_u_recv", [t([[1.0, 5.0], [1.0, 2.0], [3.0, 5.0]], "float32"),
                                         t([0, 1, 2, 0, 0], "int64"),
                                         t([1, 1, 1, 0, 1], "int64")], {"reduce_op": reduce}))
    cases.append(run("send_u_recv", [feature([6, 3], 3, "int64"),
                                      t([0, 1, 3], "int32"), t([1, 1, 1], "int32")],
                     {"reduce_op": "mean"}))
    for out_size in (None, 0, -1, 8, 4, 2):
        cases.append(run("send_u_recv", [x, src, dst], {"out_size": out_size}))
    cases.append(run("send_u_recv", [x, src, dst], {"out_size": t(7, "int64")}))
    cases.append(run("send_u_recv", [feature([6], 4), src, dst], {"reduce_op": "max"}))
    cases.append(run("send_u_recv", [feature([6, 2, 2], 5, "float64"), src, dst],
                     {"reduce_op": "mean"}))
    cases.append(run("send_u_recv", [x, t([[s] for s in SRC], "int64"),
                                      t([[d] for d in DST], "int64")]))
    cases.append(run("send_u_recv", [x, t([], "int64"), t([], "int64")]))
    for message in ("add", "sub", "mul", "div"):
        for reduce in ("sum", "mean", "max", "min"):
            cases.append(run("send_ue_recv", [x, feature([8, 3], 6), src, dst],
                             {"message_op": message, "reduce_op": reduce}))
        cases.append(run("send_uv", [x, feature([6, 3], 7), src, dst],
                         {"message_op": message}))
    for message in ("add", "sub", "mul"):
        cases.append(run("send_ue_recv", [feature([6, 3], 2, "int64"),
                                          feature([8, 3], 3, "int64"), src, dst],
                         {"message_op": message, "reduce_op": "sum"}))
        cases.append(run("send_uv", [feature([6, 3], 2, "int32"), feature([6, 3], 4, "int32"),
                                     src, dst], {"message_op": message}))
    for x_shape, y_shape in (([6, 3], [8]), ([6], [8]), ([6], [8, 2]), ([6, 3], [8, 2, 3]),
                             ([6, 2, 1], [8, 4])):
        cases.append(run("send_ue_recv", [feature(x_shape, 8), feature(y_shape, 9), src, dst],
                         {"message_op": "mul", "reduce_op": "sum"}))
        uv_y = [6] + y_shape[1:]
        cases.append(run("send_uv", [feature(x_shape, 8), feature(uv_y, 9), src, dst],
                         {"message_op": "sub"}))
    cases.append(run("send_ue_recv", [x, feature([8, 3], 6), src, dst], {"out_size": 9}))
    cases.append(run("send_ue_recv", [x, t(np.zeros([8, 3]), "float32"), src, dst],
                     {"message_op": "div"}))
    cases.append(run("send_uv", [x, t(np.zeros([6, 3]), "float32"), src, dst],
                     {"message_op": "div"}))
    cases.append(run("send_uv", [feature([6, 3], 1, "float64"), feature([4, 3], 2, "float64"),
                                 src, t([d % 4 for d in DST], "int64")], {"message_op": "mul"}))
    return cases


def message_passing_errors():
    x, y = feature([6, 3], 1), feature([8, 3], 2)
    src, dst = t(SRC, "int64"), t(DST, "int64")
    bad = [
        ("send_u_recv", [x, src, dst], {"reduce_op": "prod"}),
        ("send_u_recv", [x, src, t(DST[:5], "int64")], {}),
        ("send_u_recv", [x, t(SRC, "int32"), dst], {}),
        ("send_u_recv", [x, t([SRC, DST], "int64"), t([DST, SRC], "int64")], {}),
        ("send_u_recv", [x, src, t(DST[:-1] + [6], "int64")], {}),
        ("send_u_recv", [x, t(SRC[:-1] + [6], "int64"), dst], {}),
        ("send_u_recv", [x, t(SRC[:-1] + [-1], "int64"), dst], {}),
        ("send_u_recv", [x, src, dst], {"out_size": 3}),
        ("send_ue_recv", [x, y, src, dst], {"message_op": "pow"}),
        ("send_ue_recv", [x, y, src, dst], {"reduce_op": "prod"}),
        ("send_ue_recv", [x, feature([7, 3], 2), src, dst], {}),
        ("send_ue_recv", [x, feature([8, 2], 2), src, dst], {}),
        ("send_ue_recv", [x, feature([8, 3], 2, "float64"), src, dst], {}),
        ("send_ue_recv", [feature([6, 3], 1, "int64"), feature([8, 3], 2, "int64"), src, dst],
         {"message_op": "div"}),
        ("send_uv", [x, x, src, dst], {"message_op": "max"}),
        ("send_uv", [x, feature([6, 2], 2), src, dst], {}),
        ("send_uv", [x, x, src, t(DST[:5], "int64")], {}),
        ("send_uv", [x, x, t(SRC, "int32"), dst], {}),
        ("send_uv", [x, feature([6, 3], 2, "float64"), src, dst], {}),
    ]
    return [run(fn, args, kwargs) for fn, args, kwargs in bad]


def segment_cases():
    cases = []
    data = feature([8, 3], 3)
    for name in ("segment_sum", "segment_mean", "segment_max", "segment_min"):
        for ids in ([0, 0, 1, 1, 1, 3, 3, 3], [2, 2, 2, 2, 2, 2, 2, 2], [0, 1, 2, 3, 4, 5, 6, 7]):
            cases.append(run(name, [data, t(ids, "int64")]))
        cases.append(run(name, [t([[1.0, 5.0], [1.0, 2.0], [3.0, 5.0], [4.0, 4.0]], "float32"),
                                t([0, 0, 0, 2], "int32")]))
        for dtype in ("int32", "int64", "float64", "float16"):
            cases.append(run(name, [feature([8, 3], 4, dtype), t([0, 0, 1, 1, 1, 3, 3, 3],
                                                                 "int64")]))
        cases.append(run(name, [feature([8], 5), t([[0], [0], [1], [1], [1], [3], [3], [3]],
                                                   "int64")]))
        cases.append(run(name, [feature([4, 2, 2], 6), t([0, 1, 1, 1], "int32")]))
        for ids in ([1, 0, 1, 0], [0, 0, 1], [0, 0, 1, -1], [-1, 0, 0, 1], [[0, 0], [1, 1]]):
            cases.append(run(name, [feature([4, 2], 7), t(ids, "int64")]))
        cases.append(run(name, [feature([4, 2], 7), t([0, 0, 1, 1], "float32")]))
    cases.append(run("segment_mean", [t([[-3], [-2], [1], [-4], [-2], [1]], "int32"),
                                      t([0, 0, 0, 1, 1, 1], "int64")]))
    return cases


# The CSC graph of Paddle's sample_neighbors example: 10 nodes, 13 edges.
ROW = [3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7]
COLPTR = [0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13]


def sampling_cases():
    cases = []
    row, colptr = t(ROW, "int64"), t(COLPTR, "int64")
    nodes = t([0, 8, 1, 2], "int64")
    eids = t(np.arange(13) + 100, "int64")
    weight = t([1.0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13], "float32")
    for k in (0, 1, 2, 5):
        cases.append(run("sample_neighbors", [row, colptr, nodes], {"sample_size": k}))
        cases.append(run("sample_neighbors", [row, colptr, nodes],
                         {"sample_size": k, "eids": eids, "return_eids": True}))
        if k:  # Paddle 3.3 aborts on a weighted sample of size 0
            cases.append(run("weighted_sample_neighbors", [row, colptr, weight, nodes],
                             {"sample_size": k, "eids": eids, "return_eids": True}))
    cases.append(run("sample_neighbors", [t(ROW, "int32"), t(COLPTR, "int32"),
                                          t([[0], [6], [6]], "int32")], {"sample_size": 5}))
    cases.append(run("sample_neighbors", [t([[r] for r in ROW], "int64"),
                                          t([[c] for c in COLPTR], "int64"), nodes],
                     {"sample_size": 5}))
    cases.append(run("sample_neighbors", [row, colptr, t([], "int64")], {"sample_size": 2}))
    cases.append(run("weighted_sample_neighbors", [t(ROW, "int32"), t(COLPTR, "int32"), weight,
                                                   t([5, 3], "int32")], {"sample_size": 3}))
    for fn, args, kwargs in [
        ("sample_neighbors", [row, colptr, nodes], {"sample_size": 2, "return_eids": True}),
        ("sample_neighbors", [t(ROW, "int32"), colptr, nodes], {"sample_size": 2}),
        ("sample_neighbors", [row, colptr, t([0, 1], "int32")], {"sample_size": 2}),
        ("sample_neighbors", [row, colptr, nodes],
         {"sample_size": 2, "eids": t(np.arange(13), "int32"), "return_eids": True}),
        ("weighted_sample_neighbors", [row, colptr, weight, nodes],
         {"sample_size": 2, "return_eids": True}),
        ("weighted_sample_neighbors", [row, colptr, t(np.ones(13), "float64"), nodes],
         {"sample_size": 2}),
    ]:
        cases.append(run(fn, args, kwargs))
    return cases


def reindex_cases():
    x, neighbors, count = t([0, 1, 2], "int64"), t([8, 9, 0, 4, 7, 6, 7], "int64"), \
        t([2, 3, 2], "int32")
    cases = [
        run("reindex_graph", [x, neighbors, count]),
        run("reindex_graph", [t([0, 1, 2], "int32"), t([8, 9, 0, 4, 7, 6, 7], "int32"), count]),
        run("reindex_graph", [t([5, 5, 2], "int64"), neighbors, count]),
        run("reindex_graph", [x, t([8, 9, 0, 4, 7, 6], "int64"), t([2, 3, 1, 0, 0, 0], "int32")]),
        run("reindex_graph", [x, t([], "int64"), t([0, 0, 0], "int32")]),
        run("reindex_graph", [t([-1, 3], "int64"), t([-5, 2, -1], "int64"), t([1, 2], "int32")]),
        run("reindex_graph", [t([[0], [1], [2]], "int64"), neighbors, count]),
        run("reindex_graph", [t([10 ** 12, 5], "int64"), t([7, 10 ** 12, 3], "int64"),
                              t([1, 2], "int32")]),
        run("reindex_graph", [x, neighbors, count],
            {"value_buffer": t(np.full(20, -1), "int32"),
             "index_buffer": t(np.full(20, -1), "int32")}),
        run("reindex_graph", [x, neighbors, t([2, 3, 2], "int64")]),
        run("reindex_graph", [t([0, 1, 2], "int32"), neighbors, count]),
        run("reindex_graph", [t([0.0, 1, 2], "float32"), t([8.0, 9, 0, 4, 7, 6, 7], "float32"),
                              count]),
        run("reindex_heter_graph", [x, [neighbors, t([0, 2, 3, 5, 1], "int64")],
                                    [count, t([1, 3, 1], "int32")]]),
        run("reindex_heter_graph", [x, [neighbors], [count]]),
        run("reindex_heter_graph", [x, neighbors, count]),
    ]
    return cases


def main():
    data = {
        "paddle": paddle.__version__,
        "message_passing": message_passing_cases(),
        "message_passing_errors": message_passing_errors(),
        "segment": segment_cases(),
        "sampling": sampling_cases(),
        "reindex": reindex_cases(),
    }
    OUT.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    total = sum(len(v) for v in data.values() if isinstance(v, list))
    print(f"wrote {OUT.relative_to(OUT.parents[2])}: {total} cases, Paddle {paddle.__version__}")


if __name__ == "__main__":
    main()
