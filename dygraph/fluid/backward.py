"""fluid.backward (and paddle.base.backward): gradients of a static program,
`append_backward` and `gradients`, as dygraph.static has them.

Example:
    >>> from dygraph.fluid.backward import append_backward
    >>> import dygraph
    >>> append_backward is dygraph.static.append_backward
    True
"""

from dygraph.static.backward import append_backward, gradients

__all__ = ["append_backward", "gradients"]
