"""Dy2StaticUnsupported: code that the dynamic-to-static conversion cannot turn into a
static program. `to_static` catches it and runs the function eagerly, with a warning that
carries this message (the construct and its file:line).

Example:
    >>> err = Dy2StaticUnsupported("`yield`", "model.py:12")
    >>> str(err)
    'dy2static: `yield` is not supported (model.py:12)'
"""

__all__ = ["Dy2StaticUnsupported", "Undefined"]


class Dy2StaticUnsupported(NotImplementedError):
    """A construct the conversion cannot express; `construct` and `where` (file:line)."""

    def __init__(self, construct, where="", detail=""):
        self.construct, self.where, self.detail = construct, where, detail
        text = f"dy2static: {construct} is not supported"
        if detail:
            text += f": {detail}"
        if where:
            text += f" ({where})"
        super().__init__(text)


def _refuse(self, *args, **kwargs):
    raise self.error()


class Undefined:
    """Stands for a variable with no value: not yet assigned (using it raises NameError,
    as Python would), or assigned in only one branch of an `if` on a static tensor (using it
    raises Dy2StaticUnsupported)."""

    __slots__ = ("name", "where")

    def __init__(self, name, where=None):
        self.name, self.where = name, where

    def error(self):
        if self.where is None:
            return NameError(f"local variable {self.name!r} is used before it is assigned")
        return Dy2StaticUnsupported(
            f"using {self.name!r} after a tensor-dependent `if`/`while`", self.where,
            "it is assigned on only some paths (in one branch only, or only inside the "
            "loop); assign it before")

    def __getattr__(self, attr):
        raise self.error()

    def __repr__(self):
        return f"<undefined {self.name}>"

    __hash__ = object.__hash__


for _name in ("bool", "call", "iter", "len", "getitem", "setitem", "array", "index", "int",
              "float", "neg", "pos", "abs", "invert", "eq", "ne", "lt", "le", "gt", "ge",
              "add", "radd", "sub", "rsub", "mul", "rmul", "truediv", "rtruediv", "floordiv",
              "rfloordiv", "mod", "rmod", "pow", "rpow", "matmul", "rmatmul", "and", "rand",
              "or", "ror", "xor", "rxor"):
    setattr(Undefined, f"__{_name}__", _refuse)
