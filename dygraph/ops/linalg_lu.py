"""The LU factorisation op behind dygraph.linalg.lu (NumPy has no LU of its own).

Forward: Gaussian elimination with partial pivoting (the row of largest magnitude is the
pivot), vectorised over the batch, one Python step per column. The result is LAPACK's
packed form: L (unit diagonal, not stored) below the diagonal and U on and above it, plus
the 1-based row swapped with row j at step j, and an info per matrix (0, or i + 1 when
U[i, i] is exactly zero).

Backward (square matrices, A = P L U): with gL and gU the parts of the packed gradient
below and on/above the diagonal, gA = P L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T; it is
written with `m` so that double backward works too.
"""

import numpy as np

from dygraph.autograd.function import Op
from dygraph.framework.errors import op_error
from dygraph.ops.linalg_common import constant, mT, xp_of


def lu_factor(xp, a, pivot):
    """(packed LU, 1-based int32 pivots, int32 infos) of a batch [*, M, N]."""
    *batch, rows, cols = a.shape
    k = min(rows, cols)
    lu = a.reshape(-1, rows, cols).copy()
    count = lu.shape[0]
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
        if rows != cols:
            raise op_error("lu", f"the gradient is implemented for square matrices only, got "
                           f"shape {list(m.data(lu).shape)}", NotImplementedError)
        xp = xp_of(m, lu)
        dtype = m.data(lu).dtype
        strict = constant(m, xp.tril(xp.ones((rows, rows), dtype=dtype), -1))
        upper = constant(m, xp.triu(xp.ones((rows, rows), dtype=dtype)))
        low = lu * strict + constant(m, xp.eye(rows, dtype=dtype))
        up = lu * upper
        phi = (m.matmul(mT(m, low), g * strict) * strict
               + m.matmul(g * upper, mT(m, up)) * upper)
        left = m.solve(mT(m, low), phi)  # L^-T phi
        right = mT(m, m.solve(up, mT(m, left)))  # (L^-T phi) U^-T
        perm = constant(m, permutation(xp, self.pivots, rows, dtype))
        return (m.matmul(perm, right),)
