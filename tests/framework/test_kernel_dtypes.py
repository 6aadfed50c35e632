"""The public names refuse the input dtypes Paddle 3.3 refuses (dygraph/framework/
kernel_dtypes.py), in every mode, with an error naming the op and the dtype; DyGraph's own
code and the dtypes Paddle takes are unaffected."""

import inspect

import numpy as np
import pytest

import dygraph as paddle
import dygraph.nn.functional as F
from dygraph.framework.kernel_dtypes import refusing
from dygraph.framework.paddle_kernel_dtypes import REFUSED


def _public(qualified):
    namespace, _, name = qualified.rpartition(".")
    module = {"paddle": paddle, "nn.functional": F, "linalg": paddle.linalg,
              "fft": paddle.fft, "Tensor": paddle.Tensor}[namespace]
    return getattr(module, name, None)


def test_refused_dtype_names_the_op_dtype_and_line():
    with pytest.raises(RuntimeError) as info:
        paddle.max(paddle.to_tensor([True, False]))
    assert isinstance(info.value, TypeError)  # DyGraph's type for a dtype an op cannot take
    message = str(info.value)
    assert message.startswith("max:") and "bool" in message
    assert "test_kernel_dtypes.py" in message  # the user's line


def test_methods_functional_and_keyword_arguments_refuse_too():
    flags = paddle.to_tensor([True, False])
    with pytest.raises(RuntimeError):
        flags.max()
    with pytest.raises(RuntimeError):
        F.relu(paddle.to_tensor([1, 2], dtype="int32"))
    with pytest.raises(RuntimeError):
        paddle.argsort(x=flags)


def test_accepted_dtypes_compute_as_before():
    # Paddle casts integers to float for acos (no refusal); max of int64 is an int64
    np.testing.assert_allclose(paddle.acos(paddle.to_tensor([1, 0])).numpy(),
                               np.arccos([1.0, 0.0]).astype(np.float32), rtol=1e-6)
    out = paddle.max(paddle.to_tensor([3, 7, 5]))
    assert out.dtype == paddle.int64 and int(out) == 7
    np.testing.assert_array_equal(F.relu(paddle.to_tensor([-1.0, 2.0])).numpy(), [0.0, 2.0])


def test_dygraph_code_keeps_every_dtype():
    # all/any of bool tensors reduce with the unchecked ops
    flags = paddle.to_tensor([True, False])
    assert bool(paddle.any(flags)) and not bool(paddle.all(flags))
    assert int(paddle.ops.max(flags)) == 1


def test_static_programs_refuse_as_eager_does():
    paddle.enable_static()
    try:
        with paddle.static.program_guard(paddle.static.Program()):
            x = paddle.static.data("x", [2], "bool")
            with pytest.raises(RuntimeError, match="max"):
                paddle.max(x)
    finally:
        paddle.disable_static()


def test_every_table_entry_is_applied():
    missed = []
    for qualified in REFUSED:
        public = _public(qualified)
        if public is not None and getattr(public, "refused_dtypes", None) is None:
            missed.append(qualified)
    assert not missed, f"entries whose parameter the function lacks: {missed}"


def test_the_wrapper_keeps_the_signature_and_docstring():
    assert list(inspect.signature(paddle.max).parameters)[:2] == ["x", "axis"]
    assert paddle.max.__doc__ and paddle.max.__wrapped__.__doc__ == paddle.max.__doc__


def test_refusing_skips_a_function_without_the_parameter():
    assert refusing("f", lambda y: y, "x", frozenset([np.dtype(bool)]), TypeError) is None


def test_dropout_refuses_integers_only_where_paddle_does():
    # Paddle 3.3: int32 without axis has no kernel (also in eval); p=0 returns x first,
    # and the axis form (made of other ops) keeps the int dtype
    x = paddle.to_tensor([[1, 2], [3, 4]], dtype="int32")
    for kwargs in ({}, {"training": False}):
        with pytest.raises(RuntimeError, match="dropout: .*int32"):
            F.dropout(x, **kwargs)
    assert F.dropout(x, p=0.0).dtype == paddle.int32
    assert F.dropout(x, axis=0).dtype == paddle.int32


@pytest.mark.parametrize("refused, computed", [
    # each pair: Paddle 3.3 refuses the first call (no kernel for the path it takes) and
    # computes the second, which differs only in an argument
    (lambda c, i: paddle.var(c), lambda c, i: paddle.var(c, unbiased=False)),
    (lambda c, i: paddle.std(c), lambda c, i: paddle.std(c, unbiased=False)),
    (lambda c, i: paddle.split(c, 2, axis=1), lambda c, i: paddle.split(c, [1, 3], axis=1)),
    (lambda c, i: paddle.quantile(i, 0.5),
     lambda c, i: paddle.quantile(i, 0.5, interpolation="lower")),
    (lambda c, i: paddle.nanquantile(i, 0.5),
     lambda c, i: paddle.nanquantile(i, 0.5, interpolation="higher")),
    (lambda c, i: F.l1_loss(i, i), lambda c, i: F.l1_loss(i, i, reduction="sum")),
    (lambda c, i: paddle.linalg.vector_norm(i, axis=1),
     lambda c, i: paddle.linalg.vector_norm(i, axis=[0, 1])),
])
def test_refusals_that_depend_on_the_arguments(refused, computed):
    c = paddle.to_tensor(np.ones((3, 4), np.complex64))
    i = paddle.to_tensor(np.arange(12).reshape(3, 4))
    with pytest.raises(RuntimeError, match="no kernel"):
        refused(c, i)
    computed(c, i)


def test_a_dtype_that_casts_first_lifts_the_check_as_in_paddle():
    # Paddle 3.3 computes cumsum(bool, dtype='int64') (the cast runs before the kernel) but
    # refuses argmax(bool, dtype='int32') (there dtype is the index dtype)
    flags = paddle.to_tensor([[True, False], [True, True]])
    np.testing.assert_array_equal(paddle.cumsum(flags, axis=0, dtype="int64").numpy(),
                                  [[1, 0], [2, 1]])
    assert int(paddle.prod(flags, dtype="int64")) == 0
    assert flags.cumsum(dtype="int64").dtype == paddle.int64
    ints = paddle.to_tensor([[1, 2], [3, 4]])
    assert F.softmax(ints, dtype="float32").dtype == paddle.float32
    with pytest.raises(RuntimeError):
        F.softmax(ints)
    with pytest.raises(RuntimeError):
        paddle.argmax(flags, dtype="int32")
