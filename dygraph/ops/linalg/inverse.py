"""Ops behind dygraph.linalg's inverse-like functions: inv, det, slogdet, solve, pinv, rank.

Gradients are the matrix-calculus adjoints, written with `m` names so that they are
differentiable again (double backward): inverse and pinv reuse their saved output, det and
solve call `m.inv` / `m.solve`, which dygraph.linalg registers for Tensors.
"""

import numpy as np

from dygraph.autograd.function import Op
from dygraph.framework.errors import op_error
from dygraph.ops.linalg.common import mT


def _singular(op, shape):
    return op_error(op, f"the matrix of shape {list(shape)} is singular (or a matrix in the "
                    "batch is), so it has no inverse; check the input or use "
                    "dygraph.linalg.pinv", np.linalg.LinAlgError)


class Inv(Op):
    complex_grad = "holomorphic"
    save_output = True

    def forward(self, xp, a):
        try:
            return xp.linalg.inv(a)
        except np.linalg.LinAlgError:
            raise _singular("inv", a.shape) from None

    def backward(self, m, g):
        yt = mT(m, self.y(m))
        return (-m.matmul(m.matmul(yt, g), yt),)


class Det(Op):
    complex_grad = "holomorphic"
    save_inputs = True
    save_output = True

    def forward(self, xp, a):
        return xp.linalg.det(a)

    def backward(self, m, g):
        # d det(A) = det(A) tr(A^-1 dA)
        scale = m.expand_dims(m.expand_dims(g * self.y(m), -1), -1)
        return (scale * mT(m, m.inv(self.x(0, m))),)


class Slogdet(Op):
    """Output stacked as [sign, log|det|] (Paddle 2.x); only log|det| has a gradient."""

    save_inputs = True

    def forward(self, xp, a):
        sign, logdet = xp.linalg.slogdet(a)
        return xp.stack([sign, logdet])

    def backward(self, m, g):
        scale = m.expand_dims(m.expand_dims(g[1], -1), -1)
        return (scale * mT(m, m.inv(self.x(0, m))),)


def batched_solve(xp, a, b):
    """xp.linalg.solve(a, b) for [*, M, M] and [*, M, K] with NumPy's broadcasting of the
    batch dimensions, which CuPy's solve does not do."""
    if xp is not np and a.shape[:-2] != b.shape[:-2]:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        a = xp.broadcast_to(a, batch + a.shape[-2:])
        b = xp.broadcast_to(b, batch + b.shape[-2:])
    return xp.linalg.solve(a, b)


class Solve(Op):
    """X = A^-1 B; `vector` means B (and X) are vectors, [*, M], rather than [*, M, K]."""

    attrs = ("vector",)

    complex_grad = "holomorphic"

    save_inputs = True
    save_output = True

    def __init__(self, vector):
        self.vector = vector

    def forward(self, xp, a, b):
        try:
            if self.vector:
                return batched_solve(xp, a, b[..., None])[..., 0]
            return batched_solve(xp, a, b)
        except np.linalg.LinAlgError:
            raise _singular("solve", a.shape) from None

    def backward(self, m, g):
        a, x = self.x(0, m), self.y(m)
        if self.vector:
            g, x = m.expand_dims(g, -1), m.expand_dims(x, -1)
        gb = m.solve(mT(m, a), g)
        ga = -m.matmul(gb, mT(m, x)) if self.edges[0] is not None else None
        if self.edges[1] is None:
            gb = None
        elif self.vector:
            gb = gb[..., 0]
        return ga, gb


class Pinv(Op):
    """Moore-Penrose inverse; the gradient assumes the rank does not change nearby."""

    attrs = ("hermitian", "rcond")

    save_inputs = True
    save_output = True

    def __init__(self, rcond, hermitian):
        self.rcond, self.hermitian = rcond, hermitian

    def forward(self, xp, a):
        if self.hermitian and xp is np:  # a faster route to the same result; CuPy has none
            return xp.linalg.pinv(a, rcond=self.rcond, hermitian=True)
        return xp.linalg.pinv(a, rcond=self.rcond)

    def backward(self, m, g):
        a, p = self.x(0, m), self.y(m)
        pt, gt = mT(m, p), mT(m, g)
        # dP = -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P, transposed to dA.
        h = m.matmul(gt, m.matmul(p, pt))
        k = m.matmul(m.matmul(pt, p), gt)
        return (-m.matmul(m.matmul(pt, g), pt)
                + h - m.matmul(a, m.matmul(p, h))
                + k - m.matmul(m.matmul(k, p), a),)


class MatrixRank(Op):
    """Singular values above the threshold, counted here rather than by
    np.linalg.matrix_rank, whose signature CuPy does not share. The threshold is `tol`
    (an absolute one), max(tol, rtol * S.max()) with `rtol`, or by default NumPy's
    S.max() * max(M, N) * eps."""

    attrs = ("hermitian", "tol", "rtol")

    differentiable = False

    def __init__(self, tol, hermitian, rtol=None):
        self.tol, self.hermitian, self.rtol = tol, hermitian, rtol

    def forward(self, xp, a):
        if self.hermitian:
            s = xp.abs(xp.linalg.eigvalsh(a))
        else:
            s = xp.linalg.svd(a, compute_uv=False)
        if s.shape[-1] == 0:  # an empty matrix has rank 0 (s.max would fail)
            return xp.zeros(s.shape[:-1], dtype=xp.int64)
        if self.tol is None and self.rtol is None:
            tol = s.max(axis=-1, keepdims=True) * max(a.shape[-2:]) * xp.finfo(a.dtype).eps
        else:
            tol = xp.asarray(0 if self.tol is None else self.tol, dtype=s.dtype)[..., None]
            if self.rtol is not None:
                rtol = xp.asarray(self.rtol, dtype=s.dtype)[..., None]
                tol = xp.maximum(tol, rtol * s.max(axis=-1, keepdims=True))
        return xp.sum(s > tol, axis=-1).astype(xp.int64)
