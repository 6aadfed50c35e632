"""paddle.distribution: probability distributions, transforms and KL divergences.

Each distribution draws from dygraph's random generator (`dygraph.seed` makes draws
repeatable) and is built from differentiable dygraph ops, so `log_prob`, `entropy`, the
KL divergences and the reparameterised `rsample` pass gradients to the parameters.

Example:
    >>> import dygraph
    >>> from dygraph.distribution import Normal
    >>> mu = dygraph.to_tensor(0.5, stop_gradient=False)
    >>> Normal(mu, dygraph.to_tensor(1.0)).log_prob(dygraph.to_tensor(1.0)).backward()
    >>> float(mu.grad)
    0.5
"""

from dygraph.distribution import constraint, variable
from dygraph.distribution.bernoulli import Bernoulli
from dygraph.distribution.beta import Beta
from dygraph.distribution.binomial import Binomial
from dygraph.distribution.categorical import Categorical
from dygraph.distribution.cauchy import Cauchy
from dygraph.distribution.chi2 import Chi2
from dygraph.distribution.continuous_bernoulli import ContinuousBernoulli
from dygraph.distribution.dirichlet import Dirichlet
from dygraph.distribution.distribution import Distribution
from dygraph.distribution.exponential import Exponential
from dygraph.distribution.exponential_family import ExponentialFamily
from dygraph.distribution.gamma import Gamma
from dygraph.distribution.geometric import Geometric
from dygraph.distribution.gumbel import Gumbel
from dygraph.distribution.independent import Independent
from dygraph.distribution.kl import kl_divergence, register_kl
from dygraph.distribution.laplace import Laplace
from dygraph.distribution.lkj_cholesky import LKJCholesky
from dygraph.distribution.lognormal import LogNormal
from dygraph.distribution.multinomial import Multinomial
from dygraph.distribution.multivariate_normal import MultivariateNormal
from dygraph.distribution.normal import Normal
from dygraph.distribution.poisson import Poisson
from dygraph.distribution.student_t import StudentT
from dygraph.distribution.transform import (
    AbsTransform,
    AffineTransform,
    ChainTransform,
    ExpTransform,
    IndependentTransform,
    PowerTransform,
    ReshapeTransform,
    SigmoidTransform,
    SoftmaxTransform,
    StackTransform,
    StickBreakingTransform,
    TanhTransform,
    Transform,
)
from dygraph.distribution.transformed_distribution import TransformedDistribution
from dygraph.distribution.uniform import Uniform

__all__ = ["Bernoulli", "Beta", "Categorical", "Cauchy", "Chi2", "ContinuousBernoulli",
           "Dirichlet", "Distribution", "Exponential", "ExponentialFamily", "Multinomial",
           "MultivariateNormal", "Normal", "Uniform", "kl_divergence", "register_kl",
           "Independent", "TransformedDistribution", "Laplace", "LogNormal", "LKJCholesky", "Gamma",
           "Gumbel", "Geometric", "Binomial", "Poisson", "StudentT", "Transform",
           "AbsTransform", "AffineTransform", "ChainTransform", "ExpTransform",
           "IndependentTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
           "SoftmaxTransform", "StackTransform", "StickBreakingTransform", "TanhTransform"]
