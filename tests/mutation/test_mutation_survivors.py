"""Tests for the mutants that survived tools/mutation.py as test gaps (docs/DEVELOPING.md,
"Mutation testing"). Each test names the module line it pins down; the expected values
come from NumPy references or from Paddle 3.3 (noted where they do)."""

import numpy as np
import pytest

import dygraph
import dygraph.nn.functional as F
from dygraph import amp, static
from dygraph.utils import unique_name


@pytest.fixture(autouse=True)
def _dynamic_after():
    yield
    dygraph.disable_static()


# --- autograd/engine.py -------------------------------------------------------------------


def test_grad_twice_without_retain_graph_raises():
    # engine.py: the nodes that ran under grad() are freed (`ran = True`), so a second
    # grad() through them must refuse, as a second backward() does.
    x = dygraph.to_tensor([1.0, 2.0], stop_gradient=False)
    y = (x * x).sum()
    (g,) = dygraph.grad(y, x)
    np.testing.assert_array_equal(g.numpy(), [2.0, 4.0])
    with pytest.raises(RuntimeError, match="retain_graph"):
        dygraph.grad(y, x)


def test_grad_twice_with_retain_graph_gives_the_same_gradient():
    x = dygraph.to_tensor([1.0, 2.0], stop_gradient=False)
    y = (x * x).sum()
    (first,) = dygraph.grad(y, x, retain_graph=True)
    (second,) = dygraph.grad(y, x)
    np.testing.assert_array_equal(first.numpy(), second.numpy())


# --- ops/loss/cross_entropy.py ----------------------------------------------------------


def _log_softmax64(x):
    x = np.asarray(x, np.float64)
    shifted = x - x.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cross_entropy_of_large_logits_is_finite(dtype):
    # loss_ce.py: the logits are shifted by their max (`x - max`) so exp cannot overflow.
    logits = np.array([[1000.0, 0.0, -5.0], [-1000.0, 3.0, 990.0], [0.0, 800.0, 799.0]])
    labels = np.array([[0], [2], [2]])
    out = F.cross_entropy(dygraph.to_tensor(logits, dtype=dtype), dygraph.to_tensor(labels),
                          reduction="none").numpy()
    assert out.dtype == np.dtype(dtype)
    assert np.isfinite(out).all()
    ref = -np.take_along_axis(_log_softmax64(logits), labels, axis=-1)
    np.testing.assert_allclose(out, ref, rtol=1e-6, atol=1e-6)
    assert ref[0, 0] == 0.0 and abs(ref[2, 0] - 1.3132617) < 1e-6  # log(1 + e)


def test_soft_label_cross_entropy_with_label_smoothing():
    # loss_ce.py: soft labels are smoothed as q = (1 - eps) p + eps / C (as Paddle).
    x = np.array([[0.1, -0.4, 0.7, 2.0], [1.0, 2.0, -1.0, 0.3]])
    p = np.array([[0.2, 0.3, 0.4, 0.1], [0.6, 0.1, 0.05, 0.25]])
    eps = 0.2
    q = (1.0 - eps) * p + eps / x.shape[-1]
    ref = -(q * _log_softmax64(x)).sum(axis=-1, keepdims=True)
    # Paddle 3.3's values (float64) for these inputs.
    np.testing.assert_allclose(ref, [[1.98997441], [1.6952224]], rtol=1e-7)
    out = F.cross_entropy(dygraph.to_tensor(x), dygraph.to_tensor(p), soft_label=True,
                          label_smoothing=eps, reduction="none")
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-7)
    out = F.cross_entropy(dygraph.to_tensor(x[:1, :3], dtype="float32"),
                          dygraph.to_tensor([[0.2, 0.3, 0.5]], dtype="float32"),
                          soft_label=True, label_smoothing=0.1)
    np.testing.assert_allclose(float(out), 1.0938331, rtol=1e-6)  # Paddle 3.3: 1.0938332


# --- static/executor.py -------------------------------------------------------------------


def _linear_program():
    dygraph.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), unique_name.guard():
        x = static.data("x", [None, 2])
        linear = dygraph.nn.Linear(2, 1)
        y = linear(x)
    dygraph.disable_static()
    return main, startup, linear, y


def test_scope_tensor_view_keeps_the_parameter_dtype():
    # executor.py: _TensorView.__array__ casts only when NumPy asks for a dtype.
    _, startup, linear, _ = _linear_program()
    scope = static.Scope()
    static.Executor().run(startup, scope=scope)
    view = scope.find_var(linear.weight.name).get_tensor()
    assert np.asarray(view).dtype == np.float32
    assert np.array(view).dtype == np.float32
    assert np.asarray(view, dtype=np.float64).dtype == np.float64
    np.testing.assert_array_equal(np.asarray(view), scope.vars[linear.weight.name])


def test_missing_value_in_the_first_op_names_that_op():
    # executor.py: a KeyError from op 0 (static_step == 0) is that op's, not the fetch's.
    main, _, linear, y = _linear_program()
    assert main.global_block().ops[0].type == "linear"
    with pytest.raises(RuntimeError, match=r"linear needs 'linear_0\.w_0'") as info:
        static.Executor().run(main, feed={"x": np.ones((3, 2), np.float32)}, fetch_list=[y],
                              scope=static.Scope())
    assert "the fetch" not in str(info.value)


def test_run_time_error_in_the_first_op_gives_its_input_shapes():
    # executor.py: an error raised by op 0 gets the "(at run time; input shapes ...)" note.
    dygraph.enable_static()
    main = static.Program()
    with static.program_guard(main, static.Program()):
        a = static.data("a", [None, None])
        b = static.data("b", [None, None])
        c = dygraph.matmul(a, b)
    dygraph.disable_static()
    assert main.global_block().ops[0].type == "matmul"
    feed = {"a": np.ones((2, 3), np.float32), "b": np.ones((2, 3), np.float32)}
    with pytest.raises(ValueError, match=r"at run time; input shapes \[\[2, 3\], \[2, 3\]\]"):
        static.Executor().run(main, feed=feed, fetch_list=[c])


# --- optimizer/adam.py --------------------------------------------------------------------


def test_adam_accepts_epsilon_zero_and_rejects_negative():
    # adam.py: `epsilon < 0` is the error (Paddle 3.3 too: "expect epsilon >= 0").
    w0 = np.array([0.5, -1.0, 2.0], np.float32)
    w = dygraph.framework.parameter.Parameter(w0.copy())
    opt = dygraph.optimizer.Adam(learning_rate=0.1, parameters=[w], epsilon=0.0)
    c = np.array([3.0, -0.5, 0.25], np.float32)
    # NumPy Adam with eps = 0 (its first step is -lr * sign(g)); Paddle 3.3 gives
    # [0.4, -1.1, 1.9], [0.30118775, -1.2001345, 1.8001668], [0.20487224, -1.3004891,
    # 1.7006245] for these three steps.
    ref, m, v = w0.astype(np.float64), 0.0, 0.0
    for t in range(1, 4):
        (w * w * dygraph.to_tensor(c)).sum().backward()
        opt.step()
        opt.clear_grad()
        g = 2.0 * ref * c
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        ref = ref - 0.1 * np.sqrt(1 - 0.999**t) / (1 - 0.9**t) * m / np.sqrt(v)
        np.testing.assert_allclose(w.numpy(), ref, atol=1e-5)  # float32 steps
    np.testing.assert_allclose(ref, [0.20487224, -1.3004891, 1.7006245], atol=1e-5)
    with pytest.raises(ValueError, match="epsilon"):
        dygraph.optimizer.Adam(parameters=[w], epsilon=-1e-8)


# --- amp/grad_scaler.py -------------------------------------------------------------------


def _scaler_step(scaler, opt, w, bad):
    loss = (w * (np.inf if bad else 1.0)).sum()
    scaler.scale(loss).backward()
    scaler.minimize(opt)
    opt.clear_grad()


def test_grad_scaler_counts_good_steps_from_zero_after_a_bad_one():
    # grad_scaler.py: a bad step resets the good-step count to 0. The expected schedule is
    # Paddle 3.3's AmpScaler._update run on the same sequence.
    w = dygraph.framework.parameter.Parameter(np.ones(2, np.float32))
    opt = dygraph.optimizer.SGD(0.1, parameters=[w])
    scaler = amp.GradScaler(init_loss_scaling=8.0, incr_every_n_steps=2,
                            decr_every_n_nan_or_inf=1)
    steps = [False, True, False, False, False, True, True, False]
    expected = [(8.0, 1, 0), (4.0, 0, 0), (4.0, 1, 0), (8.0, 0, 0), (8.0, 1, 0),
                (4.0, 0, 0), (2.0, 0, 0), (2.0, 1, 0)]
    for bad, (scale, incr, decr) in zip(steps, expected):
        _scaler_step(scaler, opt, w, bad)
        state = scaler.state_dict()
        assert (scaler.get_loss_scaling(), state["incr_count"], state["decr_count"]) == (
            scale, incr, decr)


def test_grad_scaler_default_state_dict_matches_paddle():
    # grad_scaler.py: the defaults, as Paddle 3.3's GradScaler (enabled) reports them.
    state = amp.GradScaler().state_dict()
    assert float(np.asarray(state.pop("scale")).reshape(-1)[0]) == 65536.0
    assert state == {"incr_ratio": 2.0, "decr_ratio": 0.5, "incr_every_n_steps": 2000,
                     "decr_every_n_nan_or_inf": 1, "incr_count": 0, "decr_count": 0,
                     "use_dynamic_loss_scaling": True}
    assert amp.GradScaler(enable=False).state_dict() == {}


def test_grad_scaler_decr_ratio_must_be_positive():
    # grad_scaler.py: decr_ratio lies in the open interval (0, 1). Paddle 3.3 only asserts
    # decr_ratio < 1.0, so it takes 0.0, which zeroes the scale (every later step then
    # overflows); DyGraph refuses it.
    with pytest.raises(ValueError, match="decr_ratio"):
        amp.GradScaler(decr_ratio=0.0)
    with pytest.raises(ValueError, match="decr_ratio"):
        amp.GradScaler(decr_ratio=1.0)
    assert amp.GradScaler(decr_ratio=1e-3).state_dict()["decr_ratio"] == 1e-3


def test_grad_scaler_is_enable_returns_a_bool():
    assert amp.GradScaler(enable=True).is_enable() is True
    assert amp.GradScaler(enable=False).is_enable() is False
    assert amp.GradScaler(enable=1).is_enable() is True
