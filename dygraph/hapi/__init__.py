"""dygraph.hapi: the high-level API (Paddle's paddle.hapi): `Model`, callbacks, `summary`,
`flops` and `InputSpec`.

Example:
    >>> import dygraph
    >>> dygraph.Model is Model
    True
"""

from dygraph.hapi import callbacks
from dygraph.hapi.model import Model
from dygraph.hapi.summary import flops, summary
from dygraph.static.input_spec import InputSpec

__all__ = ["Model", "callbacks", "summary", "flops", "InputSpec"]
