"""Switches of dynamic-to-static conversion: enable_to_static, not_to_static, ignore_module,
set_code_level, set_verbosity; and `convert`, the one place tracing asks the AST
converter (dygraph.jit.dy2static, when present) for a function's static form.

Example:
    >>> enable_to_static(False); is_enabled()
    False
    >>> enable_to_static(True); is_enabled()
    True
"""

import importlib
import inspect
import logging
import sys

__all__ = ["enable_to_static", "not_to_static", "ignore_module", "set_code_level",
           "set_verbosity", "is_enabled", "convert", "Unconvertible", "log",
           "ProgramTranslator", "is_ignored"]

_settings = {"enabled": True, "code_level": -1, "code_stdout": False, "verbosity": 0,
             "verbosity_stdout": False}
_ignored_modules = []
logger = logging.getLogger("dygraph.jit")


class Unconvertible(RuntimeError):
    """A function that the AST converter cannot turn into a static form (the message names
    the construct and the line); to_static runs it eagerly instead."""


def enable_to_static(enable_to_static_bool):
    """Turn conversion on or off for every to_static function: off, they run eagerly (for
    debugging with print and pdb).

    Example:
        >>> enable_to_static(False); enable_to_static(True)
    """
    if not isinstance(enable_to_static_bool, bool):
        raise TypeError(f"enable_to_static: expected a bool, got "
                        f"{type(enable_to_static_bool).__name__}")
    _settings["enabled"] = enable_to_static_bool


def is_enabled():
    """Whether to_static functions trace programs (see enable_to_static)."""
    return _settings["enabled"]


def not_to_static(function=None):
    """Mark `function` to stay as written: the converter leaves its code alone, and a
    to_static function calls it as plain Python while tracing.

    Example:
        >>> @not_to_static
        ... def helper(x):
        ...     return x
        >>> helper._not_to_static
        True
    """
    if function is None:
        return not_to_static
    function._not_to_static = True
    return function


def ignore_module(modules):
    """Functions of these modules are never converted (called as plain Python).

    Example:
        >>> import math
        >>> ignore_module([math]); math in ignored_modules()
        True
    """
    for module in modules if isinstance(modules, (list, tuple)) else [modules]:
        if module not in _ignored_modules:
            _ignored_modules.append(module)


def ignored_modules():
    """The modules ignore_module registered."""
    return list(_ignored_modules)


def set_code_level(level=100, also_to_stdout=False):
    """Log the converted code of each function to_static converts (level > 0 turns it on;
    Paddle's levels pick transformer stages, here any positive level logs the final code).

    Example:
        >>> set_code_level(0)
    """
    _settings["code_level"] = int(level)
    _settings["code_stdout"] = bool(also_to_stdout)


def set_verbosity(level=0, also_to_stdout=False):
    """Log what to_static does: 1 traces and fallbacks, 2 also each traced program.

    Example:
        >>> set_verbosity(0)
    """
    _settings["verbosity"] = int(level)
    _settings["verbosity_stdout"] = bool(also_to_stdout)


def log(level, message):
    """Emit `message` when the verbosity is at least `level`."""
    if _settings["verbosity"] >= level:
        logger.info(message)
        if _settings["verbosity_stdout"]:
            print(message, file=sys.stdout)


def is_ignored(function):
    """Whether the converter must leave `function` as written (not_to_static, or a module
    passed to ignore_module); the AST converter asks this for the functions it meets.

    Example:
        >>> is_ignored(not_to_static(lambda x: x))
        True
    """
    if getattr(function, "_not_to_static", False):
        return True
    module = inspect.getmodule(function)
    return module is not None and module in _ignored_modules


def convert(function):
    """The static form of `function` from the AST converter (its tensor `if`/`while` as
    cond/while_loop); `function` itself when there is no converter or it is marked
    not_to_static. Raises Unconvertible for code the converter refuses.

    Example:
        >>> convert(not_to_static(lambda x: x))(3)
        3
    """
    dy2static = _dy2static()
    if dy2static is None or is_ignored(function):
        return function
    try:
        converted = dy2static.convert_to_static(function)
    except dy2static.Dy2StaticUnsupported as exc:
        raise Unconvertible(str(exc)) from None
    if _settings["code_level"] > 0:
        try:
            source = inspect.getsource(converted)
        except (OSError, TypeError):
            source = getattr(converted, "__source__", "<source not available>")
        message = f"to_static: converted code of {function.__qualname__}:\n{source}"
        logger.info(message)
        if _settings["code_stdout"]:
            print(message, file=sys.stdout)
    return converted


def unsupported_errors():
    """The exception types that make to_static fall back to eager for a function."""
    from dygraph.static.program import ValueDependentError

    errors = (ValueDependentError, Unconvertible)
    dy2static = _dy2static()
    return errors if dy2static is None else errors + (dy2static.Dy2StaticUnsupported,)


def _dy2static():
    """The AST converter package, or None where this build has none."""
    try:
        return importlib.import_module("dygraph.jit.dy2static")
    except ModuleNotFoundError as exc:
        if exc.name != "dygraph.jit.dy2static":
            raise
        return None


class ProgramTranslator:
    """The 1.8/2.0 switch object (one instance): `ProgramTranslator().enable(False)` is
    enable_to_static(False).

    Example:
        >>> ProgramTranslator().enable(True); ProgramTranslator.get_instance().enable_to_static
        True
    """

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    @classmethod
    def get_instance(cls):
        return cls()

    def enable(self, enable_to_static_bool):
        enable_to_static(enable_to_static_bool)

    @property
    def enable_to_static(self):
        return is_enabled()
