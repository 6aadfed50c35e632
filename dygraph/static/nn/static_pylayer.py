"""static_pylayer (Paddle's paddle.static.nn.static_pylayer): a function with a gradient of
the user's own in a static program.

`forward_fn(*inputs)` computes the outputs; `backward_fn(*output_grads)` returns the
inputs' gradients, both written with tensor ops. In a program the pair is one op that runs
`forward_fn` on each run's values and, for the gradient, `backward_fn` (a PyLayer run
eagerly inside the op: dygraph.static.eager_call), so the program holds the layer as one
step rather than its ops one by one. Without `backward_fn` the ops of `forward_fn` are
recorded as they are, and no input may need a gradient (as in Paddle).

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph import static
    >>> dygraph.enable_static()
    >>> main = static.Program()
    >>> with static.program_guard(main, static.Program()):
    ...     x = static.data('x', [2]); x.stop_gradient = False
    ...     y = static_pylayer(lambda a: a * 2.0, [x], lambda g: g * 5.0)
    ...     (gx,) = static.gradients([y], [x])
    >>> dygraph.disable_static()
    >>> static.Executor().run(main, feed={'x': np.ones(2, np.float32)}, fetch_list=[y, gx])
    [array([2., 2.], dtype=float32), array([5., 5.], dtype=float32)]
"""

from dygraph.autograd import grad_mode

__all__ = ["static_pylayer"]


def _layer(forward_fn, backward_fn):
    """A PyLayer made of the two functions."""
    from dygraph.autograd.py_layer import PyLayer

    class StaticPyLayer(PyLayer):
        @staticmethod
        def forward(ctx, *inputs):
            out = forward_fn(*inputs)
            return tuple(out) if isinstance(out, list) else out

        @staticmethod
        def backward(ctx, *grads):
            out = backward_fn(*grads)
            return tuple(out) if isinstance(out, list) else out

    return StaticPyLayer


def static_pylayer(forward_fn, inputs, backward_fn=None, name=None):
    """forward_fn(*inputs), whose gradient is backward_fn(*output_grads) (see the module
    docstring)."""
    from dygraph.static.eager_call import capture_call

    if grad_mode.state.static_program is None:
        raise AssertionError("please use PyLayer instead of static_pylayer in dygraph mode")
    if not isinstance(inputs, list):
        raise AssertionError("static_pylayer: inputs must be a list")
    if not callable(forward_fn):
        raise ValueError("`forward_fn` should be callable")
    if backward_fn is None:
        for x in inputs:
            if getattr(x, "stop_gradient", True) is False:
                raise ValueError(f"``stop_gradient`` attr of all inputs to ``forward_fn`` are "
                                 f"expected to be True, when ``backward_fn == None``, but "
                                 f"{x.name}.stop_gradient got False")
        return forward_fn(*inputs)
    if not callable(backward_fn):
        raise ValueError("`backward_fn` should be callable")
    layer = _layer(forward_fn, backward_fn)

    def run(inputs):
        return layer.apply(*inputs)

    out = capture_call(run, (list(inputs),), {}, always=True)
    return list(out) if isinstance(out, tuple) else out
