"""FreeDim: a free (-1) dimension of a static Variable, as `x.shape[i]` gives it.

While a program is built, a free dimension (the batch of `InputSpec([None, 4])`) has no
size yet. `x.shape[i]` returns a FreeDim: it equals -1 where code reads shapes as
specifications (`== -1`, reshape targets, `list(x.shape)`), and it becomes a
runtime value of the program where it meets tensors: `x.sum() / x.shape[0]`, `x -
x.shape[0]`, `paddle.full([1], x.shape[0])` and `x.reshape([x.shape[0], -1])` record ops
that read the size of each run's data. Python cannot hold that value while the program is
built, so `int()`, `float()`, `bool()`, `range()` and comparisons with sizes (`<`, `>`,
`== 3`) of a FreeDim raise ValueDependentError naming the line (to_static then runs the
function eagerly); it never silently becomes -1.

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph import static
    >>> dygraph.enable_static()
    >>> main = static.Program()
    >>> with static.program_guard(main, static.Program()):
    ...     x = static.data('x', [None, 4])
    ...     mean = x.sum() / x.shape[0]
    >>> dygraph.disable_static()
    >>> x.shape[0] == -1, type(x.shape[0]).__name__
    (True, 'FreeDim')
    >>> feed = {'x': np.ones((7, 4), np.float32)}
    >>> static.Executor().run(main, feed=feed, fetch_list=[mean])[0]
    array(4., dtype=float32)
"""

import os
import sys

__all__ = ["FreeDim"]


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _internal():
    """Whether the code using the FreeDim (two frames up: past the dunder method) is
    dygraph's own: its shape logic reads a free dimension as the -1 of a shape spec."""
    return sys._getframe(2).f_code.co_filename.startswith(_PACKAGE)


def _binary(name, reflected=False):
    plain = getattr(int, f"__{'r' if reflected else ''}{name}__")  # a constant name

    def method(self, other):
        if _internal():
            return plain(self, other)
        from dygraph.ops.math import arithmetic as math

        fn = {"add": math.add, "sub": math.subtract, "mul": math.multiply,
              "truediv": math.divide, "floordiv": math.floor_divide}[name]
        tensor = self.tensor()
        return fn(other, tensor) if reflected else fn(tensor, other)

    method.__name__ = f"__{'r' if reflected else ''}{name}__"
    return method


def _refusing(what, plain):
    def method(self, *other):
        if _internal():
            return plain(self, *other)
        raise self._refuse(what(*other))

    return method


class FreeDim(int):
    """-1 for shape arithmetic in Python, a runtime size where it meets tensors (see the
    module docstring). `var` is the Variable, `axis` the dimension."""

    def __new__(cls, var, axis):
        dim = super().__new__(cls, -1)
        dim.var, dim.axis = var, axis
        return dim

    def tensor(self):
        """The size as a 0-D int64 program variable, computed at each run.

        Example:
            >>> import dygraph
            >>> from dygraph import static
            >>> dygraph.enable_static()
            >>> with static.program_guard(static.Program(), static.Program()):
            ...     n = static.data('x', [None, 2]).shape[0].tensor()
            >>> dygraph.disable_static()
            >>> n.shape, n.dtype
            ([], dygraph.int64)
        """
        from dygraph.ops.manipulation.shape import shape_of

        return shape_of(self.var, self.axis)

    def _refuse(self, what):
        from dygraph.framework.errors import user_frame
        from dygraph.static.program import ValueDependentError

        return ValueDependentError(
            f"{what} of dimension {self.axis} of static Variable {self.var.name} (called at "
            f"{user_frame()}): the dimension is free (-1), its size exists only when the "
            "program runs; use it in tensor arithmetic (x / x.shape[0]) or give the "
            "dimension a size in data(...)/InputSpec")

    # Used by dygraph's own shape logic these are int's (-1); from the user's code, a
    # Python value of the size is refused and tensor arithmetic reads it at run time.
    __int__ = _refusing(lambda: "int()", int.__int__)
    __float__ = _refusing(lambda: "float()", int.__float__)
    __index__ = _refusing(lambda: "an index or size (range(), a list length)", int.__index__)
    __bool__ = _refusing(lambda: "bool()", int.__bool__)
    __lt__ = _refusing(lambda o: f"a comparison (< {o})", int.__lt__)
    __le__ = _refusing(lambda o: f"a comparison (<= {o})", int.__le__)
    __gt__ = _refusing(lambda o: f"a comparison (> {o})", int.__gt__)
    __ge__ = _refusing(lambda o: f"a comparison (>= {o})", int.__ge__)

    __add__ = _binary("add")
    __radd__ = _binary("add", reflected=True)
    __sub__ = _binary("sub")
    __rsub__ = _binary("sub", reflected=True)
    __mul__ = _binary("mul")
    __rmul__ = _binary("mul", reflected=True)
    __truediv__ = _binary("truediv")
    __rtruediv__ = _binary("truediv", reflected=True)
    __floordiv__ = _binary("floordiv")
    __rfloordiv__ = _binary("floordiv", reflected=True)

    def __neg__(self):
        return -1 if _internal() else -self.tensor()

    def __hash__(self):
        return hash(-1)

    def __eq__(self, other):
        # == -1 is the test of a shape spec; == another size asks for the run's value
        if isinstance(other, int) and other != -1 and not _internal():
            raise self._refuse(f"== {other}")
        return int.__eq__(self, other)

    def __ne__(self, other):
        if isinstance(other, int) and other != -1 and not _internal():
            raise self._refuse(f"!= {other}")
        return int.__ne__(self, other)

    def __repr__(self):
        return "-1"

    __str__ = __repr__

    def __reduce__(self):  # a copy or pickle of a shape holds the plain -1
        return (int, (-1,))
