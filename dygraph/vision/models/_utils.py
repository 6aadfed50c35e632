"""Helpers shared by the model constructors: the pretrained-weights rule, MobileNet's
channel rounding and the conv + norm + activation block."""

import os

from dygraph import nn

__all__ = ["check_pretrained", "build_model", "make_divisible", "ConvNormActivation"]


def _is_path(pretrained):
    return isinstance(pretrained, (str, os.PathLike))


def check_pretrained(pretrained, arch):
    """Refuse `pretrained=True`: DyGraph ships no weights and never downloads them. A path
    to a local `.pdparams` file is accepted (see `build_model`).

    Example:
        >>> check_pretrained(False, "resnet18")
        >>> check_pretrained(True, "resnet18")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        NotImplementedError: resnet18(pretrained=True): ...
    """
    if pretrained and not _is_path(pretrained):
        raise NotImplementedError(
            f"{arch}(pretrained=True): DyGraph has no pretrained weights and does not "
            f"download them. Pass the path of a local weights file as pretrained= "
            f"(e.g. Paddle's {arch}.pdparams), or build the model with pretrained=False "
            f"and load your own checkpoint: "
            f"model.set_state_dict(dygraph.load('{arch}.pdparams')).")


def build_model(arch, pretrained, make):
    """`make()` after `check_pretrained`; when `pretrained` is a path, its state dict is
    loaded into the model (a missing file raises FileNotFoundError).

    Example:
        >>> build_model("tiny", False, lambda: nn.Linear(2, 3)).weight.shape
        [2, 3]
    """
    check_pretrained(pretrained, arch)
    model = make()
    if _is_path(pretrained):
        import dygraph

        if not os.path.exists(pretrained):
            raise FileNotFoundError(f"{arch}: pretrained weights file {str(pretrained)!r} "
                                    f"does not exist")
        model.set_state_dict(dygraph.load(str(pretrained)))
    return model


def make_divisible(value, divisor=8, min_value=None):
    """Round a channel count to the nearest multiple of `divisor`, never going below 90%
    of `value` (MobileNet's rule for scaled widths).

    Example:
        >>> make_divisible(32 * 0.75), make_divisible(1280 * 1.4)
        (24, 1792)
    """
    min_value = divisor if min_value is None else min_value
    rounded = max(min_value, int(value + divisor / 2) // divisor * divisor)
    if rounded < 0.9 * value:
        rounded += divisor
    return rounded


class ConvNormActivation(nn.Sequential):
    """Conv2D, then `norm_layer` (batch norm by default; the convolution then has no bias)
    and `activation_layer` (ReLU by default; None for none), as `paddle.vision.ops`'s.
    `padding` defaults to "same" for odd kernels.

    Example:
        >>> import dygraph
        >>> ConvNormActivation(3, 8, 3, stride=2)(dygraph.rand([1, 3, 8, 8])).shape
        [1, 8, 4, 4]
    """

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None,
                 groups=1, norm_layer=nn.BatchNorm2D, activation_layer=nn.ReLU, dilation=1,
                 bias=None):
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers = [nn.Conv2D(in_channels, out_channels, kernel_size, stride, padding,
                            dilation=dilation, groups=groups,
                            bias_attr=None if bias else False)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer())
        super().__init__(*layers)
