"""First passes of the conversion, on the syntax tree: `for i in range(...)` becomes a
`while`, and `return`, `break` and `continue` become flag variables (as Paddle's
dygraph_to_static does), so that every `if` and loop body can become a function.

- `return v` sets `_jst_rf = True; _jst_rv = v`; the statements after it (in its block and
  the enclosing ones) run under `if not _jst_rf:`, loops around it stop on the flag, and the
  function ends with one `return`.
- `break` sets the loop's break flag, which the loop's condition checks; `continue` sets a
  flag reset at the start of each iteration; the rest of the body is guarded by both.
  A loop's `else:` runs when the break flag is unset.

Example:
    >>> import ast
    >>> fn = ast.parse("def f(x):\\n    for i in range(x):\\n        if i > 2:\\n"
    ...                "            break\\n    return i").body[0]
    >>> print(ast.unparse(ast.fix_missing_locations(ExitPass('f.py').run(fn))))
    def f(x):
        _jst_i_0, _jst_stop_0, _jst_step_0 = _jst.range_args(x, where='f.py:2')
        _jst_brk_1 = False
        while not _jst_brk_1 and _jst.range_cond(_jst_i_0, _jst_stop_0, _jst_step_0):
            i = _jst_i_0
            _jst_i_0 = _jst_i_0 + _jst_step_0
            if i > 2:
                _jst_brk_1 = True
        return i
"""

import ast
import itertools

from dygraph.jit.dy2static.analysis import PLAIN, assigned_names, contains, mark_plain

__all__ = ["ExitPass", "name", "jst_call", "assign"]

RETURN_FLAG, RETURN_VALUE = "_jst_rf", "_jst_rv"


def name(ident, store=False):
    return ast.Name(ident, ast.Store() if store else ast.Load())


def jst_call(func, args, keywords=None):
    """`_jst.func(*args, **keywords)`."""
    return ast.Call(ast.Attribute(name("_jst"), func, ast.Load()), args,
                    [ast.keyword(k, v) for k, v in (keywords or {}).items()])


def assign(target, value):
    return ast.Assign([name(target, True)], value)


def _not(*flags):
    test = name(flags[0]) if len(flags) == 1 else ast.BoolOp(ast.Or(),
                                                              [name(f) for f in flags])
    return ast.UnaryOp(ast.Not(), test)


def _located(nodes, like):
    """Give the new nodes (not the old ones they hold) the position of `like`."""
    for node in nodes:
        for sub in ast.walk(node):
            if isinstance(sub, (ast.stmt, ast.expr)) and not hasattr(sub, "lineno"):
                ast.copy_location(sub, like)
    return nodes


class ExitPass:
    """Runs the rewrites of the module docstring on one FunctionDef."""

    def __init__(self, filename):
        self.filename = filename
        self.count = itertools.count()

    def run(self, fn):
        fn.body = self._ranges(fn.body)
        if any(not isinstance(s, ast.Return) and contains([s], ast.Return)
               for s in fn.body):
            fn.body = self._returns_function(fn.body)
        fn.body = self._loops(fn.body)
        return ast.fix_missing_locations(fn)

    # -- for i in range(...) -> while ----------------------------------------------------
    def _ranges(self, stmts):
        out = []
        for s in stmts:
            for field in ("body", "orelse", "finalbody"):
                if isinstance(getattr(s, field, None), list):
                    setattr(s, field, self._ranges(getattr(s, field)))
            for handler in getattr(s, "handlers", []):
                handler.body = self._ranges(handler.body)
            out.extend(self._range_loop(s) if self._is_range(s) else [s])
        return out

    @staticmethod
    def _is_range(s):
        it = getattr(s, "iter", None)
        return (isinstance(s, ast.For) and isinstance(s.target, ast.Name) and
                isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and
                it.func.id == "range" and not it.keywords and 1 <= len(it.args) <= 3 and
                not any(isinstance(a, ast.Starred) for a in it.args))

    def _range_loop(self, s):
        k = next(self.count)
        i, stop, step = f"_jst_i_{k}", f"_jst_stop_{k}", f"_jst_step_{k}"
        where = ast.Constant(f"{self.filename}:{s.lineno}")
        start = ast.Assign([ast.Tuple([name(i, True), name(stop, True), name(step, True)],
                                      ast.Store())],
                           jst_call("range_args", s.iter.args, {"where": where}))
        head = [ast.Assign([s.target], name(i)),
                assign(i, ast.BinOp(name(i), ast.Add(), name(step)))]
        loop = ast.While(jst_call("range_cond", [name(i), name(stop), name(step)]),
                         head + s.body, s.orelse)
        return _located([start, loop], s)

    # -- return --------------------------------------------------------------------------
    def _returns_function(self, body):
        if not isinstance(body[-1], ast.Return):
            body = body + [ast.copy_location(ast.Return(None), body[-1])]
        start = [assign(RETURN_FLAG, ast.Constant(False)),
                 assign(RETURN_VALUE, jst_call_attr("RETURN_UNSET"))]
        end = ast.Return(jst_call("return_value", [name(RETURN_VALUE)]))
        return _located(start, body[0]) + self._returns(body) + _located([end], body[-1])

    def _returns(self, stmts):
        out = []
        for k, s in enumerate(stmts):
            if isinstance(s, ast.Return):
                value = s.value if s.value is not None else ast.Constant(None)
                return out + _located([assign(RETURN_FLAG, ast.Constant(True)),
                                       assign(RETURN_VALUE, value)], s)
            if not contains([s], ast.Return):
                out.append(s)
                continue
            out.append(self._returns_inside(s))
            rest = self._returns(stmts[k + 1:])
            if rest:
                out.append(_located([ast.If(_not(RETURN_FLAG), rest, [])], stmts[k + 1])[0])
            return out
        return out

    def _returns_inside(self, s):
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(s, field, None), list):
                setattr(s, field, self._returns(getattr(s, field)))
        for handler in getattr(s, "handlers", []):
            handler.body = self._returns(handler.body)
        if isinstance(s, ast.While):
            s.test = ast.BoolOp(ast.And(), [_not(RETURN_FLAG), s.test])
        elif isinstance(s, ast.For):
            s.body.append(self._plain_break(RETURN_FLAG, s))
        return s

    @staticmethod
    def _plain_break(flag, like):
        """`if flag: break`, left as Python (a static flag then refuses to convert)."""
        return _located([mark_plain(ast.If(name(flag), [ast.Break()], []))], like)[0]

    # -- break / continue ----------------------------------------------------------------
    def _loops(self, stmts):
        out = []
        for s in stmts:
            if isinstance(s, (ast.While, ast.For)):
                out.extend(self._loop(s))
                continue
            for field in ("body", "orelse", "finalbody"):
                if isinstance(getattr(s, field, None), list):
                    setattr(s, field, self._loops(getattr(s, field)))
            for handler in getattr(s, "handlers", []):
                handler.body = self._loops(handler.body)
            out.append(s)
        return out

    def _loop(self, loop):
        loop.body = self._loops(loop.body)
        loop.orelse = self._loops(loop.orelse)
        has_break = contains(loop.body, ast.Break, stop_at_loops=True)
        has_continue = contains(loop.body, ast.Continue, stop_at_loops=True)
        # `else:` runs when the loop ends by its condition: not by a break, nor a return.
        exits = [RETURN_FLAG] if RETURN_FLAG in assigned_names(loop.body) else []
        if not (has_break or has_continue):
            post = self._else(loop, exits) if loop.orelse else []
            return [self._drop_else(loop)] + post
        k = next(self.count)
        brk, cont = f"_jst_brk_{k}", f"_jst_cont_{k}"
        # A `return`'s plain `if _jst_rf: break` ends the body: it stays out of the guards.
        cut = len(loop.body)
        while cut and getattr(loop.body[cut - 1], PLAIN, False):
            cut -= 1
        loop.body = self._flagged(loop.body[:cut], brk, cont) + loop.body[cut:]
        pre, post = [], []
        if has_continue:
            loop.body.insert(0, _located([assign(cont, ast.Constant(False))], loop)[0])
        if has_break:
            pre = _located([assign(brk, ast.Constant(False))], loop)
            if isinstance(loop, ast.While):
                loop.test = ast.BoolOp(ast.And(), [_not(brk), loop.test])
            else:
                loop.body.append(self._plain_break(brk, loop))
        if loop.orelse:
            post = self._else(loop, ([brk] if has_break else []) + exits)
        return pre + [self._drop_else(loop)] + post

    @staticmethod
    def _else(loop, flags):
        """The loop's `else:` block, after the loop, under `if not (flags)`."""
        if not flags:
            return loop.orelse
        return _located([ast.If(_not(*flags), loop.orelse, [])], loop.orelse[0])

    @staticmethod
    def _drop_else(loop):
        loop.orelse = []
        return loop

    def _flagged(self, stmts, brk, cont):
        out = []
        for k, s in enumerate(stmts):
            if isinstance(s, (ast.Break, ast.Continue)):
                flag = brk if isinstance(s, ast.Break) else cont
                return out + _located([assign(flag, ast.Constant(True))], s)
            sets = [f for f, kind in ((brk, ast.Break), (cont, ast.Continue))
                    if contains([s], kind, stop_at_loops=True)]
            if not sets or isinstance(s, (ast.While, ast.For)):
                out.append(s)
                continue
            for field in ("body", "orelse", "finalbody"):
                if isinstance(getattr(s, field, None), list):
                    setattr(s, field, self._flagged(getattr(s, field), brk, cont))
            for handler in getattr(s, "handlers", []):
                handler.body = self._flagged(handler.body, brk, cont)
            out.append(s)
            rest = self._flagged(stmts[k + 1:], brk, cont)
            if rest:
                out.append(_located([ast.If(_not(*sets), rest, [])], stmts[k + 1])[0])
            return out
        return out


def jst_call_attr(attr):
    """`_jst.attr` (a constant of the run-time module)."""
    return ast.Attribute(name("_jst"), attr, ast.Load())
