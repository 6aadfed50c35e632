"""fluid.PyLayer (1.4): NumPy forward/backward as an autograd op."""

import numpy as np
import pytest

import dygraph.fluid as fluid


class Tanh(fluid.PyLayer):
    @staticmethod
    def forward(inputs):
        return np.tanh(inputs[0])

    @staticmethod
    def backward(inputs):
        inp, out, dout = inputs
        return np.array(dout) * (1 - np.square(np.array(out)))


class MulAndSum(fluid.dygraph.PyLayer):
    """Two inputs, two outputs: (a * b, a + b)."""

    @staticmethod
    def forward(inputs):
        a, b = inputs
        return a * b, a + b

    @staticmethod
    def backward(inputs):
        a, b, _, _, d_prod, d_sum = inputs
        return d_prod * b + d_sum, d_prod * a + d_sum


def test_tanh_matches_the_builtin_op():
    x = np.array([[-1.0, 0.5], [2.0, 0.0]], np.float32)
    with fluid.dygraph.guard():
        var = fluid.dygraph.to_variable(x)
        outs = Tanh()(var)
        assert isinstance(outs, list) and len(outs) == 1
        fluid.layers.reduce_sum(outs[0] * 3.0).backward()
        np.testing.assert_allclose(outs[0].numpy(), np.tanh(x), rtol=1e-6)
        np.testing.assert_allclose(var.gradient(), 3 * (1 - np.tanh(x) ** 2), rtol=1e-6)
    assert fluid.PyLayer is fluid.dygraph.PyLayer


def test_several_inputs_and_outputs():
    with fluid.dygraph.guard():
        a = fluid.dygraph.to_variable(np.array([2.0, 3.0], np.float32))
        b = fluid.dygraph.to_variable(np.array([5.0, 7.0], np.float32))
        prod, total = MulAndSum()(a, b)
        fluid.layers.reduce_sum(prod * 2.0 + total).backward()
        np.testing.assert_array_equal(prod.numpy(), [10.0, 21.0])
        np.testing.assert_array_equal(a.gradient(), [11.0, 15.0])
        np.testing.assert_array_equal(b.gradient(), [5.0, 7.0])


def test_backward_with_the_wrong_number_of_gradients_raises():
    class Broken(fluid.PyLayer):
        @staticmethod
        def forward(inputs):
            return inputs[0] + inputs[1]

        @staticmethod
        def backward(inputs):
            return inputs[-1]

    with fluid.dygraph.guard():
        a = fluid.dygraph.to_variable(np.ones([2], np.float32))
        out = Broken()(a, a * 2.0)[0]
        with pytest.raises(ValueError, match="1 gradient"):
            fluid.layers.reduce_sum(out).backward()


def test_base_class_needs_forward():
    with pytest.raises(NotImplementedError):
        fluid.PyLayer()(np.ones([1], np.float32))
