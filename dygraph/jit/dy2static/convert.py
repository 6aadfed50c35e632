"""convert_to_static: read a function's source, rewrite its control flow (exits.py, then
control.py) and compile it back into a function with the same signature, globals, closure
cells and defaults.

The new code is compiled inside a factory function whose parameters are the original's
free variables and `_jst`, so that it refers to them as free variables too; the function
is then rebuilt on the original's very cells (a closure seen later sees later values),
plus one cell holding the run-time module. Line numbers are the original file's.

Example:
    >>> def f(x, n=3):
    ...     while x < n:
    ...         x = x + 1
    ...     return x
    >>> g = convert_to_static(f)
    >>> g(0), g(0, n=5)
    (3, 5)
"""

import ast
import functools
import inspect
import os
import textwrap
import types
import weakref

from dygraph.jit.dy2static import jst
from dygraph.jit.dy2static.analysis import precheck
from dygraph.jit.dy2static.control import ControlPass
from dygraph.jit.dy2static.errors import Dy2StaticUnsupported
from dygraph.jit.dy2static.exits import ExitPass
from dygraph.static import program as _program

__all__ = ["convert_to_static"]

_compiled = weakref.WeakKeyDictionary()  # original code -> (converted code, source)
# Raised where code asks a static Variable for a Python value (jit's ValueDependentError).
_VALUE_ERRORS = tuple(e for e in (getattr(_program, "ValueDependentError", None),) if e)
_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _where(func):
    code = getattr(func, "__code__", None)
    return f"{code.co_filename}:{code.co_firstlineno}" if code else repr(func)


def _parse(func):
    """The FunctionDef of func, at its line numbers in its file."""
    where = _where(func)
    if func.__name__ == "<lambda>":
        raise Dy2StaticUnsupported("a lambda", where, "write it as a def")
    try:
        lines, first = inspect.getsourcelines(func)
    except (OSError, TypeError):
        raise Dy2StaticUnsupported("a function whose source is unavailable", where) from None
    try:
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except SyntaxError:
        raise Dy2StaticUnsupported("a function whose source cannot be parsed alone",
                                   where) from None
    fn = tree.body[0] if tree.body else None
    if isinstance(fn, ast.AsyncFunctionDef):
        raise Dy2StaticUnsupported("an async function", where)
    if not isinstance(fn, ast.FunctionDef) or fn.name != func.__name__:
        raise Dy2StaticUnsupported("a function defined by an expression", where)
    ast.increment_lineno(tree, first - 1)
    fn.decorator_list = []  # to_static itself, among others: applied already
    return fn


def _compile(func, fn, filename):
    """The code object of the converted FunctionDef `fn`."""
    free = list(func.__code__.co_freevars)
    if "_jst" in free or "_jst" in func.__code__.co_varnames:
        raise Dy2StaticUnsupported("a function using the name `_jst`", _where(func))
    # Compiled under another name: in the factory, its own name would be a local of the
    # factory, and a recursive call would find that instead of the global.
    fn.name = "_jst_converted"
    factory = ast.FunctionDef("_jst_factory", ast.arguments(
        posonlyargs=[], args=[ast.arg(n) for n in free + ["_jst"]], vararg=None,
        kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        [fn, ast.Return(ast.Name(fn.name, ast.Load()))], [], None)
    module = ast.fix_missing_locations(ast.Module([ast.copy_location(factory, fn)], []))
    code = compile(module, filename, "exec")
    factory_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    code = next(c for c in factory_code.co_consts if isinstance(c, types.CodeType) and
                c.co_name == fn.name)
    names = {"co_name": func.__code__.co_name}
    if hasattr(code, "co_qualname"):
        names["co_qualname"] = func.__code__.co_qualname
    return code.replace(**names)


def _rebuild(func, fn_code):
    """A function running `fn_code` on func's globals, defaults and closure cells."""
    cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
    cells["_jst"] = types.CellType(jst)
    closure = tuple(cells[n] for n in fn_code.co_freevars)
    new = types.FunctionType(fn_code, func.__globals__, func.__name__, func.__defaults__,
                             closure)
    new.__kwdefaults__ = func.__kwdefaults__
    return new


def _user_line(tb):
    """file:line of the innermost frame outside the dygraph package."""
    where = ""
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if not os.path.abspath(filename).startswith(_PACKAGE + os.sep):
            where = f"{filename}:{tb.tb_lineno}"
        tb = tb.tb_next
    return where


def convert_to_static(func):
    """A function like `func` whose control flow on static tensors builds static control
    flow (see the package docstring); Dy2StaticUnsupported when it cannot be converted.

    Example:
        >>> convert_to_static(len)
        Traceback (most recent call last):
        ...
        dygraph.jit.dy2static.errors.Dy2StaticUnsupported: dy2static: converting \
builtin_function_or_method len is not supported
    """
    if isinstance(func, types.MethodType):
        return types.MethodType(convert_to_static(func.__func__), func.__self__)
    if not isinstance(func, types.FunctionType):
        raise Dy2StaticUnsupported(f"converting {type(func).__name__} "
                                   f"{getattr(func, '__name__', func)}")
    if hasattr(func, "__dy2static_code__"):
        return func  # converted already
    done = func.__dict__.get("__dy2static__")
    if done is not None:
        return done
    compiled = _compiled.get(func.__code__)
    if compiled is None:  # the same code in another closure needs no second conversion
        fn = _parse(func)
        filename = func.__code__.co_filename
        parts = func.__qualname__.split(".")
        precheck(fn, filename, in_class=len(parts) > 1 and parts[-2] != "<locals>")
        fn = ControlPass(filename).visit(ExitPass(filename).run(fn))
        source = ast.unparse(fn)
        compiled = _compiled[func.__code__] = (_compile(func, fn, filename), source)
    new = _rebuild(func, compiled[0])

    @functools.wraps(func)
    def converted(*args, **kwargs):
        try:
            return new(*args, **kwargs)
        except _VALUE_ERRORS as exc:
            raise Dy2StaticUnsupported("Python control flow on a static tensor that was "
                                       "not converted", _user_line(exc.__traceback__),
                                       str(exc)) from exc
        except Dy2StaticUnsupported as exc:
            if exc.where:
                raise
            raise Dy2StaticUnsupported(exc.construct, _user_line(exc.__traceback__),
                                       exc.detail) from None

    converted.__dy2static_code__ = compiled[1]
    func.__dict__["__dy2static__"] = converted
    return converted
