"""static.nn's sequence_* builders do what Paddle 3.3's default static mode does: warn that
they are deprecated, then refuse with AssertionError, since they need LoD tensors."""

import inspect

import pytest

import dygraph
from dygraph import static
from dygraph.utils.deprecated import VisibleDeprecationWarning

# Paddle 3.3's signatures (inspect.signature of paddle.static.nn.<name>).
SIGNATURES = {
    "sequence_conv": "(input, num_filters, filter_size=3, filter_stride=1, padding=True, "
                     "padding_start=None, bias_attr=None, param_attr=None, act=None, "
                     "name=None)",
    "sequence_expand": "(x, y, ref_level=-1, name=None)",
    "sequence_first_step": "(input)",
    "sequence_last_step": "(input)",
    "sequence_pool": "(input, pool_type, is_test=False, pad_value=0.0)",
    "sequence_softmax": "(input, use_cudnn=False, name=None)",
}
CALLS = {
    "sequence_conv": lambda x: static.nn.sequence_conv(x, 2),
    "sequence_expand": lambda x: static.nn.sequence_expand(x, x),
    "sequence_first_step": lambda x: static.nn.sequence_first_step(x),
    "sequence_last_step": lambda x: static.nn.sequence_last_step(x),
    "sequence_pool": lambda x: static.nn.sequence_pool(x, "sum"),
    "sequence_softmax": lambda x: static.nn.sequence_softmax(x),
}


@pytest.fixture(autouse=True)
def _dynamic_after():
    yield
    dygraph.disable_static()


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_signature_is_paddles(name):
    assert str(inspect.signature(getattr(static.nn, name))) == SIGNATURES[name]
    assert name in static.nn.__all__


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("mode", ["eager", "static"])
def test_warns_deprecated_then_refuses_for_want_of_lod_tensors(name, mode):
    if mode == "static":
        dygraph.enable_static()
        main = static.Program()
        with static.program_guard(main, static.Program()):
            x = static.data("x", [None, 10])
            _check(name, x)
        assert main.global_block().ops == []
    else:
        _check(name, dygraph.ones([4, 10]))


def _check(name, x):
    with pytest.warns(VisibleDeprecationWarning, match=name if "step" not in name else
                      "sequence_"), pytest.raises(AssertionError) as caught:
        CALLS[name](x)
    message = str(caught.value)
    pooled = name in ("sequence_first_step", "sequence_last_step")
    assert message.startswith(("sequence_pool" if pooled else name) + ": ")
    assert "LoD tensors" in message and "PIR" in message
    assert "test_sequence.py" in message  # names the caller's line
