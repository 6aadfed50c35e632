"""A restricted unpickler for data archives (CIFAR's batches are pickles).

`pickle.load` can run any callable the file names, so a tampered archive could execute
code. `safe_load` admits only the globals that plain data needs — NumPy's array and dtype
reconstruction and `_codecs.encode` (how protocol-2 pickles store bytes) — besides the
built-in containers, strings, bytes and numbers that pickle encodes without globals.
Anything else raises pickle.UnpicklingError before it is called.

Example:
    >>> import io, pickle
    >>> import numpy as np
    >>> blob = pickle.dumps({b'data': np.arange(3, dtype=np.uint8), b'labels': [1, 2]})
    >>> safe_load(io.BytesIO(blob))[b'labels']
    [1, 2]
"""

import pickle

__all__ = ["safe_load", "SafeUnpickler"]

_ALLOWED = {
    ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"),
    ("numpy", "ndarray"), ("numpy", "dtype"), ("_codecs", "encode"),
}


class SafeUnpickler(pickle.Unpickler):
    """An Unpickler whose `find_class` admits only array and dtype reconstruction.

    Example:
        >>> import io, pickle
        >>> SafeUnpickler(io.BytesIO(pickle.dumps([1, 'a', b'b']))).load()
        [1, 'a', b'b']
    """

    def find_class(self, module, name):
        """The allowed global, or UnpicklingError naming the refused one."""
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(
                f"refusing to unpickle the global {module}.{name}: data archives may only "
                f"hold arrays, lists, dicts, strings, bytes and numbers")
        return super().find_class(module, name)


def safe_load(file, encoding="bytes"):
    """Unpickle plain data from a binary file object with SafeUnpickler. `encoding`
    ('bytes' by default) decodes Python 2 strings, as CIFAR's batches need.

    Example:
        >>> import io, pickle
        >>> safe_load(io.BytesIO(pickle.dumps({'a': 1})))
        {'a': 1}
    """
    return SafeUnpickler(file, encoding=encoding).load()
