"""`dygraph.autocast`: the torch-style spelling of `auto_cast` that Paddle 3.x exports at
top level (`paddle.autocast(device_type, dtype, enabled)`).

Example:
    >>> import dygraph
    >>> with dygraph.autocast('cpu', dtype='float16'):
    ...     dygraph.is_autocast_enabled()
    True
"""

from dygraph.amp.auto_cast import auto_cast

__all__ = ["autocast"]


def autocast(device_type=None, dtype="float16", enabled=True, cache_enabled=True):
    """auto_cast(enable=enabled, dtype=dtype) at level O1; the device type does not change
    what is computed (every device runs the same ops), and there is no cast cache."""
    name = getattr(dtype, "name", dtype)
    return auto_cast(enable=enabled, dtype=name)
