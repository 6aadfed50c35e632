"""Spec entries for linear algebra: products in dygraph.* and dygraph.linalg.

Inputs are well conditioned: diagonally dominant matrices for inverses, A A^T + n I for
symmetric positive-definite ones. Cholesky and eigh read one triangle of a symmetric matrix,
so their entries symmetrise the input first; the finite differences then perturb the
symmetric matrix those functions are defined on.
"""

import numpy as np

import dygraph as D
from tests.op_specs import OpSpec

L = D.linalg
INF = float("inf")


def _dominant(shape):
    """Random entries plus 3 on the diagonal: far from singular."""
    return lambda rng: rng.uniform(-1.0, 1.0, shape) + 3.0 * np.eye(shape[-1])


def _spd(shape):
    def make(rng):
        a = rng.uniform(-1.0, 1.0, shape)
        return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])

    return make


def _sym(a):
    perm = list(range(a.ndim - 2)) + [a.ndim - 1, a.ndim - 2]
    return (a + D.transpose(a, perm)) * 0.5


def _np_sym(a):
    return (a + np.swapaxes(a, -1, -2)) * 0.5


def _swap(a):
    return np.swapaxes(a, -1, -2)


def _qr_ref(mode):
    def ref(a):
        q, r = np.linalg.qr(a, mode="complete" if mode == "complete" else "reduced")
        return r if mode == "r" else (q, r)

    return ref


def _solve_ref(a, b):
    if b.ndim == a.ndim - 1:
        return np.linalg.solve(a, b[..., None])[..., 0]
    return np.linalg.solve(a, b)


def _einsum(eq):
    return lambda *xs: D.einsum(eq, *xs)


def _np_einsum(eq):
    return lambda *xs: np.einsum(eq, *xs)


def _einsum_spec(eq, shapes, id):
    return OpSpec("einsum", _einsum(eq), _np_einsum(eq), shapes, id=id)


def _norm_spec(name, fn, ref, shape, id, **kw):
    return OpSpec(name, fn, ref, [shape], id=id, **kw)


PRODUCTS = [
    OpSpec("bmm", D.bmm, np.matmul, [(2, 3, 4), (2, 4, 2)]),
    OpSpec("mm", D.mm, np.matmul, [(3, 4), (4, 2)]),
    OpSpec("mv", D.mv, np.matmul, [(3, 4), (4,)]),
    OpSpec("dot", D.dot, np.dot, [(4,), (4,)]),
    OpSpec("dot", D.dot, lambda x, y: (x * y).sum(-1), [(3, 4), (3, 4)], id="batched"),
    OpSpec("outer", D.outer, np.outer, [(3,), (4,)]),
    OpSpec("outer", D.outer, np.outer, [(2, 2), (3,)], id="flattened"),
    _einsum_spec("ij,jk->ik", [(3, 4), (4, 2)], "matmul"),
    _einsum_spec("ij,jk", [(3, 4), (4, 2)], "implicit"),
    _einsum_spec("ii", [(3, 3)], "trace"),
    _einsum_spec("ii->i", [(3, 3)], "diagonal"),
    _einsum_spec("iij->j", [(2, 2, 3)], "repeated-sum"),
    _einsum_spec("ijk->j", [(2, 3, 2)], "sum"),
    _einsum_spec("i,j->ij", [(3,), (2,)], "outer"),
    _einsum_spec("...ij,...jk->...ik", [(2, 3, 4), (4, 2)], "ellipsis"),
    _einsum_spec("bij,bjk->bik", [(1, 3, 4), (2, 4, 2)], "broadcast-size-1"),
    _einsum_spec("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)], "three-operands"),
    OpSpec("t", D.t, lambda x: x.T, [(3, 4)]),
    OpSpec("t", D.t, lambda x: x, [(4,)], id="1d"),
    OpSpec("cross", D.cross, lambda x, y: np.cross(x, y, axis=0), [(3, 4), (3, 4)]),
    OpSpec("cross", lambda x, y: D.cross(x, y, axis=1), lambda x, y: np.cross(x, y),
           [(2, 3), (2, 3)], id="axis"),
    OpSpec("kron", D.kron, np.kron, [(2, 3), (2, 2)]),
    OpSpec("kron", D.kron, np.kron, [(2,), (2, 3)], id="ranks-differ"),
    OpSpec("trace", D.trace, np.trace, [(3, 4)]),
    OpSpec("trace", lambda x: D.trace(x, offset=1, axis1=2, axis2=1),
           lambda x: np.trace(x, 1, 2, 1), [(2, 3, 4)], id="offset-axes"),
]

INVERSES = [
    OpSpec("linalg.inv", L.inv, np.linalg.inv, [_dominant((3, 3))]),
    OpSpec("linalg.inv", L.inv, np.linalg.inv, [_dominant((2, 3, 3))], id="batched"),
    OpSpec("linalg.det", L.det, np.linalg.det, [_dominant((3, 3))]),
    OpSpec("linalg.det", L.det, np.linalg.det, [_dominant((2, 3, 3))], id="batched"),
    OpSpec("linalg.slogdet", L.slogdet, lambda a: np.stack(np.linalg.slogdet(a)),
           [_dominant((2, 3, 3))]),
    OpSpec("linalg.solve", L.solve, _solve_ref, [_dominant((3, 3)), (3, 2)]),
    OpSpec("linalg.solve", L.solve, _solve_ref, [_dominant((3, 3)), (3,)], id="vector"),
    OpSpec("linalg.solve", lambda a, b: L.solve(a, b, left=False),
           lambda a, b: np.linalg.solve(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)
                                        ).swapaxes(-1, -2), [_dominant((3, 3)), (2, 3)],
           id="right"),
    OpSpec("linalg.solve", L.solve, _solve_ref, [_dominant((2, 3, 3)), (2, 3)],
           id="batched-vectors"),
    OpSpec("linalg.solve", L.solve, _solve_ref, [_dominant((3, 3)), (2, 3, 2)],
           id="broadcast"),
    OpSpec("linalg.pinv", L.pinv, np.linalg.pinv, [(3, 4)]),
    OpSpec("linalg.pinv", L.pinv, np.linalg.pinv, [(2, 4, 3)], id="tall-batched"),
    OpSpec("linalg.matrix_power", lambda a: L.matrix_power(a, 3),
           lambda a: np.linalg.matrix_power(a, 3), [(3, 3)]),
    OpSpec("linalg.matrix_power", lambda a: L.matrix_power(a, -2),
           lambda a: np.linalg.matrix_power(a, -2), [_dominant((2, 3, 3))], id="negative"),
    OpSpec("linalg.matrix_power", lambda a: L.matrix_power(a, 1), lambda a: a, [(3, 3)],
           id="one"),
    OpSpec("linalg.multi_dot", lambda a, b, c: L.multi_dot([a, b, c]),
           lambda a, b, c: np.linalg.multi_dot([a, b, c]), [(2, 3), (3, 4), (4, 2)]),
    OpSpec("linalg.multi_dot", lambda a, b, c: L.multi_dot([a, b, c]),
           lambda a, b, c: np.linalg.multi_dot([a, b, c]), [(3,), (3, 4), (4,)],
           id="vector-ends"),
]

DECOMPOSITIONS = [
    OpSpec("linalg.cholesky", lambda a: L.cholesky(_sym(a)),
           lambda a: np.linalg.cholesky(_np_sym(a)), [_spd((3, 3))]),
    OpSpec("linalg.cholesky", lambda a: L.cholesky(_sym(a), upper=True),
           lambda a: _swap(np.linalg.cholesky(_np_sym(a))), [_spd((2, 3, 3))], id="upper"),
    OpSpec("linalg.qr", L.qr, _qr_ref("reduced"), [(4, 3)]),
    OpSpec("linalg.qr", L.qr, _qr_ref("reduced"), [(2, 3, 3)], id="batched"),
    OpSpec("linalg.qr", L.qr, _qr_ref("reduced"), [(2, 4)], id="wide"),
    OpSpec("linalg.qr", lambda a: L.qr(a, mode="r"), _qr_ref("r"), [(4, 3)], id="r"),
    OpSpec("linalg.qr", lambda a: L.qr(a, mode="complete"), _qr_ref("complete"), [(3, 4)],
           id="complete-wide"),
    OpSpec("linalg.svd", L.svd, lambda a: np.linalg.svd(a, full_matrices=False), [(4, 3)]),
    OpSpec("linalg.svd", L.svd, lambda a: np.linalg.svd(a, full_matrices=False), [(2, 3, 4)],
           id="wide-batched"),
    OpSpec("linalg.eigh", lambda a: L.eigh(_sym(a)), lambda a: np.linalg.eigh(_np_sym(a)),
           [(3, 3)]),
    OpSpec("linalg.eigh", lambda a: L.eigh(_sym(a), UPLO="U"),
           lambda a: np.linalg.eigh(_np_sym(a), UPLO="U"), [(2, 3, 3)], id="upper-batched"),
    OpSpec("linalg.eigvalsh", lambda a: L.eigvalsh(_sym(a)),
           lambda a: np.linalg.eigvalsh(_np_sym(a)), [(3, 3)]),
]

_A = (3, 4)
NORMS = [
    _norm_spec("linalg.norm", L.norm, np.linalg.norm, _A, ""),
    _norm_spec("linalg.norm", lambda x: L.norm(x, p=1, axis=1), lambda x: np.abs(x).sum(1),
               _A, "p1"),
    _norm_spec("linalg.norm", lambda x: L.norm(x, p=3, axis=-1, keepdim=True),
               lambda x: np.linalg.norm(x, 3, axis=-1, keepdims=True), _A, "p3-keepdim"),
    _norm_spec("linalg.norm", lambda x: L.norm(x, p=0.5, axis=0),
               lambda x: np.linalg.norm(x, 0.5, axis=0), _A, "p-half"),
    _norm_spec("linalg.norm", lambda x: L.norm(x, p=INF, axis=0),
               lambda x: np.abs(x).max(0), _A, "inf"),
    _norm_spec("linalg.norm", lambda x: L.norm(x, p=-INF, axis=1),
               lambda x: np.abs(x).min(1), _A, "neg-inf"),
    _norm_spec("linalg.norm", lambda x: L.norm(x, p="fro", axis=[1, 2]),
               lambda x: np.linalg.norm(x, "fro", axis=(1, 2)), (2, 3, 4), "fro"),
    _norm_spec("linalg.norm", lambda x: L.norm(x, p="nuc", axis=[0, 2], keepdim=True),
               lambda x: np.linalg.norm(x, "nuc", axis=(0, 2), keepdims=True), (3, 2, 4),
               "nuc-keepdim"),
    _norm_spec("linalg.norm", lambda x: L.norm(x, p=2, axis=[0, 1]),
               lambda x: np.linalg.norm(x, 2, axis=(0, 1)), _A, "spectral"),
    _norm_spec("linalg.norm", lambda x: L.norm(x, p=-2, axis=[0, 1]),
               lambda x: np.linalg.norm(x, -2, axis=(0, 1)), _A, "smallest-singular"),
    _norm_spec("linalg.norm", lambda x: L.norm(x, p=1, axis=[0, 1]),
               lambda x: np.linalg.norm(x, 1, axis=(0, 1)), _A, "induced-1"),
    _norm_spec("linalg.norm", lambda x: L.norm(x, p=-INF, axis=[1, 2], keepdim=True),
               lambda x: np.linalg.norm(x, -INF, axis=(1, 2), keepdims=True), (2, 3, 4),
               "induced-neg-inf"),
    _norm_spec("linalg.vector_norm", lambda x: L.vector_norm(x, p=1.5, axis=[0, 2]),
               lambda x: (np.abs(x) ** 1.5).sum((0, 2)) ** (1 / 1.5), (2, 3, 4), ""),
    _norm_spec("linalg.matrix_norm", lambda x: L.matrix_norm(x, p=INF),
               lambda x: np.linalg.norm(x, INF, axis=(-2, -1)), (2, 3, 4), ""),
    _norm_spec("linalg.cond", L.cond, np.linalg.cond, (3, 4), ""),
    _norm_spec("linalg.cond", lambda x: L.cond(x, p="fro"), lambda x: np.linalg.cond(x, "fro"),
               _dominant((2, 3, 3)), "fro"),
]

SPECS = PRODUCTS + INVERSES + DECOMPOSITIONS + NORMS
