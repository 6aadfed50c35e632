"""One answer in every mode: ops that read their input's values compute at run time in
static programs and to_static; a value computed in Python from a build-time stand-in is
refused, never baked; auto_cast and capture compose."""

import warnings

import numpy as np
import pytest

import dygraph as paddle
import dygraph.nn.functional as F
from dygraph import static
from dygraph.autograd import interpreters
from dygraph.autograd.function import apply
from dygraph.autograd.grad_mode import state
from dygraph.static.program import ValueDependentError

X1 = np.array([[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]], np.float32)
X2 = np.array([[1.0, 3.0, 0.0], [2.0, -2.0, 5.0]], np.float32)

# Each reads the values of x to decide indices, sizes or positions.
INDEX_OPS = {
    "sort": lambda x: paddle.sort(x, axis=-1),
    "sort_descending": lambda x: paddle.sort(x, axis=1, descending=True),
    "argsort": lambda x: paddle.argsort(x, axis=-1),
    "topk": lambda x: paddle.topk(x, 2)[0],
    "topk_indices": lambda x: paddle.topk(x, 2, largest=False)[1],
    "median": lambda x: paddle.median(x, axis=1),
    "quantile": lambda x: paddle.quantile(x, 0.25, axis=1),
    "unique": lambda x: paddle.unique(paddle.round(x)),
    "nonzero": lambda x: paddle.nonzero(x > 1.5),
    "masked_select": lambda x: paddle.masked_select(x, x > 1.5),
    "one_hot": lambda x: F.one_hot(paddle.cast(paddle.abs(x), "int64"), 6),
    "count_nonzero": lambda x: paddle.count_nonzero(x > 1.5, axis=1),
    "gather_argmax": lambda x: paddle.gather(x, paddle.argmax(x[:, 0])),
    "index_select": lambda x: paddle.index_select(x, paddle.argmax(x, axis=1), axis=1),
    "take_along_axis": lambda x: paddle.take_along_axis(x, paddle.argsort(x, axis=1), 1),
    "searchsorted": lambda x: paddle.searchsorted(paddle.to_tensor([0.0, 1.0, 2.5]), x),
    "cummax": lambda x: paddle.cummax(x, axis=-1)[0],
    "cummin_indices": lambda x: paddle.cummin(x, axis=-1)[1],
    "where_condition": lambda x: paddle.where(x > 1.5)[1],
    "bincount": lambda x: paddle.bincount(paddle.cast(paddle.abs(x[0]), "int64")),
    "histogram": lambda x: paddle.histogram(x, bins=3, min=-2, max=5),
    "gather_nd": lambda x: paddle.gather_nd(x, paddle.nonzero(x > 2.5)),
}


@pytest.fixture(autouse=True)
def _dynamic_after():
    yield
    paddle.disable_static()


def _program(fn, shape=(None, 3)):
    paddle.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", list(shape), "float32")
        out = fn(x)
    paddle.disable_static()
    return main, startup, out


@pytest.mark.parametrize("name", sorted(INDEX_OPS))
def test_index_ops_compute_at_run_time_in_static_programs(name):
    fn = INDEX_OPS[name]
    main, _, out = _program(fn)
    exe = static.Executor()
    for x in (X1, X2, X2[:1]):  # two inputs and another batch size
        got = exe.run(main, feed={"x": x}, fetch_list=[out])[0]
        np.testing.assert_array_equal(got, fn(paddle.to_tensor(x)).numpy())


def _weighted(out):
    """A loss whose gradient depends on where each value went (weights 1, 2, 3...)."""
    return (out * paddle.cumsum(paddle.ones_like(out), axis=-1)).sum()


@pytest.mark.parametrize("name", ["sort", "topk", "median", "take_along_axis", "cummax"])
def test_index_ops_keep_their_gradients_in_static_programs(name):
    fn = INDEX_OPS[name]
    paddle.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 3], "float32")
        x.stop_gradient = False
        grads = static.gradients([_weighted(fn(x))], [x])
    paddle.disable_static()
    exe = static.Executor()
    for value in (X1, X2):
        got = exe.run(main, feed={"x": value}, fetch_list=grads)[0]
        t = paddle.to_tensor(value, stop_gradient=False)
        _weighted(fn(t)).backward()
        np.testing.assert_allclose(got, t.grad.numpy(), rtol=1e-6)


def _sort_rows(x):
    return paddle.sort(x, axis=-1) + paddle.topk(x, 1)[0]


def test_to_static_and_jit_save_of_an_index_op_give_eager_numbers(tmp_path):
    fn = paddle.jit.to_static(_sort_rows)
    for x in (X1, X2):
        np.testing.assert_array_equal(fn(paddle.to_tensor(x)).numpy(),
                                      _sort_rows(paddle.to_tensor(x)).numpy())
    path = str(tmp_path / "sorter")
    paddle.jit.save(fn, path, input_spec=[static.InputSpec([None, 3], "float32")])
    loaded = paddle.jit.load(path)
    for x in (X1, X2):
        np.testing.assert_array_equal(loaded(paddle.to_tensor(x)).numpy(),
                                      _sort_rows(paddle.to_tensor(x)).numpy())


def _baked_sort(x):
    from dygraph.ops.search import sort

    return sort.__wrapped__(x) * 2  # the wrapper without its whole-call capture


def test_a_value_computed_from_a_stand_in_is_refused_never_baked():
    with pytest.raises(ValueDependentError, match="gatheralong: its attribute 'index' was "
                                                  "computed in Python from the build-time "
                                                  "stand-in"):
        _program(_baked_sort)
    from dygraph.ops.search import argsort

    main, _, out = _program(argsort.__wrapped__)
    with pytest.raises(ValueDependentError, match="a fetched Tensor was computed in Python"):
        static.Executor().run(main, feed={"x": X1}, fetch_list=[out])
    # to_static falls back to eager, saying so, and gives eager's numbers.
    fn = paddle.jit.to_static(_baked_sort)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = [fn(paddle.to_tensor(x)).numpy() for x in (X1, X2)]
    assert any("runs eagerly" in str(w.message) for w in caught)
    for x, g in zip((X1, X2), got):
        np.testing.assert_array_equal(g, _baked_sort(paddle.to_tensor(x)).numpy())


def _amp_linear(layer, x):
    with paddle.amp.auto_cast():
        return layer(x)


def test_auto_cast_inside_program_guard_records_the_casts():
    paddle.seed(0)
    layer = paddle.nn.Linear(3, 2)
    main, startup, out = _program(lambda x: _amp_linear(layer, x))
    types = [o.type for o in main.global_block().ops]
    assert types.count("cast") == 3 and "linear" in types, types  # x, weight, bias
    exe = static.Executor()
    exe.run(startup)
    for x in (X1, X2):
        got = exe.run(main, feed={"x": x}, fetch_list=[out])[0]
        want = _amp_linear(layer, paddle.to_tensor(x)).numpy()
        assert got.dtype == np.float16
        np.testing.assert_array_equal(got, want)


def test_program_guard_inside_auto_cast_records_the_casts_too():
    with paddle.amp.auto_cast():
        paddle.enable_static()
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            out = paddle.nn.Linear(3, 2)(static.data("x", [None, 3]))
        paddle.disable_static()
    assert [o.type for o in main.global_block().ops].count("cast") == 3
    assert out.dtype == paddle.float16


def test_auto_cast_inside_to_static_gives_eager_numbers_on_every_call():
    paddle.seed(1)
    layer = paddle.nn.Linear(3, 2)

    def f(x):
        with paddle.amp.auto_cast():
            return layer(x)
    fn = paddle.jit.to_static(f)
    for x in (X1, X2):
        got = fn(paddle.to_tensor(x))
        want = f(paddle.to_tensor(x))
        assert got.dtype == want.dtype == paddle.float16
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    with paddle.no_grad():  # a weight changed after tracing: the program reads it per run
        layer.weight.set_value(layer.weight.numpy() * 2)
    np.testing.assert_array_equal(fn(paddle.to_tensor(X1)).numpy(),
                                  f(paddle.to_tensor(X1)).numpy())


def test_interpreters_stack_by_level_whatever_the_order_of_entry():
    calls = []

    def make(tag):
        def interpreter(op, inputs):
            calls.append(tag)
            with interpreters.handing_down(interpreter):
                return apply(op, *inputs)
        return interpreter
    low, high = make("record"), make("transform")
    with interpreters.installed(high, interpreters.TRANSFORM):
        with interpreters.installed(low, interpreters.RECORD):
            assert interpreters.below(high) is low and interpreters.below(low) is None
            y = paddle.ones([2]) + 1
    assert calls == ["transform", "record"] and y.tolist() == [2.0, 2.0]
    assert interpreters.snapshot() == () and state.intercept is None
