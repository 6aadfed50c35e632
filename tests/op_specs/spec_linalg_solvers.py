"""Spec entries for the newer dygraph.linalg functions (ops/linalg/solvers.py,
ops/linalg/eigen_lowrank_stats.py).

Triangular and LU inputs are diagonally dominant (far from singular, and partial pivoting
keeps the same pivots under the finite-difference steps); eig inputs have well separated
real eigenvalues; the randomised low-rank SVDs are asked for the full rank, where the
result no longer depends on the random draw.
"""

import numpy as np

import dygraph as D
from tests.op_specs import OpSpec

L = D.linalg


def _dominant(shape):
    return lambda rng: rng.uniform(-1.0, 1.0, shape) + 3.0 * np.eye(shape[-1])


def _lower_factor(shape):
    return lambda rng: np.tril(rng.uniform(-0.5, 0.5, shape)) + 2.0 * np.eye(shape[-1])


def _separated(n):
    """A matrix with eigenvalues 1, 2, ..., n (a random similarity of a diagonal)."""
    def make(rng):
        basis = rng.uniform(-0.3, 0.3, (n, n)) + np.eye(n)
        return basis @ np.diag(np.arange(1.0, n + 1)) @ np.linalg.inv(basis)

    return make


def _np_expm(a):
    w, v = np.linalg.eig(a)
    return np.real(v @ np.diag(np.exp(w)) @ np.linalg.inv(v))


def _np_householder(x, tau):
    rows, cols = x.shape
    q = np.eye(rows)
    for i in range(len(tau)):
        v = np.where(np.arange(rows) > i, x[:, i], 0.0)
        v[i] = 1.0
        q = q @ (np.eye(rows) - tau[i] * np.outer(v, v))
    return q[:, :cols]


def _tri(a, upper, unit):
    t = np.triu(a) if upper else np.tril(a)
    if unit:
        t = t - np.diag(np.diag(t)) + np.eye(a.shape[-1])
    return t


def _tri_spec(upper, transpose, unit):
    def ref(a, b):
        t = _tri(a, upper, unit)
        return np.linalg.solve(t.T if transpose else t, b)

    return OpSpec("linalg.triangular_solve",
                  lambda a, b: L.triangular_solve(a, b, upper, transpose, unit), ref,
                  [_dominant((4, 4)), (4, 2)], id=f"{upper}-{transpose}-{unit}")


def _np_cov(x):
    return np.cov(x)


def _eig_abs(a):
    w, v = np.linalg.eig(a)
    return np.abs(v)


def _np_lu_packed(a):
    """Doolittle with partial pivoting in plain NumPy, one matrix at a time."""
    out = []
    for m in a:
        lu = m.copy()
        for j in range(min(lu.shape)):
            p = j + np.argmax(np.abs(lu[j:, j]))
            lu[[j, p]] = lu[[p, j]]
            lu[j + 1:, j] /= lu[j, j]
            lu[j + 1:, j + 1:] -= np.outer(lu[j + 1:, j], lu[j, j + 1:])
        out.append(lu)
    return np.stack(out)


PIVOTS = np.array([1, 2, 3], dtype=np.int32)

SPECS = [
    _tri_spec(True, False, False),
    _tri_spec(False, True, False),
    _tri_spec(True, True, True),
    OpSpec("linalg.cholesky_solve", lambda b, f: L.cholesky_solve(b, f),
           lambda b, f: np.linalg.solve(np.tril(f) @ np.tril(f).T, b),
           [(3, 2), _lower_factor((3, 3))]),
    OpSpec("linalg.cholesky_solve", lambda b, f: L.cholesky_solve(b, f, upper=True),
           lambda b, f: np.linalg.solve(np.triu(f).T @ np.triu(f), b),
           [(3, 2), lambda rng: _lower_factor((3, 3))(rng).T], id="upper"),
    OpSpec("linalg.cholesky_inverse", L.cholesky_inverse,
           lambda f: np.linalg.inv(np.tril(f) @ np.swapaxes(np.tril(f), -1, -2)),
           [_lower_factor((2, 3, 3))]),
    OpSpec("linalg.lu", lambda a: L.lu(a)[0], _np_lu_packed, [_dominant((2, 4, 4))]),
    OpSpec("linalg.lu", lambda a: L.lu(a)[0], _np_lu_packed,
           [lambda rng: _dominant((3, 3))(rng)[None] @ rng.uniform(0.5, 1, (2, 3, 5))],
           id="wide"),
    OpSpec("linalg.lu", lambda a: L.lu(a)[0], _np_lu_packed,
           [lambda rng: np.concatenate([_dominant((2, 3, 3))(rng),
                                        rng.uniform(-1, 1, (2, 2, 3))], axis=1)], id="tall"),
    OpSpec("linalg.lu_unpack", lambda a: L.lu_unpack(a, D.to_tensor(PIVOTS))[1:],
           lambda a: (np.tril(a, -1)[:, :3] + np.eye(4, 3), np.triu(a)[:3]), [(4, 3)]),
    OpSpec("linalg.lu_solve", lambda b, a: L.lu_solve(b, *L.lu(a)),
           lambda b, a: np.linalg.solve(a, b), [(3, 2), _dominant((3, 3))]),
    OpSpec("linalg.lu_solve", lambda b, a: L.lu_solve(b, *L.lu(a), trans="T"),
           lambda b, a: np.linalg.solve(a.T, b), [(3, 2), _dominant((3, 3))], id="T"),
    OpSpec("linalg.lstsq", lambda a, b: L.lstsq(a, b, driver="gelsd")[:2],
           lambda a, b: np.linalg.lstsq(a, b, rcond=None)[:2], [(5, 3), (5, 2)]),
    OpSpec("linalg.matrix_exp", L.matrix_exp, _np_expm, [_separated(3)]),
    OpSpec("linalg.matrix_exp", L.matrix_exp, lambda a: np.stack([_np_expm(m) for m in a]),
           [lambda rng: 4 * rng.uniform(-1, 1, (2, 3, 3))], id="scaled", rtol=1e-4),
    # eig's gradient is evaluated on arrays: no double backward (linalg_eig.py).
    OpSpec("linalg.eig", lambda a: (D.as_real(L.eig(a)[0]), D.abs(L.eig(a)[1])),
           lambda a: (np.stack([np.linalg.eigvals(a).real, np.linalg.eigvals(a).imag], -1),
                      _eig_abs(a)), [_separated(3)], double=False),
    OpSpec("linalg.eigvals", lambda a: D.as_real(L.eigvals(a)),
           lambda a: np.stack([np.linalg.eigvals(a).real, np.linalg.eigvals(a).imag], -1),
           [_separated(4)], double=False),
    OpSpec("linalg.householder_product", L.householder_product, _np_householder,
           [(4, 3), (3,)]),
    OpSpec("linalg.ormqr", lambda x, t, y: L.ormqr(x, t, y, transpose=True),
           lambda x, t, y: _np_householder(x, t).T @ y, [(4, 3), (3,), (4, 2)]),
    OpSpec("linalg.ormqr", lambda x, t, y: L.ormqr(x, t, y, left=False),
           lambda x, t, y: y @ _np_householder(x, t), [(3, 3), (3,), (2, 3)], id="right"),
    OpSpec("linalg.svdvals", L.svdvals, lambda a: np.linalg.svd(a, compute_uv=False),
           [(4, 3)]),
    OpSpec("linalg.svd_lowrank", lambda a: L.svd_lowrank(a, q=3)[1],
           lambda a: np.linalg.svd(a, compute_uv=False), [(5, 3)]),
    OpSpec("linalg.pca_lowrank", lambda a: L.pca_lowrank(a, q=3)[1],
           lambda a: np.linalg.svd(a - a.mean(0), compute_uv=False), [(6, 3)]),
    OpSpec("linalg.cov", L.cov, np.cov, [(3, 5)]),
    OpSpec("linalg.cov", lambda x, a: L.cov(x, rowvar=False, aweights=a,
                                            fweights=D.to_tensor([1, 2, 1, 3])),
           lambda x, a: np.cov(x, rowvar=False, aweights=a, fweights=[1, 2, 1, 3]),
           [(4, 2), lambda rng: rng.uniform(0.5, 1.0, 4)], id="weights"),
    OpSpec("linalg.corrcoef", L.corrcoef, np.corrcoef, [(3, 6)]),
    OpSpec("linalg.vecdot", lambda x, y: L.vecdot(x, y, axis=0),
           lambda x, y: (x * y).sum(0), [(3, 2), (3, 2)]),
    OpSpec("linalg.matrix_transpose", lambda x: L.matrix_transpose(x) ** 2,
           lambda x: np.swapaxes(x, -1, -2) ** 2, [(2, 3, 4)]),
]

