"""einsum: Einstein summation with a gradient that is itself an einsum.

The user's equation is first rewritten into an explicit one: every '...' becomes letters,
implicit output is spelled out, and a size-1 dimension that broadcasts against a larger one
gets a letter private to its operand. After that rewrite each letter has one size, so the
gradient of operand k is one einsum of the output gradient and the other operands onto
operand k's subscripts; repeated letters (a diagonal) are restored with identity matrices
and letters found nowhere else (a sum) with vectors of ones. Because the gradient is an
einsum again, double backward needs nothing more.
"""

import functools
import string

import numpy as np

from dygraph.autograd.backward_math import register
from dygraph.autograd.function import Op, apply
from dygraph.framework.errors import op_error
from dygraph.ops.common import as_tensor, cast, promote_dtype
from dygraph.ops.linalg.common import constant, xp_of

__all__ = ["einsum"]

_LETTERS = string.ascii_letters
# Below this many multiply-adds NumPy's C einsum beats the optimised (BLAS) path, whose
# planning has a fixed cost per call (figures: docs/PERFORMANCE.md#small-ops-and-reductions).
_OPTIMIZE_MIN_WORK = 4096


def _split_term(term, ndim, op_index, equation):
    """A term like 'ab...c' -> (letters before '...', letters after, or None if no '...')."""
    if term.count("...") > 1 or "." in term.replace("...", ""):
        raise op_error("einsum", f"term '{term}' of equation '{equation}' has a malformed "
                       "ellipsis; use at most one '...'")
    bad = [c for c in term.replace("...", "") if c not in _LETTERS]
    if bad:
        raise op_error("einsum", f"equation '{equation}' uses {bad!r}; subscripts must be "
                       "letters a-z, A-Z or '...'")
    if "..." not in term:
        if len(term) != ndim:
            raise op_error("einsum", f"operand {op_index} has {ndim} dimension(s) but its "
                           f"subscripts '{term}' in '{equation}' name {len(term)}")
        return term, "", None
    head, tail = term.split("...")
    n_ell = ndim - len(head) - len(tail)
    if n_ell < 0:
        raise op_error("einsum", f"operand {op_index} has {ndim} dimension(s), fewer than "
                       f"its subscripts '{term}' in '{equation}' name")
    return head, tail, n_ell


@functools.lru_cache(maxsize=512)
def parse(equation, shapes):
    """Rewrite `equation` for operands of `shapes` into explicit subscripts.

    Returns (input subscripts, output subscripts, {letter: size}, use_optimize).
    """
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise op_error("einsum", f"equation '{equation}' has {len(terms)} operand term(s) "
                       f"but {len(shapes)} operand(s) were given")
    split = [_split_term(t, len(s), i, equation) for i, (t, s) in enumerate(zip(terms, shapes))]
    used = set(eq)
    n_ell = max([s[2] for s in split if s[2] is not None], default=0)
    free = iter(c for c in _LETTERS if c not in used)
    ell = "".join(next(free) for _ in range(n_ell))
    subs = [head + (ell[n_ell - k:] if k else "") + tail for head, tail, k in split]

    for k, (sub, shape) in enumerate(zip(subs, shapes)):
        for c in set(sub):
            dims = {n for ch, n in zip(sub, shape) if ch == c}
            if len(dims) > 1:
                raise op_error("einsum", f"subscript '{c}' repeats in operand {k} of "
                               f"'{equation}' with different sizes {sorted(dims)}")
    sizes = {}
    for sub, shape in zip(subs, shapes):
        for c, n in zip(sub, shape):
            if n != 1:
                if sizes.get(c, 1) not in (1, n):
                    raise op_error("einsum", f"subscript '{c}' in '{equation}' has size "
                                   f"{sizes[c]} in one operand and {n} in another; operand "
                                   f"shapes {[list(s) for s in shapes]}")
                sizes[c] = n
            else:
                sizes.setdefault(c, 1)
    for k, (sub, shape) in enumerate(zip(subs, shapes)):
        # A size-1 dim broadcasting against a larger one gets its own letter, so that every
        # letter has one size and the gradient einsum needs no broadcasting.
        renamed = {c: next(free) for c in set(sub)
                   if sizes[c] != 1 and shape[sub.index(c)] == 1}
        if renamed:
            for new in renamed.values():
                sizes[new] = 1
            subs[k] = "".join(renamed.get(c, c) for c in sub)

    if arrow:
        if rhs.count("...") > 1 or "." in rhs.replace("...", ""):
            raise op_error("einsum", f"output '{rhs}' of '{equation}' has a malformed ellipsis")
        if n_ell and "..." not in rhs:
            raise op_error("einsum", f"operands of '{equation}' have {n_ell} broadcast "
                           "dimension(s) under '...', so the output must name '...' too")
        out = rhs.replace("...", ell)
        if len(set(out)) != len(out):
            raise op_error("einsum", f"output '{rhs}' of '{equation}' repeats a subscript")
        missing = [c for c in out if c not in sizes]
        if missing:
            raise op_error("einsum", f"output subscript(s) {missing} of '{equation}' appear "
                           "in no operand")
    else:
        counts = {}
        for t in terms:
            for c in t.replace("...", ""):
                counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1))
    work = 1
    for n in sizes.values():
        work *= n
    return tuple(subs), out, sizes, len(shapes) > 2 or work >= _OPTIMIZE_MIN_WORK


@functools.lru_cache(maxsize=512)
def _path(equation, shapes):
    """NumPy's contraction path for `equation`, planned once per shape signature."""
    dummies = [np.empty(s, dtype=np.float32) for s in shapes]
    return np.einsum_path(equation, *dummies, optimize="greedy")[0]


def _pairwise(xp, equation, arrays):
    """`equation` (letters only, with '->') as two-operand einsums along NumPy's path:
    each step contracts a pair of the operands left, which go last as NumPy's paths
    expect, keeping the letters that later operands or the output still need."""
    inputs, out = equation.split("->")
    subs, operands = inputs.split(","), list(arrays)
    for step in _path(equation, tuple(a.shape for a in arrays))[1:]:
        picked = sorted(step, reverse=True)
        terms = [subs.pop(i) for i in picked]
        parts = [operands.pop(i) for i in picked]
        needed = set(out).union(*subs)
        result = "".join(dict.fromkeys(c for c in "".join(terms) if c in needed))
        operands.append(xp.einsum(",".join(terms) + "->" + result, *parts))
        subs.append(result)
    return xp.einsum(subs[0] + "->" + out, operands[0])


def _run(xp, equation, arrays, optimize):
    if optimize and xp is np:
        return np.einsum(equation, *arrays,
                         optimize=_path(equation, tuple(a.shape for a in arrays)))
    if len(arrays) > 2:
        # CuPy's einsum of more operands calls cuBLAS itself, which a CUDA graph capture
        # refuses; its two-operand einsums go through the capture's products.
        return _pairwise(xp, equation, arrays)
    return xp.einsum(equation, *arrays)


def _array_einsum(xp):
    def run(equation, *arrays):
        _, _, _, optimize = parse(equation, tuple(a.shape for a in arrays))
        return _run(xp, equation, arrays, optimize)

    return run


class Einsum(Op):
    attrs = ("optimize", "out", "sizes", "subs")

    complex_grad = "holomorphic"
    save_inputs = True

    def __init__(self, subs, out, sizes, optimize):
        self.subs, self.out, self.sizes, self.optimize = subs, out, sizes, optimize

    def forward(self, xp, *arrays):
        return _run(xp, ",".join(self.subs) + "->" + self.out, arrays, self.optimize)

    def backward(self, m, g):
        dtype = m.data(g).dtype
        xp = xp_of(m, g)
        grads = []
        for k, target in enumerate(self.subs):
            if self.edges[k] is None:
                grads.append(None)
                continue
            terms = [self.out] + [s for j, s in enumerate(self.subs) if j != k]
            operands = [g] + [self.x(j, m) for j in range(len(self.subs)) if j != k]
            available = set("".join(terms))
            taken = set("".join(self.subs) + self.out)
            free = (c for c in _LETTERS if c not in taken)
            out, seen = [], set()
            for c in target:
                if c in seen:
                    # A repeated letter reads a diagonal: spread the gradient back onto it.
                    new = next(free)
                    terms.append(c + new)
                    operands.append(constant(m, xp.eye(self.sizes[c], dtype=dtype)))
                    out.append(new)
                    continue
                seen.add(c)
                if c not in available:
                    # Summed over and found nowhere else: every element gets the gradient.
                    terms.append(c)
                    operands.append(constant(m, xp.ones(self.sizes[c], dtype=dtype)))
                out.append(c)
            grads.append(m.einsum(",".join(terms) + "->" + "".join(out), *operands))
        return tuple(grads)


def einsum(equation, *operands):
    """Einstein summation over the operands as `equation` says, with gradients.

    Supports implicit output ('ij,jk'), explicit output ('ij,jk->ik'), '...' broadcasting,
    repeated subscripts (diagonals, 'ii->i') and sums over any subscript.

    Example:
        >>> import dygraph
        >>> a = dygraph.to_tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> dygraph.einsum('ii->', a).numpy()
        array(5., dtype=float32)
    """
    if not isinstance(equation, str):
        raise op_error("einsum", f"equation must be a str, got {type(equation).__name__}",
                       TypeError)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise op_error("einsum", f"equation '{equation}' was given no operands")
    tensors = [as_tensor(t, "einsum") for t in operands]
    dtype = tensors[0]._data.dtype
    for t in tensors[1:]:
        dtype = promote_dtype(dtype, t._data.dtype)
    if any(t._data.dtype != dtype for t in tensors):
        tensors = [t if t._data.dtype == dtype else cast(t, dtype) for t in tensors]
    subs, out, sizes, optimize = parse(equation, tuple(t._data.shape for t in tensors))
    return apply(Einsum(subs, out, sizes, optimize), *tensors)


register("einsum", array_fn=_array_einsum, tensor_fn=einsum)
