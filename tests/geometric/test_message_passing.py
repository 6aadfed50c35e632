"""send_u_recv, send_ue_recv and send_uv beyond the recorded cases: static programs (with a
free node count, and out_size read from a Tensor), to_static, the paths of the row sums,
float16, large graphs and the form of the errors."""

import numpy as np
import pytest

import dygraph
import dygraph.geometric as G
from dygraph import static
from dygraph.ops.geometric import scatter_rows

SRC = np.array([0, 1, 2, 0, 4, 3, 2, 1])
DST = np.array([1, 2, 1, 0, 1, 1, 4, 4])


def _reference(x, src, dst, rows, reduce):
    out = np.zeros((rows,) + x.shape[1:], x.dtype)
    for r in range(rows):
        picked = x[src[dst == r]]
        if len(picked):
            out[r] = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min}[reduce](
                picked, axis=0)
    return out


def _program(build, feeds):
    """Build a program with `build(*variables)` over data variables named by feeds ({name:
    (shape, dtype)}), returning (main, outputs)."""
    dygraph.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            variables = [static.data(name, shape, dtype) for name, (shape, dtype) in
                         feeds.items()]
            outs = build(*variables)
    finally:
        dygraph.disable_static()
    return main, outs


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min"])
def test_static_program_with_free_sizes_computes_each_run(reduce):
    """Node and edge counts free in the program: each run takes the fed graph's sizes, and
    the gradient program matches eager."""
    def build(x, src, dst):
        x.stop_gradient = False
        out = G.send_u_recv(x, src, dst, reduce_op=reduce)
        return [out] + static.gradients([(out * out).sum()], [x])

    main, outs = _program(build, {"x": ([None, 3], "float64"), "src": ([None], "int64"),
                                  "dst": ([None], "int64")})
    rng = np.random.default_rng(0)
    for nodes, edges in ((6, 8), (11, 30)):
        x = rng.standard_normal((nodes, 3))
        src, dst = rng.integers(0, nodes, edges), rng.integers(0, nodes, edges)
        got, grad = static.Executor().run(main, feed={"x": x, "src": src, "dst": dst},
                                          fetch_list=outs)
        np.testing.assert_allclose(got, _reference(x, src, dst, nodes, reduce), atol=1e-12)
        xt = dygraph.to_tensor(x, stop_gradient=False)
        eager = G.send_u_recv(xt, dygraph.to_tensor(src), dygraph.to_tensor(dst), reduce)
        (eager * eager).sum().backward()
        np.testing.assert_allclose(grad, xt.grad.numpy(), atol=1e-12)


def test_out_size_tensor_is_read_at_each_run_of_a_program():
    main, outs = _program(
        lambda x, s, d, n: [G.send_ue_recv(x, x[:, :1], s, d, "mul", out_size=n)],
        {"x": ([8, 3], "float32"), "s": ([8], "int64"), "d": ([8], "int64"),
         "n": ([], "int64")})
    x = np.arange(24, dtype=np.float32).reshape(8, 3)
    for rows in (5, 9):
        (got,) = static.Executor().run(main, feed={"x": x, "s": SRC, "d": DST,
                                                   "n": np.array(rows)}, fetch_list=outs)
        assert got.shape == (rows, 3)
        np.testing.assert_allclose(got, _reference(x[SRC] * x[:, :1], np.arange(8), DST,
                                                   rows, "sum"))


def test_to_static_matches_eager():
    def layer(x, y, e, src, dst):
        return G.send_uv(x, y, src, dst, "mul"), G.send_ue_recv(x, e, src, dst, "sub", "max")

    x, y, e = dygraph.rand([6, 3]), dygraph.rand([6, 3]), dygraph.rand([8, 3])
    src, dst = dygraph.to_tensor(SRC), dygraph.to_tensor(DST)
    for got, want in zip(dygraph.jit.to_static(layer)(x, y, e, src, dst),
                         layer(x, y, e, src, dst)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("width", [1, 5])
def test_row_sums_agree_with_and_without_scipy(monkeypatch, dtype, width):
    rng = np.random.default_rng(1)
    values = rng.standard_normal((200, width)).astype(dtype)
    index = rng.integers(0, 40, 200)
    with_scipy, count = scatter_rows.reduce_rows(np, values, index, 40, "sum")
    monkeypatch.setitem(scatter_rows._SCIPY, "sparse", False)
    without, count2 = scatter_rows.reduce_rows(np, values, index, 40, "sum")
    np.testing.assert_allclose(with_scipy, without, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(count, count2)
    want = np.zeros((40, width))
    np.add.at(want, index, values.astype(np.float64))
    np.testing.assert_allclose(without, want, rtol=1e-5, atol=1e-5)


def test_float16_features_compute_as_float32_rounded():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((6, 4)).astype(np.float16)
    for reduce in ("sum", "mean", "max", "min"):
        got = G.send_u_recv(dygraph.to_tensor(x), dygraph.to_tensor(SRC),
                            dygraph.to_tensor(DST), reduce).numpy()
        assert got.dtype == np.float16
        want = _reference(x.astype(np.float32), SRC, DST, 6, reduce)
        np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3)


def test_a_large_graph_matches_numpy():
    """100k edges: sums, maxima and the gradient against np.add.at / np.maximum.at."""
    rng = np.random.default_rng(3)
    nodes, edges = 10_000, 100_000
    x = rng.standard_normal((nodes, 16)).astype(np.float32)
    src, dst = rng.integers(0, nodes, edges), rng.integers(0, nodes, edges)
    xt = dygraph.to_tensor(x, stop_gradient=False)
    total = G.send_u_recv(xt, dygraph.to_tensor(src), dygraph.to_tensor(dst), "sum")
    biggest = G.send_u_recv(xt, dygraph.to_tensor(src), dygraph.to_tensor(dst), "max")
    (total.sum() + biggest.sum()).backward()
    want = np.zeros((nodes, 16))
    np.add.at(want, dst, x[src].astype(np.float64))
    np.testing.assert_allclose(total.numpy(), want, rtol=1e-4, atol=1e-4)
    top = np.full((nodes, 16), -np.inf, np.float32)
    np.maximum.at(top, dst, x[src])
    top[np.bincount(dst, minlength=nodes) == 0] = 0
    np.testing.assert_array_equal(biggest.numpy(), top)
    grad = np.zeros((nodes, 16))
    np.add.at(grad, src, 1.0 + (x[src] == top[dst]))
    np.testing.assert_allclose(xt.grad.numpy(), grad)


def test_integer_features_have_no_gradient():
    x = dygraph.to_tensor([[1, 2], [3, 4]])
    out = G.send_u_recv(x, dygraph.to_tensor([0, 1]), dygraph.to_tensor([1, 1]), "mean")
    assert out.stop_gradient and out.numpy().tolist() == [[0, 0], [2, 3]]


@pytest.mark.parametrize("call, kind", [
    (lambda x, s, d: G.send_u_recv(x.astype("bool"), s, d), TypeError),
    (lambda x, s, d: G.send_u_recv(x, s.astype("float32"), d), TypeError),
    (lambda x, s, d: G.send_u_recv(x, s, d, out_size=2.5j), TypeError),
    (lambda x, s, d: G.send_u_recv(x, s, d, out_size=dygraph.to_tensor([1.0])), TypeError),
    (lambda x, s, d: G.send_u_recv(x[0, 0], s, d), ValueError),
    (lambda x, s, d: G.send_uv(x, x, s, d + 6), IndexError),
    (lambda x, s, d: G.send_uv(x, x, s - 1, d), IndexError),
    (lambda x, s, d: G.send_ue_recv(x, x, s, d), ValueError),
])
def test_errors_name_the_function_and_the_caller(call, kind):
    x = dygraph.rand([6, 3])
    with pytest.raises(kind) as caught:
        call(x, dygraph.to_tensor(SRC), dygraph.to_tensor(DST))
    message = str(caught.value)
    assert message.split(":")[0] in ("send_u_recv", "send_ue_recv", "send_uv"), message
    assert message.count("(called at") == 1 and __file__ in message, message
