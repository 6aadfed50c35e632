"""Spectral normalisation: divide a layer's weight by its largest singular value.

`spectral_norm(layer, name)` moves the parameter `name` to `name + '_orig'`, keeps power
iteration vectors `name + '_u'` and `name + '_v'` as buffers, and registers a forward
pre-hook that sets `layer.<name>` to weight_orig / sigma before each call. In training mode
the hook first runs `n_power_iterations` steps of power iteration (updating u and v in
place, without gradients); in eval mode it reuses the stored u and v.

Example:
    >>> import dygraph
    >>> from dygraph.nn.utils import spectral_norm
    >>> layer = spectral_norm(dygraph.nn.Linear(3, 4))
    >>> sorted(layer.state_dict())
    ['bias', 'weight_orig', 'weight_u', 'weight_v']
"""

import dygraph
import dygraph.nn.functional as F

__all__ = ["spectral_norm"]


class _SpectralNorm:
    """The forward pre-hook that sets `layer.<name>` to the spectrally normalised weight."""

    def __init__(self, name, n_power_iterations, dim, eps):
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.name = name
        self.n_power_iterations = n_power_iterations
        self.dim = dim
        self.eps = eps

    def weight_matrix(self, weight):
        """`weight` with axis `dim` moved first and the other axes flattened: [h, w]."""
        if self.dim != 0:
            weight = weight.transpose([self.dim] + [a for a in range(weight.ndim)
                                                    if a != self.dim])
        return weight.reshape([weight.shape[0], -1])

    def compute_weight(self, layer, do_power_iteration):
        weight = getattr(layer, self.name + "_orig")
        u = getattr(layer, self.name + "_u")
        v = getattr(layer, self.name + "_v")
        mat = self.weight_matrix(weight)
        if do_power_iteration:
            with dygraph.no_grad():
                for _ in range(self.n_power_iterations):
                    dygraph.assign(F.normalize(dygraph.mv(mat.t(), u), axis=0,
                                               epsilon=self.eps), v)
                    dygraph.assign(F.normalize(dygraph.mv(mat, v), axis=0,
                                               epsilon=self.eps), u)
            # Copies: the buffers change in place at the next call, the graph keeps these.
            u, v = u.clone(), v.clone()
        sigma = dygraph.dot(u, dygraph.mv(mat, v))
        return weight / sigma

    def __call__(self, layer, inputs):
        setattr(layer, self.name, self.compute_weight(layer, layer.training))


def spectral_norm(layer, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Apply spectral normalisation to the parameter `name` of `layer`, in place.

    u and v start as normalised standard normal draws from dygraph's generator.

    Args:
        layer (Layer): the layer to change.
        name (str): the parameter to normalise.
        n_power_iterations (int): power iteration steps per training forward (> 0).
        eps (float): the floor on norms when normalising u and v.
        dim (int|None): the output axis of the weight; None picks 1 for Linear and the
            transposed convolutions (their weights are [in, out, ...]) and 0 otherwise.

    Returns:
        Layer: `layer`, with parameter `<name>_orig` and buffers `<name>_u`, `<name>_v`.

    Example:
        >>> import numpy as np
        >>> import dygraph
        >>> from dygraph.nn.utils import spectral_norm
        >>> _ = dygraph.seed(0)
        >>> layer = spectral_norm(dygraph.nn.Linear(4, 4), n_power_iterations=50)
        >>> _ = layer(dygraph.ones([1, 4]))
        >>> float(np.linalg.norm(layer.weight.numpy(), 2))  # doctest: +ELLIPSIS
        1.0...
    """
    if dim is None:
        transposed = (dygraph.nn.Linear, dygraph.nn.Conv1DTranspose,
                      dygraph.nn.Conv2DTranspose, dygraph.nn.Conv3DTranspose)
        dim = 1 if isinstance(layer, transposed) else 0
    for hook in layer._forward_pre_hooks.values():
        if isinstance(hook, _SpectralNorm) and hook.name == name:
            raise RuntimeError(f"Cannot register two spectral_norm hooks on the same "
                               f"parameter {name}")
    hook = _SpectralNorm(name, n_power_iterations, dim, eps)
    weight = layer._parameters[name]
    with dygraph.no_grad():
        h, w = hook.weight_matrix(weight).shape
        u = F.normalize(dygraph.normal(0.0, 1.0, [h]).astype(weight.dtype), axis=0,
                        epsilon=eps)
        v = F.normalize(dygraph.normal(0.0, 1.0, [w]).astype(weight.dtype), axis=0,
                        epsilon=eps)
    del layer._parameters[name]
    layer.add_parameter(name + "_orig", weight)
    setattr(layer, name, weight * 1.0)
    layer.register_buffer(name + "_u", u)
    layer.register_buffer(name + "_v", v)
    layer.register_forward_pre_hook(hook)
    return layer
