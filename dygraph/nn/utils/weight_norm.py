"""Weight normalisation: re-parameterise a layer's weight as w = g * v / ||v||.

`weight_norm(layer, name, dim)` replaces the parameter `name` by two parameters,
`name + '_g'` (the norms, one per slice along `dim`) and `name + '_v'` (the direction), and
registers a forward pre-hook that rebuilds `layer.<name>` from them before each call, so
gradients reach g and v. `dim=None` or `dim=-1` uses one norm for the whole tensor.
`remove_weight_norm` folds them back into a single parameter.

Example:
    >>> import dygraph
    >>> from dygraph.nn.utils import weight_norm
    >>> layer = weight_norm(dygraph.nn.Linear(3, 4))
    >>> [name for name, _ in layer.named_parameters()]
    ['bias', 'weight_v', 'weight_g']
"""

import dygraph

__all__ = ["weight_norm", "remove_weight_norm"]

# F.normalize's floor on the norm, and the term Paddle adds under the square root of g.
_EPS = 1e-12


def _sum_sq_except(v, dim, keepdim):
    """The sum of squares of `v` over every axis but `dim` (over all axes when dim is -1)."""
    if dim == -1:
        return (v * v).sum()
    axes = [a for a in range(v.ndim) if a != dim]
    return (v * v).sum(axis=axes, keepdim=keepdim) if axes else v * v


def _compute_weight(v, g, dim):
    norm = dygraph.sqrt(_sum_sq_except(v, dim, True))
    if dim == -1:
        return v / (norm + _EPS) * g
    shape = [1] * v.ndim
    shape[dim] = -1
    return v / norm.clip(min=_EPS) * g.reshape(shape)


class _WeightNorm:
    """The forward pre-hook that rebuilds `layer.<name>` from `<name>_g` and `<name>_v`."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = dim

    def compute_weight(self, layer):
        return _compute_weight(getattr(layer, self.name + "_v"),
                               getattr(layer, self.name + "_g"), self.dim)

    def __call__(self, layer, inputs):
        setattr(layer, self.name, self.compute_weight(layer))


def _new_parameter(layer, value):
    param = layer.create_parameter(list(value.shape), dtype=value.dtype)
    param.set_value(value)
    return param


def weight_norm(layer, name="weight", dim=0):
    """Apply weight normalisation to the parameter `name` of `layer`, in place.

    Args:
        layer (Layer): the layer to change.
        name (str): the parameter to re-parameterise.
        dim (int|None): the axis that keeps one norm per slice; None or -1 for a single
            norm over the whole tensor. Other negative values count from the end.

    Returns:
        Layer: `layer`, with parameters `<name>_g` and `<name>_v` instead of `<name>`.

    Example:
        >>> import dygraph
        >>> from dygraph.nn.utils import weight_norm
        >>> conv = weight_norm(dygraph.nn.Conv2D(2, 3, 3))
        >>> conv.weight_g.shape, conv.weight_v.shape
        ([3], [3, 2, 3, 3])
    """
    for hook in layer._forward_pre_hooks.values():
        if isinstance(hook, _WeightNorm) and hook.name == name:
            raise RuntimeError(f"Cannot register two weight_norm hooks on the same "
                               f"parameter {name}")
    weight = layer._parameters[name]
    rank = weight.ndim
    dim = -1 if dim is None else dim
    if not -rank <= dim < rank:
        raise AssertionError(f"dim must be in [-{rank}, {rank}) for a weight of rank {rank}, "
                             f"got {dim}")
    if dim != -1:
        dim %= rank
    hook = _WeightNorm(name, dim)
    with dygraph.no_grad():
        g = dygraph.sqrt(_sum_sq_except(weight, dim, False) + _EPS)
        v = weight.detach().clone()
    del layer._parameters[name]
    layer.add_parameter(name + "_v", _new_parameter(layer, v))
    layer.add_parameter(name + "_g", _new_parameter(layer, g))
    setattr(layer, name, hook.compute_weight(layer))
    layer.register_forward_pre_hook(hook)
    return layer


def remove_weight_norm(layer, name="weight"):
    """Undo `weight_norm`: fold `<name>_g` and `<name>_v` back into one parameter `name`.

    Args:
        layer (Layer): a layer that `weight_norm` changed.
        name (str): the parameter `weight_norm` was applied to.

    Returns:
        Layer: `layer`. Raises ValueError when `name` has no weight norm.

    Example:
        >>> import dygraph
        >>> from dygraph.nn.utils import remove_weight_norm, weight_norm
        >>> layer = remove_weight_norm(weight_norm(dygraph.nn.Linear(3, 4)))
        >>> [name for name, _ in layer.named_parameters()]
        ['bias', 'weight']
    """
    for key, hook in list(layer._forward_pre_hooks.items()):
        if isinstance(hook, _WeightNorm) and hook.name == name:
            with dygraph.no_grad():
                weight = hook.compute_weight(layer)
            delattr(layer, name)
            del layer._parameters[name + "_g"]
            del layer._parameters[name + "_v"]
            layer.add_parameter(name, _new_parameter(layer, weight))
            del layer._forward_pre_hooks[key]
            return layer
    raise ValueError(f"weight_norm of '{name}' not found in {layer}")
