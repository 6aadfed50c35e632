"""Helpers shared by the model constructors."""

__all__ = ["check_pretrained", "make_divisible"]


def check_pretrained(pretrained, arch):
    """Refuse `pretrained=True`: DyGraph ships no weights and never downloads them.

    Example:
        >>> check_pretrained(False, "resnet18")
        >>> check_pretrained(True, "resnet18")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        NotImplementedError: resnet18(pretrained=True): ...
    """
    if pretrained:
        raise NotImplementedError(
            f"{arch}(pretrained=True): DyGraph has no pretrained weights and does not "
            f"download them. Build the model with pretrained=False and load your own "
            f"checkpoint: model.set_state_dict(dygraph.load('{arch}.pdparams')).")


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
