"""dygraph.jit.dy2static: turn a function's Python control flow on tensors into static
control flow (Paddle's dygraph_to_static AST transformer), for `jit.to_static`.

`convert_to_static(func)` returns a function with the same signature whose `if`, `while`,
`for i in range(...)`, `break`/`continue`/`return`, `and`/`or`/`not`, `x if c else y` and
`print` decide at run time: on Python values and eager tensors they run as plain Python;
on static program Variables they build `cond`, `while_loop`, logical ops and print ops.
What cannot be converted exactly raises `Dy2StaticUnsupported` (construct and file:line).

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph import static
    >>> def f(x):
    ...     if x.sum() > 0:
    ...         y = x * 2
    ...     else:
    ...         y = -x
    ...     return y
    >>> g = convert_to_static(f)
    >>> g(dygraph.to_tensor([-1.0, -2.0])).tolist()
    [1.0, 2.0]
    >>> dygraph.enable_static()
    >>> main = static.Program()
    >>> with static.program_guard(main, static.Program()):
    ...     out = g(static.data('x', [2]))
    >>> dygraph.disable_static()
    >>> exe = static.Executor()
    >>> [exe.run(main, feed={'x': np.array(v, np.float32)}, fetch_list=[out])[0].tolist()
    ...  for v in ([1, 2], [-1, -2])]
    [[2.0, 4.0], [1.0, 2.0]]
"""

from dygraph.jit.dy2static.convert import convert_to_static
from dygraph.jit.dy2static.errors import Dy2StaticUnsupported

__all__ = ["convert_to_static", "Dy2StaticUnsupported"]
