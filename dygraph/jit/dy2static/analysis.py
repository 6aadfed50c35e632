"""Static analysis of a function's syntax tree for the conversion: which names a block
assigns, whether it has side effects outside its variables, which constructs it contains.

Nested scopes (functions, lambdas, classes) are opaque: their own assignments are theirs.

Example:
    >>> import ast
    >>> body = ast.parse("a = 1\\nb, c = f(a)\\nself.x = a\\nd += 1").body
    >>> assigned_names(body)
    ['a', 'b', 'c', 'd']
    >>> side_effect(body, 'm.py')
    'assignment to `self.x` (m.py:3)'
"""

import ast

from dygraph.jit.dy2static.errors import Dy2StaticUnsupported

__all__ = ["walk_scope", "assigned_names", "side_effect", "contains", "precheck",
           "PLAIN", "mark_plain"]

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
PLAIN = "_dy2static_plain"  # set on nodes the conversion made and keeps as Python


def mark_plain(node):
    setattr(node, PLAIN, True)
    return node


def walk_scope(nodes, skip_plain=False):
    """Every node under `nodes` (a node or a list) outside nested scopes; a nested
    scope's own node is yielded (its name is assigned here), its inside is not."""
    stack = list(nodes) if isinstance(nodes, list) else [nodes]
    while stack:
        node = stack.pop()
        if skip_plain and getattr(node, PLAIN, False):
            continue
        yield node
        if isinstance(node, _SCOPES):
            if isinstance(node, ast.Lambda):
                stack.extend(node.args.defaults + node.args.kw_defaults)
            else:
                stack.extend(node.decorator_list)
            continue
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            stack.append(node.generators[0].iter)  # the rest is the comprehension's scope
            continue
        stack.extend(ast.iter_child_nodes(node))


def assigned_names(stmts):
    """Names bound by `stmts` (in first-seen order)."""
    names = []
    for node in walk_scope(stmts):
        found = []
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found = [node.id]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found = [node.name]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found = [(a.asname or a.name).split(".")[0] for a in node.names]
        elif isinstance(node, ast.ExceptHandler) and node.name:
            found = [node.name]
        names.extend(n for n in found if n not in names)
    return sorted(names)


def _effect_target(target):
    for node in ast.walk(target):
        if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx,
                                                                          ast.Store):
            return node
    return None


def side_effect(stmts, filename):
    """A description of the first side effect outside local variables in `stmts`
    (attribute or item assignment, a call whose value is dropped), or None."""
    for node in walk_scope(stmts):
        what = None
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            hit = next((t for t in map(_effect_target, targets) if t is not None), None)
            if hit is not None:
                what = f"assignment to `{ast.unparse(hit)}`"
        elif isinstance(node, ast.Delete):
            what = f"`del {', '.join(ast.unparse(t) for t in node.targets)}`"
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and not \
                _is_print(node.value):
            what = f"the call `{ast.unparse(node.value)[:60]}` (made for its effect)"
        if what:
            return f"{what} ({filename}:{node.lineno})"
    return None


def _is_print(call):
    func = call.func
    return (isinstance(func, ast.Name) and func.id == "print") or (
        isinstance(func, ast.Attribute) and func.attr == "convert_print")


def contains(stmts, types, stop_at_loops=False):
    """Whether `stmts` contain a node of `types` (not looking into nested loops when
    `stop_at_loops`: a break belongs to its innermost loop)."""
    stack = list(stmts)
    while stack:
        node = stack.pop()
        if isinstance(node, types):
            return True
        if getattr(node, PLAIN, False) or isinstance(node, _SCOPES) or (
                stop_at_loops and isinstance(node, (ast.For, ast.While))):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


_REFUSED = {
    ast.Global: "`global`", ast.Nonlocal: "`nonlocal`", ast.Yield: "`yield` (generator)",
    ast.YieldFrom: "`yield from` (generator)", ast.Await: "`await`",
    ast.AsyncFor: "`async for`", ast.AsyncWith: "`async with`", ast.Match: "`match`",
}


def precheck(fn, filename, in_class):
    """Refuse what the conversion cannot keep exact, naming the construct and line."""
    for node in walk_scope(fn.body):
        where = f"{filename}:{getattr(node, 'lineno', fn.lineno)}"
        for kind, name in _REFUSED.items():
            if isinstance(node, kind):
                raise Dy2StaticUnsupported(name, where)
        if isinstance(node, ast.While) and contains([node.test], ast.NamedExpr):
            raise Dy2StaticUnsupported("`:=` in the condition of a `while`", where)
        if isinstance(node, ast.Delete) and any(isinstance(t, ast.Name)
                                                for t in node.targets):
            raise Dy2StaticUnsupported("`del` of a variable", where)
        ident = getattr(node, "attr", None) or getattr(node, "id", None)
        if in_class and isinstance(ident, str) and ident.startswith("__") and \
                not ident.endswith("__"):
            raise Dy2StaticUnsupported(f"the private name {ident!r} in a method", where,
                                       "Python mangles it by class name")
