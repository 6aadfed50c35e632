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
    from dygraph.ops.search.sorting import sort

    return sort.__wrapped__(x) * 2  # the wrapper without its whole-call capture


def test_a_value_computed_from_a_stand_in_is_refused_never_baked():
    with pytest.raises(ValueDependentError, match="gatheralong: its attribute 'index' was "
                                                  "computed in Python from the build-time "
                                                  "stand-in"):
        _program(_baked_sort)
    from dygraph.ops.search.sorting import argsort

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


# -- free dimensions ----------------------------------------------------------------------

def _per_batch_mean(x):
    return x.sum() / x.shape[0]


def _minus_batch(x):
    return x - x.shape[0]


def _full_of_batch(x):
    return paddle.full([1], x.shape[0])


def _mean_times_batch(x):
    return x.mean() * x.shape[0]


def _keep_batch_reshape(x):
    return x.reshape([x.shape[0], -1])


def _zeros_of_batch(x):
    return paddle.zeros([x.shape[0], 2]) + paddle.shape(x)[0] + paddle.numel(x)


def _float_of_batch(x):
    return float(x.shape[0]) * x


@pytest.mark.parametrize("fn", [_per_batch_mean, _minus_batch, _full_of_batch,
                                _mean_times_batch, _keep_batch_reshape, _zeros_of_batch])
def test_free_dimensions_are_the_size_of_each_run(fn):
    spec = [static.InputSpec([None, 4], "float32")]
    converted = paddle.jit.to_static(fn, input_spec=spec)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no eager fallback: the program computes it
        for n in (7, 3):
            x = paddle.to_tensor(np.arange(n * 4, dtype=np.float32).reshape(n, 4))
            np.testing.assert_array_equal(converted(x).numpy(), fn(x).numpy())
    main, _, out = _program(fn, (None, 4))  # a static program too
    for n in (5, 2):
        x = np.ones((n, 4), np.float32)
        np.testing.assert_array_equal(static.Executor().run(main, feed={"x": x},
                                                            fetch_list=[out])[0],
                                      fn(paddle.to_tensor(x)).numpy())


def test_python_values_of_a_free_dimension_are_refused_with_the_line():
    # (range() of an int subclass never asks it: to_static's converted range() refuses it,
    # tests/jit/test_dy2static.py.)
    for use in (float, int, bool, lambda d: d > 1, lambda d: d == 3):
        with pytest.raises(ValueDependentError, match=r"dimension 0 of static Variable .*"
                                                      r"test_one_answer.py:\d+"):
            _program(lambda x, u=use: u(x.shape[0]))
    assert _program(lambda x: x * (x.shape[0] == -1))[2] is not None  # a spec test stays
    # to_static gives eager's numbers by running the function eagerly, and says so.
    converted = paddle.jit.to_static(_float_of_batch,
                                     input_spec=[static.InputSpec([None, 4], "float32")])
    with pytest.warns(UserWarning, match="runs eagerly"):
        got = converted(paddle.ones([3, 4]))
    np.testing.assert_array_equal(got.numpy(), np.full((3, 4), 3.0, np.float32))


def test_onnx_export_reads_the_batch_size_at_run_time(tmp_path):
    ort = pytest.importorskip("onnxruntime")

    class Centre(paddle.nn.Layer):
        def forward(self, h):
            return h - h.sum(0) / h.shape[0]

    path = str(tmp_path / "centre")
    paddle.onnx.export(Centre(), path, input_spec=[static.InputSpec([None, 4], "float32",
                                                                    "h")])
    session = ort.InferenceSession(path + ".onnx")
    for n in (3, 7):
        x = np.random.default_rng(n).standard_normal((n, 4)).astype(np.float32)
        got = session.run(None, {"h": x})[0]
        np.testing.assert_allclose(got, Centre()(paddle.to_tensor(x)).numpy(), atol=1e-6)


# -- creation ops and saved modes ---------------------------------------------------------

def test_creation_ops_are_variables_of_the_program_and_random_ones_draw_per_run():
    paddle.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 2])
        full = paddle.full([2], 3.0)
        fill = paddle.fluid.layers.fill_constant([2], "float32", 2.0)
        w = static.create_parameter([2], "float32")
        step = static.create_global_var([1], 4.0, "float32", persistable=True)
        noise = paddle.randn([2])
        loss = (x * full + fill + w).sum()
        grad_w, = static.gradients([loss], [w])
    paddle.disable_static()
    exe = static.Executor()
    exe.run(startup)
    feed = {"x": np.ones((3, 2), np.float32)}
    got = exe.run(main, feed=feed, fetch_list=[full, fill, w, step, noise, grad_w])
    assert got[0].tolist() == [3.0, 3.0] and got[1].tolist() == [2.0, 2.0]
    assert got[2].shape == (2,) and got[3].tolist() == [4.0]
    assert got[5].tolist() == [3.0, 3.0]
    again = exe.run(main, feed=feed, fetch_list=[noise])[0]
    assert not np.array_equal(again, got[4])  # drawn at each run, not frozen at build


class _DropoutNorm(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 4)
        self.drop = paddle.nn.Dropout(0.5)
        self.bn = paddle.nn.BatchNorm1D(4)

    def forward(self, x):
        return self.bn(self.drop(self.fc(x)))


@pytest.mark.parametrize("mode", ["eval", "train"])
def test_jit_save_exports_the_inference_program_in_either_mode(tmp_path, mode):
    paddle.seed(0)
    net = paddle.jit.to_static(_DropoutNorm())
    opt = paddle.optimizer.SGD(0.1, parameters=net.parameters())
    x = paddle.randn([8, 4])
    net(x).sum().backward()  # a training step moves weights and running statistics
    opt.step()
    net.eval()
    want = net(x).numpy()
    getattr(net, mode)()
    path = str(tmp_path / "net")
    paddle.jit.save(net, path, input_spec=[static.InputSpec([None, 4], "float32")])
    loaded = paddle.jit.load(path)
    assert not loaded.training  # as Paddle: a loaded layer starts in eval mode
    np.testing.assert_allclose(loaded(x).numpy(), want, rtol=1e-6, atol=1e-6)
    loaded.train()  # fine-tuning: dropout on again
    assert not np.allclose(loaded(x).numpy(), want)


class _MixedNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(8, 16)
        self.fc2 = paddle.nn.Linear(16, 4)

    def forward(self, x):
        with paddle.amp.auto_cast(dtype="bfloat16"):
            return self.fc2(F.relu(self.fc1(x)))


def _train_mixed(convert):
    paddle.seed(0)
    net = paddle.jit.to_static(_MixedNet()) if convert else _MixedNet()
    opt = paddle.optimizer.Adam(1e-2, parameters=net.parameters())
    rng = np.random.default_rng(0)
    x = paddle.to_tensor(rng.standard_normal((16, 8)).astype(np.float32))
    y = paddle.to_tensor(rng.integers(0, 4, (16, 1)))
    losses = []
    for _ in range(5):
        loss = F.cross_entropy(net(x).astype("float32"), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(loss.item())
    return losses


def test_training_under_to_static_with_auto_cast_gives_the_eager_losses():
    pytest.importorskip("ml_dtypes")
    eager = _train_mixed(False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        converted = _train_mixed(True)
    assert not [w for w in caught if "runs eagerly" in str(w.message)]
    assert converted == eager and eager[-1] < eager[0]


def test_value_checking_ops_build_on_stand_ins_and_check_each_run():
    """floor_divide refuses a zero divisor: the build-time zeros must not trip it, a run's
    zero must."""
    main, _, out = _program(lambda a: paddle.floor_divide(paddle.cast(a, "int64"),
                                                          paddle.cast(a, "int64") - 1),
                            (None, 2))
    exe = static.Executor()
    got = exe.run(main, feed={"x": np.array([[7.0, 9.0]], np.float32)}, fetch_list=[out])[0]
    np.testing.assert_array_equal(got, [[1, 1]])
    with pytest.raises(ZeroDivisionError):
        exe.run(main, feed={"x": np.array([[1.0, 9.0]], np.float32)}, fetch_list=[out])


def test_a_scope_tensor_copied_by_numpy_is_a_copy():
    paddle.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        paddle.nn.Linear(2, 2)(static.data("x", [None, 2]))
    paddle.disable_static()
    scope = static.Scope()
    static.Executor().run(startup, scope=scope)
    name = main.all_parameters()[0].name
    copied = np.array(scope.find_var(name).get_tensor())
    copied[...] = 7.0
    assert not (scope.vars[name] == 7.0).any()
