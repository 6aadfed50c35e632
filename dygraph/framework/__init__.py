"""Framework-wide pieces: dtypes, places, randomness, flags and error formatting.

As `paddle.framework`, it also offers ParamAttr and a few top-level names (places, default
dtype, seed, save/load, grad, no_grad, flags, the mode switches), loaded on first use (the
nn package imports this one).

Example:
    >>> import dygraph
    >>> dygraph.framework.get_default_dtype() == dygraph.get_default_dtype()
    True
"""

_TOP_LEVEL = {"CPUPlace", "CUDAPlace", "CUDAPinnedPlace", "get_default_dtype",
              "set_default_dtype", "seed", "save", "load", "grad", "no_grad", "dtype",
              "set_flags", "get_flags", "in_dynamic_mode", "enable_static", "disable_static"}


def in_pir_mode():
    """Whether static mode is on: Paddle 3's static programs are PIR programs, whose
    conventions DyGraph's programs follow (list shapes, value semantics), so code that
    branches on `in_pir_mode()` takes its static path here.

    Example:
        >>> import dygraph
        >>> dygraph.framework.in_pir_mode()
        False
        >>> dygraph.enable_static(); dygraph.framework.in_pir_mode()
        True
        >>> dygraph.disable_static()
    """
    import dygraph

    return not dygraph.in_dynamic_mode()


def __getattr__(name):
    if name == "ParamAttr":
        from dygraph.nn.param_attr import ParamAttr

        return ParamAttr
    if name in _TOP_LEVEL:
        import dygraph

        if hasattr(dygraph, name):
            return getattr(dygraph, name)
    raise AttributeError(f"module 'dygraph.framework' has no attribute {name!r}")
