"""MaxPool3D of sparse COO point sets (see functional.max_pool3d).

Example:
    >>> import dygraph
    >>> x = dygraph.sparse.sparse_coo_tensor([[0, 0], [0, 1], [0, 1], [0, 1]],
    ...                                      [[1.0], [2.0]], [1, 2, 2, 2, 1])
    >>> dygraph.sparse.nn.MaxPool3D(2)(x).values().numpy().tolist()
    [[2.0]]
"""

from dygraph.framework.errors import op_error
from dygraph.nn.layer.layers import Layer
from dygraph.sparse.nn.functional.pooling import max_pool3d

__all__ = ["MaxPool3D"]


class MaxPool3D(Layer):
    """3-D max pooling of a COO tensor [N, D, H, W, C]; no mask is returned
    (return_mask=True raises).

    Example:
        >>> import dygraph
        >>> dygraph.sparse.nn.MaxPool3D(2)
        MaxPool3D(kernel_size=2, stride=None, padding=0)
    """

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False,
                 ceil_mode=False, data_format="NDHWC", name=None):
        super().__init__()
        if return_mask:
            raise op_error("MaxPool3D", "sparse max pooling returns no mask; "
                           "return_mask must be False")
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.return_mask, self.ceil_mode = return_mask, ceil_mode
        self.data_format, self.name = data_format, name

    def forward(self, x):
        return max_pool3d(x, self.ksize, self.stride, self.padding, self.ceil_mode,
                          self.data_format)

    def extra_repr(self):
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"
