"""The general (non-symmetric) eigendecomposition op behind dygraph.linalg.eig/eigvals.

Eigenvalues and eigenvectors are complex (complex64 for float32 input, as in Paddle);
eigenvectors have unit norm. The gradient is the adjoint formula for distinct eigenvalues
(as PyTorch's linalg_eig_backward): with E_ij = conj(w_j) - conj(w_i),
    gA = V^-H (diag(gw) + (V^H gV - V^H V Re(diag(V^H gV))) / E) V^H,
taking the real part for a real A. Eigenvectors are defined up to a complex phase, so only
losses that do not depend on that phase (|V|, V V^-1 ...) have a gradient. The formula is
evaluated on arrays: there is no double backward (recording it raises).
"""

import numpy as np

from dygraph.autograd.function import Op
from dygraph.framework.errors import op_error
from dygraph.ops.fft.transforms import complex_dtype


class Eig(Op):
    complex_grad = "same"
    save_inputs = True
    save_output = True

    def forward(self, xp, a):
        w, v = np.linalg.eig(_host(a))
        dtype = complex_dtype(a.dtype)
        return xp.asarray(w.astype(dtype)), xp.asarray(v.astype(dtype))

    def backward(self, m, gw, gv):
        if m.tensor_mode:
            raise op_error("eig", "double backward (create_graph=True) is not supported",
                           NotImplementedError)
        a = self.x(0, m)
        w, v = self.y(m, 0), self.y(m, 1)
        xp = np if type(w) is np.ndarray else _xp(w)
        vh = xp.conj(xp.swapaxes(v, -1, -2))
        if gv is None:
            inner = xp.zeros_like(v)
        else:
            vhgv = vh @ gv
            diag = xp.real(xp.diagonal(vhgv, axis1=-2, axis2=-1))
            inner = vhgv - vh @ (v * diag[..., None, :])
            cw = xp.conj(w)
            gap = cw[..., None, :] - cw[..., :, None]
            n = w.shape[-1]
            gap[..., xp.arange(n), xp.arange(n)] = 1
            inner = inner / gap
        n = w.shape[-1]
        inner[..., xp.arange(n), xp.arange(n)] = 0 if gw is None else gw
        ga = xp.linalg.solve(vh, xp.matmul(inner, vh))
        return (xp.real(ga).astype(a.dtype) if a.dtype.kind != "c" else ga,)


def _host(a):
    from dygraph.backend import as_numpy

    return as_numpy(a)


def _xp(array):
    from dygraph.backend import get_array_module

    return get_array_module(array)
