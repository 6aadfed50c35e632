"""The exponential family base class: p(x) = h(x) exp(<theta, t(x)> - A(theta)).

Subclasses give the natural parameters theta, the log normaliser A and E[log h(x)] (the mean
carrier measure); the entropy follows as A(theta) - <theta, grad A(theta)> - E[log h(x)],
with grad A from autograd. KL divergences between two members of one family without a
closed form registered use the Bregman divergence of A (see kl.py).

Example:
    >>> import dygraph
    >>> from dygraph.distribution import Exponential, ExponentialFamily
    >>> isinstance(Exponential(dygraph.to_tensor(1.0)), ExponentialFamily)
    True
"""

import dygraph
from dygraph.distribution.distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base class of exponential family distributions (Beta, Dirichlet, Gamma, ...).

    A subclass defines the property `_natural_parameters` (a tuple of Tensors), the method
    `_log_normalizer(*natural_parameters)` and the property `_mean_carrier_measure`.

    Example:
        >>> import math
        >>> import dygraph
        >>> from dygraph.distribution import ExponentialFamily
        >>> class UnitNormal(ExponentialFamily):  # N(mu, 1), E[log h] taken at mu = 0
        ...     def __init__(self, mu):
        ...         self.mu = mu
        ...         super().__init__(mu.shape)
        ...     _natural_parameters = property(lambda self: (self.mu,))
        ...     def _log_normalizer(self, theta):
        ...         return 0.5 * theta * theta
        ...     _mean_carrier_measure = -0.5 * (1 + math.log(2 * math.pi))
        >>> round(float(UnitNormal(dygraph.to_tensor(0.0)).entropy()), 4)
        1.4189
    """

    @property
    def _natural_parameters(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_parameters):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """The entropy, from the log normaliser and its gradient."""
        params = []
        for param in self._natural_parameters:
            param = param.detach()
            param.stop_gradient = False
            params.append(param)
        log_norm = self._log_normalizer(*params)
        grads = dygraph.grad(log_norm.sum(), params, create_graph=True)
        entropy = log_norm - self._mean_carrier_measure
        for param, grad in zip(params, grads):
            entropy = entropy - param * grad
        return entropy
