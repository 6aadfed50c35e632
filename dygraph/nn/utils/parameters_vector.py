"""Flatten parameters into one vector and write a vector back into parameters.

Both work on values only: the vector `parameters_to_vector` returns is a new leaf (it does
not lead gradients back to the parameters), and `vector_to_parameters` overwrites the
parameters in place, keeping their identity and shapes.

Example:
    >>> import dygraph
    >>> from dygraph.nn.utils import parameters_to_vector, vector_to_parameters
    >>> layer = dygraph.nn.Linear(2, 3)
    >>> vec = parameters_to_vector(layer.parameters())
    >>> vec.shape
    [9]
    >>> vector_to_parameters(vec * 0, layer.parameters())
    >>> float(layer.weight.abs().sum())
    0.0
"""

import math

import dygraph

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters, name=None):
    """Concatenate the flattened `parameters` into one 1-D Tensor.

    Args:
        parameters (Iterable[Tensor]): the parameters, all of one dtype.
        name (str|None): unused, for Paddle compatibility.

    Returns:
        Tensor: a new leaf of shape [total size] with stop_gradient=False.

    Example:
        >>> import dygraph
        >>> from dygraph.nn.utils import parameters_to_vector
        >>> a = dygraph.to_tensor([[1.0, 2.0]])
        >>> b = dygraph.to_tensor([3.0])
        >>> parameters_to_vector([a, b]).numpy()
        array([1., 2., 3.], dtype=float32)
    """
    parameters = list(parameters)
    with dygraph.no_grad():
        out = dygraph.concat([p.detach().reshape([-1]) for p in parameters], axis=0)
    out.stop_gradient = False
    return out


def vector_to_parameters(vec, parameters, name=None):
    """Copy consecutive slices of the 1-D `vec` into `parameters`, in place.

    `vec` may be longer than the parameters' total size (the rest is ignored), not shorter.

    Args:
        vec (Tensor): a 1-D Tensor.
        parameters (Iterable[Tensor]): the parameters to overwrite.
        name (str|None): unused, for Paddle compatibility.

    Returns:
        None

    Example:
        >>> import dygraph
        >>> from dygraph.nn.utils import vector_to_parameters
        >>> a, b = dygraph.zeros([1, 2]), dygraph.zeros([1])
        >>> vector_to_parameters(dygraph.to_tensor([1.0, 2.0, 3.0]), [a, b])
        >>> a.numpy(), b.numpy()
        (array([[1., 2.]], dtype=float32), array([3.], dtype=float32))
    """
    if len(vec.shape) != 1:
        raise AssertionError(f"vec must be 1-D, got shape {list(vec.shape)}")
    parameters = list(parameters)
    sizes = [math.prod(p.shape) for p in parameters]
    if sum(sizes) > vec.shape[0]:
        raise ValueError("The total_elements of vec should be equal to or larger than the "
                         "number of elements in parameters.")
    start = 0
    with dygraph.no_grad():
        for param, size in zip(parameters, sizes):
            param.set_value(vec[start:start + size].reshape(param.shape).astype(param.dtype))
            start += size
