"""The last pass of the conversion: `if`, `while`, `x if c else y`, `and`/`or`/`not`,
`assert`, `print` and the iterable of a `for` become calls of the run-time module `_jst`,
which decides at run time between plain Python and static control flow; every other call
`f(...)` becomes `_jst.convert_call(f)(...)`, which converts user functions and Layers, and
`x.shape` becomes `_jst.convert_shape(x)` (a free dimension that refuses arithmetic).

An `if` becomes two functions of the variables it assigns, and a call:

    def _jst_true_3(y):
        y = x * 2
        return (y,)
    def _jst_false_3(y):
        y = x - 1
        return (y,)
    (y,) = _jst.convert_ifelse(x > 0, _jst_true_3, _jst_false_3,
                               _jst.load_vars(locals(), ('y',)), ('y',), None, 'f.py:3')

and a `while`, a condition function and a body function of the variables the body assigns.
Nested functions, lambdas and classes are left as they are.

Example:
    >>> import ast
    >>> fn = ast.parse("def f(x):\\n    return x > 0 and x < 3").body[0]
    >>> print(ast.unparse(ControlPass('f.py').visit(fn)))
    def f(x):
        return _jst.convert_and(lambda: x > 0, lambda: x < 3, test=False, where='f.py:2')
"""

import ast
import itertools

from dygraph.jit.dy2static.analysis import PLAIN, assigned_names, contains, side_effect
from dygraph.jit.dy2static.exits import jst_call, name

__all__ = ["ControlPass"]

# Builtins that look at the calling frame: called directly, never through convert_call.
_FRAME_BUILTINS = {"super", "locals", "globals", "vars", "eval", "exec", "dir"}


def _args(names):
    return ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in names], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])


def _tuple(names, store=False):
    return ast.Tuple([name(n, store) for n in names], ast.Store() if store else ast.Load())


def _strings(names):
    return ast.Tuple([ast.Constant(n) for n in names], ast.Load())


def _lambda(expr):
    return ast.Lambda(_args([]), expr)


class ControlPass(ast.NodeTransformer):
    """See the module docstring."""

    def __init__(self, filename):
        self.filename = filename
        self.count = itertools.count()
        self.top = None

    def _where(self, node):
        return ast.Constant(f"{self.filename}:{node.lineno}")

    def _located(self, nodes, like):
        for node in nodes:
            for sub in ast.walk(node):
                if isinstance(sub, (ast.stmt, ast.expr)) and not hasattr(sub, "lineno"):
                    ast.copy_location(sub, like)
        return nodes

    # -- scopes ----------------------------------------------------------------------------
    def visit_FunctionDef(self, node):
        if self.top is not None:
            return node  # a nested function keeps its own Python semantics
        self.top = node
        self.generic_visit(node)
        return node

    def visit_Lambda(self, node):
        return node

    def visit_ClassDef(self, node):
        return node

    # -- statements ------------------------------------------------------------------------
    def visit_If(self, node):
        if getattr(node, PLAIN, False):
            return node
        names = assigned_names(node.body + node.orelse)
        effect = side_effect(node.body + node.orelse, self.filename)
        test = self._test(node.test)
        body = self._block(node.body)
        orelse = self._block(node.orelse)
        k = next(self.count)
        true_fn, false_fn = f"_jst_true_{k}", f"_jst_false_{k}"
        defs = [self._function(true_fn, names, body), self._function(false_fn, names, orelse)]
        call = jst_call("convert_ifelse", [test, name(true_fn), name(false_fn),
                                           self._load(names), _strings(names),
                                           ast.Constant(effect), self._where(node)])
        return self._located(defs + [self._bind(names, call)], node)

    def visit_While(self, node):
        names = assigned_names(node.body)
        effect = side_effect(node.body, self.filename)
        test = self._test(node.test)
        body = self._block(node.body)
        k = next(self.count)
        cond_fn, body_fn = f"_jst_cond_{k}", f"_jst_body_{k}"
        cond_def = ast.FunctionDef(cond_fn, _args(names), [ast.Return(test)], [], None)
        defs = [cond_def, self._function(body_fn, names, body)]
        call = jst_call("convert_while_loop", [name(cond_fn), name(body_fn),
                                               self._load(names), _strings(names),
                                               ast.Constant(effect), self._where(node)])
        return self._located(defs + [self._bind(names, call)], node)

    def visit_For(self, node):
        node.iter = jst_call("convert_iter", [self.visit(node.iter)],
                             {"where": self._where(node)})
        node.target = self.visit(node.target)
        node.body = self._block(node.body)
        node.orelse = self._block(node.orelse)
        return node

    def visit_Assert(self, node):
        msg = _lambda(self.visit(node.msg)) if node.msg is not None else ast.Constant(None)
        call = jst_call("convert_assert", [self._test(node.test), msg, self._where(node)])
        return ast.copy_location(ast.Expr(call), node)

    def _block(self, stmts):
        out = []
        for s in stmts:
            new = self.visit(s)
            out.extend(new if isinstance(new, list) else [new])
        return out or [ast.Pass()]

    def _function(self, fn_name, names, body):
        body = body + [ast.Return(_tuple(names))]
        return ast.FunctionDef(fn_name, _args(names), body, [], None)

    def _load(self, names):
        return jst_call("load_vars", [ast.Call(name("locals"), [], []), _strings(names)])

    @staticmethod
    def _bind(names, call):
        if not names:
            return ast.Expr(call)
        return ast.Assign([_tuple(names, store=True)], call)

    # -- expressions -----------------------------------------------------------------------
    def _test(self, expr):
        """An expression used as a condition: `and`/`or` may then make non-bool tensors
        bool."""
        return self._bool_op(expr, test=True) if isinstance(expr, ast.BoolOp) else \
            self.visit(expr)

    def _bool_op(self, node, test):
        if contains([node], ast.NamedExpr):  # a walrus would bind in the lambda
            self.generic_visit(node)
            return node
        values = [self._test(v) if test else self.visit(v) for v in node.values]
        func = "convert_and" if isinstance(node.op, ast.And) else "convert_or"
        call = jst_call(func, [_lambda(v) for v in values],
                        {"test": ast.Constant(test), "where": self._where(node)})
        return ast.copy_location(call, node)

    def visit_BoolOp(self, node):
        return self._bool_op(node, test=False)

    def visit_UnaryOp(self, node):
        if not isinstance(node.op, ast.Not):
            self.generic_visit(node)
            return node
        call = jst_call("convert_not", [self._test(node.operand)],
                        {"where": self._where(node)})
        return ast.copy_location(call, node)

    def visit_IfExp(self, node):
        call = jst_call("convert_ifexp", [self._test(node.test), _lambda(self.visit(node.body)),
                                          _lambda(self.visit(node.orelse)),
                                          self._where(node)])
        return ast.copy_location(call, node)

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr != "shape" or not isinstance(node.ctx, ast.Load):
            return node
        return ast.copy_location(jst_call("convert_shape", [node.value]), node)

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Name) and func.id == "print":
            node.func = ast.copy_location(
                ast.Attribute(name("_jst"), "convert_print", ast.Load()), func)
        elif not (isinstance(func, ast.Name) and func.id in _FRAME_BUILTINS):
            node.func = ast.copy_location(jst_call("convert_call", [func]), func)
        return node
