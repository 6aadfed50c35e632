"""Ops behind dygraph.linalg's decompositions: cholesky, qr, svd, eigh.

The gradients are the standard adjoint formulas (Murray 2016 for Cholesky, Walter & Lehmann
for QR, Townsend 2016 for the SVD, Giles 2008 for the symmetric eigenproblem). They hold for
full-rank inputs and distinct singular values / eigenvalues; where those are repeated the
derivative does not exist and the result is inf or nan, as in other frameworks. Masks and
identities are constants, everything else goes through `m`, so double backward works too.
Cholesky and eigh read one triangle of a matrix assumed symmetric; their gradients are
returned symmetric, the gradient with respect to a symmetric input.
"""

import numpy as np

from dygraph.autograd.function import Op
from dygraph.framework.errors import op_error
from dygraph.ops.linalg.common import constant, mT, xp_of


def _eye(m, like, n):
    return constant(m, xp_of(m, like).eye(n, dtype=m.data(like).dtype))


def _tril(m, like, n, diagonal=1.0):
    """Lower-triangle mask with `diagonal` on the diagonal."""
    xp = xp_of(m, like)
    dtype = m.data(like).dtype
    mask = xp.tril(xp.ones((n, n), dtype=dtype), -1) + diagonal * xp.eye(n, dtype=dtype)
    return constant(m, mask)


def _sym(m, a):
    return (a + mT(m, a)) * 0.5


class Cholesky(Op):
    attrs = ("upper",)

    save_output = True

    def __init__(self, upper):
        self.upper = upper

    def forward(self, xp, a):
        try:
            low = xp.linalg.cholesky(a)
        except np.linalg.LinAlgError:
            raise op_error("cholesky", f"the matrix of shape {list(a.shape)} (or one in the "
                           "batch) is not symmetric positive definite",
                           np.linalg.LinAlgError) from None
        return xp.ascontiguousarray(xp.swapaxes(low, -1, -2)) if self.upper else low

    def backward(self, m, g):
        low = self.y(m)
        if self.upper:
            low, g = mT(m, low), mT(m, g)
        n = m.data(low).shape[-1]
        # Entries above the diagonal are structural zeros: their gradient goes nowhere.
        g = g * _tril(m, low, n)
        phi = m.matmul(mT(m, low), g) * _tril(m, low, n, 0.5)
        inv = m.inv(low)
        return (_sym(m, m.matmul(m.matmul(mT(m, inv), phi), inv)),)


def _qr_tall_grad(m, q, r, gq, gr):
    """Gradient of A = QR for Q [*, M, N], R [*, N, N] (M >= N); gq or gr may be None."""
    n = m.data(r).shape[-1]
    skew = None
    if gq is not None:
        qdq = m.matmul(mT(m, q), gq)
        skew = qdq - mT(m, qdq)
    if gr is not None:
        rdr = m.matmul(r, mT(m, gr))
        skew = rdr - mT(m, rdr) if skew is None else skew + rdr - mT(m, rdr)
    # Everything right-multiplied by R^-T.
    right = m.matmul(q, skew * _tril(m, r, n))
    if gq is not None:
        right = right + gq - m.matmul(q, qdq)
    grad = m.matmul(right, mT(m, m.inv(r)))
    if gr is not None:
        grad = grad + m.matmul(q, gr)
    return grad


class QR(Op):
    """Outputs (Q, R); mode 'r' still computes Q, which its gradient needs."""

    attrs = ("mode",)

    save_inputs = True
    save_output = True

    def __init__(self, mode):
        self.mode = mode

    def forward(self, xp, a):
        self.shape = a.shape
        q, r = xp.linalg.qr(a, mode="complete" if self.mode == "complete" else "reduced")
        return q, r

    def backward(self, m, gq, gr):
        rows, cols = self.shape[-2:]
        if self.mode == "complete" and rows > cols:
            raise op_error("qr", f"the gradient of mode='complete' is not defined for a tall "
                           f"input (shape {list(self.shape)}, M > N); use mode='reduced'",
                           RuntimeError)
        q, r = self.y(m, 0), self.y(m, 1)
        if rows >= cols:
            return (_qr_tall_grad(m, q, r, gq, gr),)
        # Wide input A = [X | Y]: X = Q U is a square QR and V = Q^T Y.
        xp = xp_of(m, r)
        dtype = m.data(r).dtype
        left = constant(m, xp.eye(rows, cols, dtype=dtype))
        right = constant(m, xp.eye(cols - rows, cols, k=rows, dtype=dtype))
        u = m.matmul(r, mT(m, left))
        gu = gv = None
        if gr is not None:
            gu, gv = m.matmul(gr, mT(m, left)), m.matmul(gr, mT(m, right))
            y = m.matmul(self.x(0, m), mT(m, right))
            shift = m.matmul(y, mT(m, gv))
            gq = shift if gq is None else gq + shift
        grad = m.matmul(_qr_tall_grad(m, q, u, gq, gu), left)
        if gv is not None:
            grad = grad + m.matmul(m.matmul(q, gv), right)
        return (grad,)


def _spectral_f(m, values, squared):
    """F[i, j] = 1 / (v_j - v_i) off the diagonal, 0 on it (v = values or their squares)."""
    v = values * values if squared else values
    k = m.data(values).shape[-1]
    eye = _eye(m, values, k)
    denom = m.expand_dims(v, -2) - m.expand_dims(v, -1) + eye
    return (1.0 - eye) / denom


class SVD(Op):
    attrs = ("full_matrices",)

    save_output = True

    def __init__(self, full_matrices):
        self.full_matrices = full_matrices

    def forward(self, xp, a):
        self.shape = a.shape
        u, s, vh = xp.linalg.svd(a, full_matrices=self.full_matrices)
        return u, s, vh

    def backward(self, m, gu, gs, gvh):
        rows, cols = self.shape[-2:]
        k = min(rows, cols)
        if self.full_matrices and rows != cols:
            raise op_error("svd", f"the gradient with full_matrices=True is not defined for a "
                           f"non-square input (shape {list(self.shape)}); use "
                           "full_matrices=False", RuntimeError)
        u, s, vh = self.y(m, 0), self.y(m, 1), self.y(m, 2)
        inner = None
        if gs is not None:
            inner = m.expand_dims(gs, -1) * _eye(m, s, k)
        if gu is not None or gvh is not None:
            f = _spectral_f(m, s, squared=True)
        if gu is not None:
            utgu = m.matmul(mT(m, u), gu)
            term = f * (utgu - mT(m, utgu)) * m.expand_dims(s, -2)
            inner = term if inner is None else inner + term
        if gvh is not None:
            vtgv = m.matmul(vh, mT(m, gvh))
            term = m.expand_dims(s, -1) * (f * (vtgv - mT(m, vtgv)))
            inner = term if inner is None else inner + term
        grad = m.matmul(m.matmul(u, inner), vh)
        if gu is not None and rows > k:
            # The part of gU outside span(U).
            out = gu - m.matmul(u, m.matmul(mT(m, u), gu))
            grad = grad + m.matmul(out / m.expand_dims(s, -2), vh)
        if gvh is not None and cols > k:
            out = gvh - m.matmul(m.matmul(gvh, mT(m, vh)), vh)
            grad = grad + m.matmul(u, out / m.expand_dims(s, -1))
        return (grad,)


class Eigh(Op):
    attrs = ("uplo",)

    save_output = True

    def __init__(self, uplo):
        self.uplo = uplo

    def forward(self, xp, a):
        w, v = xp.linalg.eigh(a, UPLO=self.uplo)
        return w, v

    def backward(self, m, gw, gv):
        w, v = self.y(m, 0), self.y(m, 1)
        inner = None
        if gw is not None:
            inner = m.expand_dims(gw, -1) * _eye(m, w, m.data(w).shape[-1])
        if gv is not None:
            term = _spectral_f(m, w, squared=False) * m.matmul(mT(m, v), gv)
            inner = term if inner is None else inner + term
        return (_sym(m, m.matmul(m.matmul(v, inner), mT(m, v))),)
