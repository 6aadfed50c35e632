"""`paddle.autograd.py_layer`: the module path of PyLayer and PyLayerContext in Paddle.

Example:
    >>> from dygraph.autograd.py_layer import PyLayer
    >>> import dygraph.autograd
    >>> PyLayer is dygraph.autograd.PyLayer
    True
"""

from dygraph.autograd.pylayer import PyLayer, PyLayerContext

__all__ = ["PyLayer", "PyLayerContext"]
