"""Shared checks of the text datasets."""

from dygraph.vision.datasets.download import fetch_file

__all__ = ["check_choice", "fetch_file"]


def check_choice(owner, name, value, choices, normalise=str.lower):
    """`value` normalised, or ValueError listing the accepted values.

    Example:
        >>> check_choice('Imdb', 'mode', 'TRAIN', ('train', 'test'))
        'train'
    """
    normalised = normalise(str(value))
    if normalised not in choices:
        raise ValueError(f"{owner}: {name} should be one of {list(choices)}, but got "
                         f"{value!r}")
    return normalised
