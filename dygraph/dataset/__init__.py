"""The 1.x dataset readers (`paddle.dataset`): `dygraph.dataset.mnist.train()` and `test()`.

Example:
    >>> import dygraph
    >>> callable(dygraph.dataset.mnist.train())
    True
"""

from dygraph.dataset import mnist

__all__ = ["mnist"]
