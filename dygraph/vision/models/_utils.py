"""Helpers shared by the model constructors: the pretrained-weights rule, MobileNet's
channel rounding and the conv + norm + activation block."""

import os

from dygraph import nn

__all__ = ["check_pretrained", "build_model", "load_weights", "make_divisible",
           "ConvNormActivation"]


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
    """`make()` after `check_pretrained`; when `pretrained` is a path, its weights are
    loaded into the model (see `load_weights`; a missing file raises FileNotFoundError).

    Example:
        >>> build_model("tiny", False, lambda: nn.Linear(2, 3)).weight.shape
        [2, 3]
    """
    check_pretrained(pretrained, arch)
    model = make()
    if _is_path(pretrained):
        model.set_state_dict(load_weights(str(pretrained), arch))
    return model


def load_weights(path, arch="model"):
    """The state dict in a weights file: a DyGraph checkpoint, or PaddlePaddle's own
    `.pdparams` (a pickle of name -> array, read with the restricted unpickler of
    `vision.datasets.safe_pickle`, which refuses anything but plain data, so the file
    cannot run code).

    Example:
        >>> import os, pickle, tempfile
        >>> import numpy as np
        >>> path = os.path.join(tempfile.mkdtemp(), 'w.pdparams')
        >>> with open(path, 'wb') as f:
        ...     pickle.dump({'weight': np.ones((2, 3), np.float32)}, f)
        >>> load_weights(path)['weight'].shape
        (2, 3)
    """
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{arch}: pretrained weights file {path!r} does not exist")
    with open(path, "rb") as f:
        start = f.read(2)
    if start[:1] == b"\x80" and len(start) == 2 and 2 <= start[1] <= 5:
        from dygraph.vision.datasets.safe_pickle import safe_load

        with open(path, "rb") as f:
            state = safe_load(f, encoding="latin1")
        if not isinstance(state, dict):
            raise ValueError(f"{arch}: {path} holds a {type(state).__name__}, not a state "
                             f"dict of arrays")
        # Older Paddle versions store a name map under this key; it is not a weight.
        state.pop("StructuredToParameterName@@", None)
        return state
    import dygraph

    return dygraph.load(path)


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
