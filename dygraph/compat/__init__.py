"""dygraph.compat: Paddle's `paddle.compat` switch that lets `import torch` give the
framework (dygraph/compat/proxy.py); `paddle.enable_compat` / `paddle.disable_compat` are
`enable_torch_proxy` / `disable_torch_proxy`. Paddle's torch-semantics functions of
`paddle.compat` (equal, sort, split, min, max, unique, median, ...) are not here.

Example:
    >>> import dygraph.compat
    >>> with dygraph.compat.use_torch_proxy_guard():
    ...     import torch
    ...     print(torch.__name__)
    torch
"""

from dygraph.compat.proxy import (
    disable_torch_proxy,
    enable_torch_proxy,
    extend_torch_proxy_blocked_modules,
    use_torch_proxy_guard,
)

__all__ = ["enable_torch_proxy", "disable_torch_proxy", "use_torch_proxy_guard",
           "extend_torch_proxy_blocked_modules"]
