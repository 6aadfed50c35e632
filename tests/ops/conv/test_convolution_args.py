"""Argument checks of the convolutions (dygraph/ops/conv/convolution.py) that Paddle 3.3
shares: a weight without output channels is refused (a transposed conv's may be empty)."""

import pytest

import dygraph
import dygraph.nn.functional as F


@pytest.mark.parametrize("conv, d", [(F.conv1d, 1), (F.conv2d, 2), (F.conv3d, 3)])
def test_weight_without_output_channels_is_refused(conv, d):
    x = dygraph.ones([2, 3] + [6] * d)
    with pytest.raises(ValueError, match=f"conv{d}d: weight must have at least one output"):
        conv(x, dygraph.ones([0, 3] + [3] * d))
    assert conv(x[:0], dygraph.ones([4, 3] + [3] * d)).shape == [0, 4] + [4] * d


def test_transposed_conv_may_have_no_output_channels():
    y = F.conv2d_transpose(dygraph.ones([2, 3, 6, 6]), dygraph.ones([3, 0, 3, 3]))
    assert y.shape == [2, 0, 8, 8]
