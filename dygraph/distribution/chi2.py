"""The chi-squared distribution with `df` degrees of freedom: Gamma(df / 2, 1 / 2).

Example:
    >>> import dygraph
    >>> from dygraph.distribution import Chi2
    >>> float(Chi2(dygraph.to_tensor(3.0)).mean)
    3.0
"""

import dygraph
from dygraph.distribution.gamma import Gamma

__all__ = ["Chi2"]


class Chi2(Gamma):
    """The chi-squared distribution.

    Args:
        df (float|Tensor): the degrees of freedom, > 0 (ValueError otherwise).

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import Chi2
        >>> d = Chi2(dygraph.to_tensor([2.0, 4.0]))
        >>> d.variance.numpy(), d.sample([5]).shape
        (array([4., 8.], dtype=float32), [5, 2])
    """

    def __init__(self, df):
        if self._validate_args(df):
            self.df = df
        else:
            [self.df] = self._to_tensor(df)
        self.rate = dygraph.full_like(self.df, 0.5)
        if not bool(dygraph.all(self.df > 0)):
            raise ValueError("The arg of `df` must be positive.")
        super().__init__(self.df * 0.5, self.rate)
