"""paddle.nn.utils: gradient clipping in place, weight and spectral normalisation hooks, and
conversion between parameters and one flat vector.

Example:
    >>> import dygraph
    >>> import dygraph.nn.utils as utils
    >>> utils.parameters_to_vector(dygraph.nn.Linear(2, 2).parameters()).shape
    [6]
"""

from dygraph.nn.utils.clip_grad import clip_grad_norm_, clip_grad_value_
from dygraph.nn.utils.parameters_vector import parameters_to_vector, vector_to_parameters
from dygraph.nn.utils.spectral_norm import spectral_norm
from dygraph.nn.utils.weight_norm import remove_weight_norm, weight_norm

__all__ = ["weight_norm", "remove_weight_norm", "spectral_norm", "parameters_to_vector",
           "vector_to_parameters", "clip_grad_norm_", "clip_grad_value_"]
