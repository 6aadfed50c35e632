"""The LKJ distribution over Cholesky factors of correlation matrices.

For a correlation matrix C = L L^T of size dim, the LKJ density is proportional to
det(C)^(concentration - 1); this distribution is that of L. Concentration 1 is uniform
over correlation matrices, larger values favour the identity.

Example:
    >>> import dygraph
    >>> from dygraph.distribution import LKJCholesky
    >>> L = LKJCholesky(3, 2.0).sample([4])
    >>> L.shape, bool(((L @ L.transpose([0, 2, 1])).diagonal(axis1=-2, axis2=-1) - 1)
    ...               .abs().max() < 1e-5)
    ([4, 3, 3], True)
"""

import math

import dygraph
from dygraph.distribution.dirichlet import Dirichlet
from dygraph.distribution.distribution import Distribution, check_shape, finfo, standard_normal

__all__ = ["LKJCholesky"]


def _beta_sampler(alpha, beta):
    """A Dirichlet whose first component is Beta(alpha, beta) distributed."""
    alpha, beta = dygraph.broadcast_tensors([alpha, beta])
    return Dirichlet(dygraph.stack([alpha, beta], -1))


class LKJCholesky(Distribution):
    """The LKJ distribution of lower Cholesky factors of dim x dim correlation matrices.

    Args:
        dim (int): the matrix size, >= 2.
        concentration (float|Tensor): the shape parameter, > 0.
        sample_method (str): 'onion' or 'cvine', the sampling algorithm. Both give the
            LKJ marginal Beta(c - 1 + dim/2, c - 1 + dim/2) for (r_ij + 1) / 2 (Paddle 3.3's
            samplers spread rows 2 and beyond too widely).

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import LKJCholesky
        >>> d = LKJCholesky(2, 1.0)
        >>> round(float(d.log_prob(dygraph.eye(2))), 4)
        -0.6931
    """

    def __init__(self, dim=2, concentration=1.0, sample_method="onion"):
        if self._validate_args(concentration):
            self.concentration = concentration
            self.dtype = concentration.dtype.name
        else:
            [self.concentration] = self._to_tensor(concentration)
            self.dtype = dygraph.get_default_dtype()
        if not dim >= 2:
            raise ValueError(f"Expected dim greater than or equal to 2. Found dim={dim}.")
        if not isinstance(dim, int):
            raise TypeError(f"Expected dim to be an integer. Found dim={dim}.")
        self.dim = dim
        if not bool(dygraph.all(self.concentration > 0)):
            raise ValueError("The arg of `concentration` must be positive.")
        self.sample_method = sample_method
        marginal = self.concentration + 0.5 * (dim - 2)
        offset = dygraph.arange(dim - 1, dtype=self.concentration.dtype)
        if sample_method == "onion":
            # row k >= 1 has squared length y_k ~ Beta(k / 2, marginal - (k - 1) / 2) (row 0
            # takes a dummy draw); Paddle 3.3 uses k - 1/2 as the first parameter, which
            # widens the off-diagonal spread of rows 2 and beyond
            offset = dygraph.concat([dygraph.zeros([1], offset.dtype), offset])
            self._beta = _beta_sampler(0.5 * offset + 0.5,
                                       marginal.unsqueeze(-1) - 0.5 * offset)
        elif sample_method == "cvine":
            # partial correlation (i, j), i > j, in row-major order: Beta(c - j/2, c - j/2)
            cols = [j for i in range(1, dim) for j in range(i)]
            col_offset = 0.5 * dygraph.to_tensor(cols, dtype=self.concentration.dtype)
            conc = marginal.unsqueeze(-1) - col_offset
            self._beta = _beta_sampler(conc, conc)
        else:
            raise ValueError("`method` should be one of 'cvine' or 'onion'.")
        super().__init__(self.concentration.shape, (dim, dim))

    def _beta_sample(self, sample_shape):
        return self._beta.sample(sample_shape)[..., 0]

    def _onion(self, sample_shape):
        """The onion method: grow the factor a row at a time, row i on a hypersphere
        of radius sqrt(y_i), y_i ~ Beta."""
        y = self._beta_sample(sample_shape).unsqueeze(-1)
        normal = standard_normal(self._extend_shape(sample_shape), y.dtype).tril(-1)
        # row 0 is all zeros: its direction is undefined, and it stays zero
        norms = normal.norm(axis=-1, keepdim=True)
        direction = normal / dygraph.where(norms > 0, norms, dygraph.ones_like(norms))
        w = dygraph.sqrt(y) * direction
        tiny = float(finfo(w.dtype).tiny)
        diag = dygraph.clip(1 - (w ** 2).sum(-1), min=tiny).sqrt()
        return w + dygraph.diag_embed(diag)

    def _cvine(self, sample_shape):
        """The C-vine method: partial correlations 2 Beta - 1 turned into a factor."""
        partial = 2 * self._beta_sample(sample_shape) - 1
        batch = list(partial.shape[:-1])
        n = self.dim
        rows = [i for i in range(1, n) for _ in range(i)]
        cols = [j for i in range(1, n) for j in range(i)]
        flat = dygraph.zeros([*batch, n * n], partial.dtype)
        index = dygraph.to_tensor([i * n + j for i, j in zip(rows, cols)]).expand(
            [*batch, len(rows)])
        r = dygraph.put_along_axis(flat, index, partial, axis=-1).reshape([*batch, n, n])
        tiny = float(finfo(partial.dtype).tiny)
        r = dygraph.clip(r, min=-1 + tiny, max=1 - tiny)
        left = dygraph.cumprod(dygraph.sqrt(1 - r ** 2), dim=-1)
        # the product over the columns before each one: shift right, 1 in front
        shifted = dygraph.concat([dygraph.ones([*batch, n, 1], r.dtype), left[..., :-1]], -1)
        return (r + dygraph.eye(n, dtype=r.dtype)) * shifted

    def sample(self, sample_shape=()):
        """Draw Cholesky factors of shape `sample_shape + batch_shape + [dim, dim]`."""
        if not isinstance(sample_shape, (list, tuple)):
            raise TypeError("sample shape must be Sequence object.")
        sample_shape = check_shape(sample_shape)
        with dygraph.no_grad():
            if self.sample_method == "onion":
                res = self._onion(sample_shape)
            else:
                res = self._cvine(sample_shape)
        return res.reshape([*sample_shape, *self.concentration.shape, self.dim, self.dim])

    def log_prob(self, value):
        """The log density of the Cholesky factors `value`."""
        diag = dygraph.diagonal(value, offset=0, axis1=-1, axis2=-2)[..., 1:]
        order = dygraph.arange(2, self.dim + 1, dtype=self.concentration.dtype)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = (order * dygraph.log(diag)).sum(-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        # log of the multivariate gamma function Gamma_dm1(alpha - 1/2)
        j = dygraph.arange(1, dm1 + 1, dtype=alpha.dtype)
        mvlgamma = (dm1 * (dm1 - 1) / 4 * math.log(math.pi)
                    + dygraph.lgamma((alpha - 0.5).unsqueeze(-1) + (1 - j) / 2).sum(-1))
        normalizer = 0.5 * dm1 * math.log(math.pi) + mvlgamma - dygraph.lgamma(alpha) * dm1
        return unnormalized - normalizer
