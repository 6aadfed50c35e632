"""Tensor methods whose functions live in lazily loaded modules (dygraph.linalg,
dygraph.signal): `x.cholesky()` imports dygraph.linalg on first use, so `import dygraph`
stays fast.

Example:
    >>> import dygraph
    >>> dygraph.to_tensor([[2.0, 0.0], [0.0, 4.0]]).inverse().numpy()
    array([[0.5 , 0.  ],
           [0.  , 0.25]], dtype=float32)
"""

import importlib

# module -> method names, or (method name, function name) where they differ.
_METHODS = {
    "dygraph.linalg": [
        "cholesky", "cholesky_solve", "cholesky_inverse", "lstsq", "lu", "lu_unpack", "eig",
        "eigvals", "eigvalsh", "householder_product", "ormqr", "pca_lowrank", "svd_lowrank",
        "matrix_power", "multi_dot", "pinv", "qr", "slogdet", "solve", ("inverse", "inv"),
        "cov", "corrcoef", "matrix_transpose", "cond"],
    "dygraph.signal": ["stft", "istft"],
}


def _lazy(module, function):
    def method(self, *args, **kwargs):
        return getattr(importlib.import_module(module), function)(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = function
    method.__doc__ = f"`{module}.{function}` with this tensor as its first argument."
    return method


def attach_lazy(tensor_cls):
    """Set the methods above on `tensor_cls` where it has none of that name."""
    for module, names in _METHODS.items():
        for entry in names:
            method, function = entry if isinstance(entry, tuple) else (entry, entry)
            if not hasattr(tensor_cls, method):
                setattr(tensor_cls, method, _lazy(module, function))
