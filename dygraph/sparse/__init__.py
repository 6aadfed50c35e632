"""paddle.sparse: COO and CSR tensors and the functions on them.

A sparse tensor is a Tensor (dygraph/sparse/tensor.py) holding an index structure and a
dense Tensor of stored values; functions here compute new values with dense ops, so
gradients flow through the values. Products with dense matrices run on SciPy's sparse
kernels when SciPy is installed (dygraph/sparse/dense_product.py). The modules load on first
use, so `import dygraph` stays fast:

- creation.py: sparse_coo_tensor, sparse_csr_tensor; formats.py: conversions, coalesce;
- unary.py: element-wise math on the stored values, cast, pow, isnan;
- binary.py: add, subtract, multiply, divide, mask_as, is_same_shape;
- products.py: matmul, masked_matmul, mv, addmm; lowrank.py: pca_lowrank;
- shape.py: transpose, reshape, slice; reduction.py: sum;
- nn/: activations, softmax, batch norm, sparse convolutions and pooling.

Example:
    >>> import dygraph
    >>> import dygraph.sparse as sparse
    >>> x = sparse.sparse_coo_tensor([[0, 1], [1, 0]], [4.0, 9.0], [2, 2])
    >>> sparse.sqrt(x).to_dense().numpy().tolist()
    [[0.0, 2.0], [3.0, 0.0]]
"""

from dygraph.utils.lazy_attributes import lazy_attributes

_FROM = {
    "creation": ["sparse_coo_tensor", "sparse_csr_tensor"],
    "formats": ["coalesce"],
    "unary": ["abs", "asin", "asinh", "atan", "atanh", "cast", "deg2rad", "expm1", "isnan",
              "log1p", "neg", "pow", "rad2deg", "sin", "sinh", "sqrt", "square", "tan",
              "tanh"],
    "binary": ["add", "subtract", "multiply", "divide", "mask_as", "is_same_shape"],
    "products": ["matmul", "masked_matmul", "mv", "addmm"],
    "lowrank": ["pca_lowrank"],
    "shape": ["transpose", "reshape", "slice"],
    "reduction": ["sum"],
}
_NAMES = {n: (f"dygraph.sparse.{module}", n) for module, names in _FROM.items()
          for n in names}
_SUBMODULES = {"nn"}

__all__ = sorted(_NAMES)

__getattr__ = lazy_attributes("dygraph.sparse", globals(), _SUBMODULES, _NAMES)


def __dir__():
    return sorted(set(globals()) | _SUBMODULES | set(_NAMES))
