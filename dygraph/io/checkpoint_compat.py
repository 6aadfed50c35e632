"""Paddle's conventions around `save`/`load` that are not the file format itself: the
deprecated `pickle_protocol` config, the error for a missing file, and Paddle 2.1's
`(name, ndarray)` tuple, which `paddle.load` turns back into a named Tensor.

Example:
    >>> import numpy as np
    >>> is_named_array(["w", np.ones(2)], ["str", "ndarray"])
    True
"""

import os
import warnings

import numpy as np

__all__ = ["CheckpointNotFoundError", "check_exists", "is_named_array",
           "protocol_from_configs"]


class CheckpointNotFoundError(FileNotFoundError, ValueError):
    """`load` of a path that does not exist: Paddle raises ValueError, Python code expects
    FileNotFoundError; this is both."""


def check_exists(path, api):
    """Raise CheckpointNotFoundError when `path` does not exist."""
    if not os.path.exists(path):
        raise CheckpointNotFoundError(2, f"{api}: the path to load does not exist", path)


def protocol_from_configs(protocol, configs):
    """`pickle_protocol=` (deprecated in Paddle for `protocol`) wins when given; it is
    popped from `configs` so the remaining configs can be checked."""
    pickle_protocol = configs.pop("pickle_protocol", None)
    if pickle_protocol is None:
        return protocol
    warnings.warn("dygraph.save: 'pickle_protocol' is deprecated, use 'protocol' (both are "
                  "only checked: the format has no pickle)", DeprecationWarning, stacklevel=3)
    return pickle_protocol


def is_named_array(items, kinds):
    """Whether decoded tuple `items` (with the saved `kinds` of its entries) is Paddle
    2.1's form of a Tensor: (name, ndarray), the ndarray saved as one (not a Tensor)."""
    return len(items) == 2 and isinstance(items[0], str) and kinds[1] == "ndarray" \
        and isinstance(items[1], np.ndarray)

