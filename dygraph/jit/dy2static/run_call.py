"""convert_call: the functions a converted function calls are converted too (as Paddle's
convert_call does), so control flow in a helper or in a user Layer's `forward` works.

Library code (dygraph, NumPy, the standard library, anything installed in site-packages),
builtins, functions marked `_not_to_static` (jit.not_to_static) and what cannot be
converted (no source, lambdas, generators) are called as they are: where such code needs
a Python value of a static tensor it raises, and the caller's conversion reports it as
Dy2StaticUnsupported.

Example:
    >>> import math
    >>> convert_call(math.sqrt) is math.sqrt
    True
"""

import sys
import types

from dygraph.jit.dy2static.errors import Dy2StaticUnsupported

__all__ = ["convert_call"]

_LIBRARIES = {"dygraph", "numpy", "scipy", "paddle", "torch", "onnx", "onnxruntime"}


def _library(func):
    module = (getattr(func, "__module__", None) or "").split(".")[0]
    if module in _LIBRARIES or module in sys.stdlib_module_names:
        return True
    code = getattr(func, "__code__", None)
    filename = code.co_filename if code is not None else ""
    return "site-packages" in filename or "dist-packages" in filename


def _function(func):
    from dygraph.jit.dy2static.convert import convert_to_static

    if _library(func) or hasattr(func, "__dy2static_code__") or getattr(
            func, "_not_to_static", False):
        return func
    try:
        return convert_to_static(func)
    except Dy2StaticUnsupported:
        return func  # called as it is: it may need no conversion


def _layer_call(layer):
    forward = type(layer).forward
    if "forward" in layer.__dict__ or not isinstance(forward, types.FunctionType):
        return layer  # a forward set on the instance (to_static's, say) is kept
    converted = _function(forward)
    if converted is forward:
        return layer

    def call(*args, **kwargs):
        # Layer.__call__ (hooks, build_once) runs as usual around the converted forward.
        layer.__dict__["forward"] = types.MethodType(converted, layer)
        try:
            return layer(*args, **kwargs)
        finally:
            del layer.__dict__["forward"]

    return call


def _range(*args):
    """range(), refusing a free dimension of a static tensor (it would be -1)."""
    from dygraph.jit.dy2static.run_ops import FreeDim

    if any(isinstance(a, FreeDim) for a in args):
        raise Dy2StaticUnsupported("range() over a free (-1) dimension of a static tensor")
    return range(*args)


def convert_call(func):
    """What a call of `func` in a converted function calls (see the module docstring)."""
    from dygraph.nn import Layer

    if func is range:
        return _range
    if isinstance(func, types.FunctionType):
        return _function(func)
    if isinstance(func, types.MethodType) and isinstance(func.__func__, types.FunctionType):
        converted = _function(func.__func__)
        return func if converted is func.__func__ else types.MethodType(converted,
                                                                         func.__self__)
    if isinstance(func, Layer) and not _library(type(func)):
        return _layer_call(func)
    return func
