"""The LU factorisation op behind dygraph.linalg.lu (NumPy has no LU of its own).

Forward: Gaussian elimination with partial pivoting (the row of largest magnitude is the
pivot), vectorised over the batch, one Python step per column. The result is LAPACK's
packed form: L (unit diagonal, not stored) below the diagonal and U on and above it, plus
the 1-based row swapped with row j at step j, and an info per matrix (0, or i + 1 when
U[i, i] is exactly zero).

Backward (A = P L U): with gL and gU the parts of the packed gradient below and on/above
the diagonal, gA = P L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T for square A, and the
corresponding formulas for wide and tall A (as PyTorch's linalg_lu_backward); it is
written with `m` so that double backward works too.
"""

import numpy as np

from dygraph.autograd.function import Op
from dygraph.ops.linalg.common import constant, mT, xp_of


def lu_factor(xp, a, pivot):
    """(packed LU, 1-based int32 pivots, int32 infos) of a batch [*, M, N]."""
    *batch, rows, cols = a.shape
    k = min(rows, cols)
    count = int(np.prod(batch, dtype=np.int64))
    lu = a.reshape(count, rows, cols).copy()
    pivots = xp.tile(xp.arange(k, dtype=np.int32), (count, 1))
    infos = xp.zeros(count, dtype=np.int32)
    every = xp.arange(count)
    for j in range(k):
        if pivot:
            p = j + xp.argmax(xp.abs(lu[:, j:, j]), axis=1)
            pivots[:, j] = p
            upper = lu[every, j].copy()
            lu[every, j] = lu[every, p]
            lu[every, p] = upper
        d = lu[:, j, j]
        zero = d == 0
        infos = xp.where(zero & (infos == 0), j + 1, infos)
        lu[:, j + 1:, j] /= xp.where(zero, 1, d)[:, None]
        lu[:, j + 1:, j + 1:] -= lu[:, j + 1:, j:j + 1] * lu[:, j:j + 1, j + 1:]
    return (lu.reshape(a.shape), (pivots + 1).reshape(*batch, k),
            infos.reshape(batch))


def permutation(xp, pivots, rows, dtype):
    """P with A = P L U from 1-based sequential row swaps [*, K]: [*, rows, rows]."""
    batch = pivots.shape[:-1]
    piv = pivots.reshape(-1, pivots.shape[-1]) - 1
    perm = xp.tile(xp.arange(rows), (piv.shape[0], 1))
    every = xp.arange(piv.shape[0])
    for j in range(piv.shape[1]):
        here = perm[every, j].copy()
        perm[every, j] = perm[every, piv[:, j]]
        perm[every, piv[:, j]] = here
    eye = xp.eye(rows, dtype=dtype)
    # Column i of P is e_perm[i]: (P @ LU)[perm[i]] = LU[i] = A[perm[i]].
    p = xp.swapaxes(eye[perm], -1, -2)
    return p.reshape(*batch, rows, rows)


class LU(Op):
    """Outputs (packed LU, pivots, infos); only the first carries a gradient."""

    attrs = ("pivot",)

    save_output = True

    def __init__(self, pivot):
        self.pivot = pivot

    def forward(self, xp, a):
        lu, pivots, infos = lu_factor(xp, a, self.pivot)
        self.pivots = pivots
        return lu, pivots, infos

    def backward(self, m, g, *_):
        lu = self.y(m, 0)
        rows, cols = m.data(lu).shape[-2:]
        k = min(rows, cols)
        xp = xp_of(m, lu)
        dtype = m.data(lu).dtype

        def eye(r, c):
            return constant(m, xp.eye(r, c, dtype=dtype))

        # Slices and concatenations along the matrix axes are products with constant
        # selection matrices (eye(r, c)), which both backward namespaces have.
        strict, upper = _mask(m, xp, rows, cols, -1, dtype), _mask(m, xp, rows, cols, 0, dtype)
        low = m.matmul(lu * strict, eye(cols, k)) + eye(rows, k)  # [rows, k]
        up = m.matmul(eye(k, rows), lu * upper)  # [k, cols]
        g_low = m.matmul(g * strict, eye(cols, k))
        g_up = m.matmul(eye(k, rows), g * upper)
        strict_k, upper_k = _mask(m, xp, k, k, -1, dtype), _mask(m, xp, k, k, 0, dtype)
        if rows == cols:
            phi = (m.matmul(mT(m, low), g_low) * strict_k
                   + m.matmul(g_up, mT(m, up)) * upper_k)
            grad = _right_solve(m, m.solve(mT(m, low), phi), up)
        elif rows < cols:  # wide: A = P L [U1 U2]
            phi = (m.matmul(mT(m, low), g_low) - m.matmul(g_up, mT(m, up))) * strict_k
            phi = _right_solve(m, phi, m.matmul(up, eye(cols, k)))
            grad = m.solve(mT(m, low), m.matmul(phi, eye(k, cols)) + g_up)
        else:  # tall: A = P [L1; L2] U
            phi = (m.matmul(g_up, mT(m, up)) - m.matmul(mT(m, low), g_low)) * upper_k
            phi = m.solve(mT(m, m.matmul(eye(k, rows), low)), phi)
            grad = _right_solve(m, m.matmul(eye(rows, k), phi) + g_low, up)
        perm = constant(m, permutation(xp, self.pivots, rows, dtype))
        return (m.matmul(perm, grad),)


def _right_solve(m, x, u):
    """x U^-T for a square U (solve from the right)."""
    return mT(m, m.solve(u, mT(m, x)))


def _mask(m, xp, rows, cols, diagonal, dtype):
    """Constant mask of the strictly lower (diagonal -1) or the upper (0) triangle."""
    ones = xp.ones((rows, cols), dtype=dtype)
    return constant(m, xp.tril(ones, -1) if diagonal < 0 else xp.triu(ones))
