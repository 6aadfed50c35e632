"""The multivariate normal distribution N(loc, Sigma), parameterised by the covariance,
the precision or the lower Cholesky factor of the covariance.

Example:
    >>> import dygraph
    >>> from dygraph.distribution import MultivariateNormal
    >>> d = MultivariateNormal(dygraph.zeros([2]), covariance_matrix=dygraph.eye(2))
    >>> round(float(d.log_prob(dygraph.zeros([2]))), 4)
    -1.8379
"""

import math

import dygraph
from dygraph.distribution.distribution import Distribution, check_shape, standard_normal

__all__ = ["MultivariateNormal"]


def _precision_to_scale_tril(precision):
    """The lower Cholesky factor L of inverse(precision), without forming the inverse."""
    flipped = dygraph.linalg.cholesky(dygraph.flip(precision, [-2, -1]))
    l_inv = dygraph.flip(flipped, [-2, -1]).transpose(_swap_last(precision.ndim))
    eye = dygraph.eye(precision.shape[-1], dtype=precision.dtype)
    return dygraph.linalg.triangular_solve(l_inv, eye, upper=False)


def _swap_last(ndim):
    perm = list(range(ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return perm


def _mahalanobis(scale_tril, diff):
    """|L^-1 diff|^2 over the last axis, L broadcast against diff's batch."""
    batch = dygraph.broadcast_shape(scale_tril.shape[:-2], diff.shape[:-1])
    n = diff.shape[-1]
    tril = scale_tril.expand([*batch, n, n])
    col = diff.expand([*batch, n]).unsqueeze(-1)
    return dygraph.linalg.triangular_solve(tril, col, upper=False).squeeze(-1).pow(2).sum(-1)


def _half_log_det(scale_tril):
    return scale_tril.diagonal(axis1=-2, axis2=-1).log().sum(-1)


class MultivariateNormal(Distribution):
    """The multivariate normal distribution.

    Args:
        loc (float|Tensor): the mean, [..., k] (a number is a 1-vector).
        covariance_matrix (Tensor|None): [..., k, k], symmetric positive definite.
        precision_matrix (Tensor|None): the inverse covariance.
        scale_tril (Tensor|None): the lower Cholesky factor of the covariance.

    Exactly one of the three matrices is given (ValueError otherwise).

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import MultivariateNormal
        >>> cov = dygraph.to_tensor([[2.0, 0.5], [0.5, 1.0]])
        >>> d = MultivariateNormal(dygraph.zeros([2]), covariance_matrix=cov)
        >>> d.rsample([3]).shape, d.variance.numpy().round(4)
        ([3, 2], array([2., 1.], dtype=float32))
    """

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None):
        self.dtype = dygraph.get_default_dtype()
        if isinstance(loc, (float, int)):
            loc = dygraph.to_tensor([loc], dtype=self.dtype)
        else:
            self.dtype = loc.dtype.name
        if loc.ndim < 1:
            loc = loc.reshape([1])
        self.covariance_matrix = None
        self.precision_matrix = None
        self.scale_tril = None
        given = {"covariance_matrix": covariance_matrix, "precision_matrix": precision_matrix,
                 "scale_tril": scale_tril}
        given = {k: v for k, v in given.items() if v is not None}
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        [(kind, matrix)] = given.items()
        if matrix.ndim < 2:
            raise ValueError(f"{kind} must be at least two-dimensional, with optional leading "
                             f"batch dimensions")
        matrix = matrix.astype(self.dtype)
        batch_shape = dygraph.broadcast_shape(matrix.shape[:-2], loc.shape[:-1])
        setattr(self, kind, matrix.expand([*batch_shape, *matrix.shape[-2:]]))
        self.loc = loc.expand([*batch_shape, -1])
        if kind == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif kind == "covariance_matrix":
            self._unbroadcasted_scale_tril = dygraph.linalg.cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(matrix)
        super().__init__(batch_shape, self.loc.shape[-1:])

    @property
    def mean(self):
        """loc."""
        return self.loc

    @property
    def variance(self):
        """The diagonal of the covariance."""
        return dygraph.square(self._unbroadcasted_scale_tril).sum(-1).expand(
            list(self.batch_shape + self.event_shape))

    def sample(self, shape=()):
        """Draw samples of shape `shape + batch_shape + [k]` (no gradient)."""
        with dygraph.no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """Reparameterised samples loc + L eps, eps ~ N(0, I)."""
        if not isinstance(shape, (list, tuple)):
            raise TypeError("sample shape must be Sequence object.")
        eps = standard_normal(self._extend_shape(check_shape(shape)), self.dtype)
        return self.loc + dygraph.matmul(self._unbroadcasted_scale_tril,
                                         eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value):
        """The log density at `value`."""
        value = value.astype(self.dtype)
        mahalanobis = _mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        return (-0.5 * (self.event_shape[0] * math.log(2 * math.pi) + mahalanobis)
                - _half_log_det(self._unbroadcasted_scale_tril))

    def prob(self, value):
        """The density at `value`."""
        return dygraph.exp(self.log_prob(value))

    def entropy(self):
        """k/2 (1 + log(2 pi)) + log det L, of shape batch_shape."""
        entropy = (0.5 * self.event_shape[0] * (1.0 + math.log(2 * math.pi))
                   + _half_log_det(self._unbroadcasted_scale_tril))
        return entropy.expand(list(self.batch_shape)) if self.batch_shape else entropy

    def kl_divergence(self, other):
        """KL(self || other) between two multivariate normals."""
        if self.batch_shape != other.batch_shape and self.event_shape != other.event_shape:
            raise ValueError("KL divergence of two Multivariate Normal distributions should "
                             "share the same `batch_shape` and `event_shape`.")
        tril_1, tril_2 = self._unbroadcasted_scale_tril, other._unbroadcasted_scale_tril
        perm = _swap_last(tril_1.ndim)
        cov_1 = dygraph.matmul(tril_1, tril_1.transpose(perm))
        cov_2 = dygraph.matmul(tril_2, tril_2.transpose(_swap_last(tril_2.ndim)))
        trace = dygraph.linalg.solve(cov_2, cov_1).diagonal(axis1=-2, axis2=-1).sum(-1)
        expectation = trace + _mahalanobis(tril_2, self.loc - other.loc)
        return (_half_log_det(tril_2) - _half_log_det(tril_1)
                + 0.5 * (expectation - self.event_shape[0]))
