"""kl_divergence(p, q) and register_kl: KL divergences looked up by the pair of types.

A registered function for (P, Q) serves every pair of subclasses too; when several
registrations match, the most specific one wins (a RuntimeWarning tells when two are
equally specific in different ways).

Example:
    >>> import dygraph
    >>> from dygraph.distribution import Normal, kl_divergence
    >>> round(float(kl_divergence(Normal(0.0, 1.0), Normal(1.0, 1.0))), 4)
    0.5
"""

import functools
import warnings

import dygraph
from dygraph.distribution.bernoulli import Bernoulli
from dygraph.distribution.beta import Beta
from dygraph.distribution.binomial import Binomial
from dygraph.distribution.categorical import Categorical
from dygraph.distribution.cauchy import Cauchy
from dygraph.distribution.continuous_bernoulli import ContinuousBernoulli
from dygraph.distribution.dirichlet import Dirichlet
from dygraph.distribution.distribution import Distribution, sum_rightmost
from dygraph.distribution.exponential import Exponential
from dygraph.distribution.exponential_family import ExponentialFamily
from dygraph.distribution.gamma import Gamma
from dygraph.distribution.geometric import Geometric
from dygraph.distribution.laplace import Laplace
from dygraph.distribution.lognormal import LogNormal
from dygraph.distribution.multivariate_normal import MultivariateNormal
from dygraph.distribution.normal import Normal
from dygraph.distribution.poisson import Poisson
from dygraph.distribution.uniform import Uniform

__all__ = ["register_kl", "kl_divergence"]

_REGISTER_TABLE = {}


def kl_divergence(p, q):
    """The KL divergence KL(p || q) = E_p[log p(x) - log q(x)].

    Args:
        p (Distribution): the first distribution.
        q (Distribution): the second distribution.

    Returns:
        Tensor: of the batch shape. NotImplementedError when no function is registered
        for the pair of types.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import Beta, kl_divergence
        >>> round(float(kl_divergence(Beta(2.0, 2.0), Beta(1.0, 1.0))), 4)
        0.1251
    """
    return _dispatch(type(p), type(q))(p, q)


def register_kl(cls_p, cls_q):
    """A decorator that registers `f(p, q)` as the KL divergence of the two types.

    Args:
        cls_p (type): a Distribution subclass.
        cls_q (type): a Distribution subclass.

    Example:
        >>> import dygraph
        >>> from dygraph.distribution import Normal, kl_divergence, register_kl
        >>> class Unit(Normal):
        ...     pass
        >>> @register_kl(Unit, Unit)
        ... def _kl_unit(p, q):
        ...     return (p.loc - q.loc) ** 2 / 2
        >>> float(kl_divergence(Unit(0.0, 1.0), Unit(2.0, 1.0)))
        2.0
    """
    if not (isinstance(cls_p, type) and issubclass(cls_p, Distribution)
            and isinstance(cls_q, type) and issubclass(cls_q, Distribution)):
        raise TypeError("cls_p and cls_q must be subclass of Distribution")

    def decorator(f):
        _REGISTER_TABLE[cls_p, cls_q] = f
        return f

    return decorator


def _dispatch(cls_p, cls_q):
    """The registered function for the most specific pair of base types."""
    matches = [(p, q) for p, q in _REGISTER_TABLE
               if issubclass(cls_p, p) and issubclass(cls_q, q)]
    if not matches:
        raise NotImplementedError
    left_p, left_q = min(_Compare(*m) for m in matches).classes
    right_q, right_p = min(_Compare(*reversed(m)) for m in matches).classes
    if _REGISTER_TABLE[left_p, left_q] is not _REGISTER_TABLE[right_p, right_q]:
        warnings.warn(f"Ambiguous kl_divergence({cls_p.__name__}, {cls_q.__name__}). "
                      f"Please register_kl({left_p.__name__}, {right_q.__name__})",
                      RuntimeWarning, stacklevel=3)
    return _REGISTER_TABLE[left_p, left_q]


@functools.total_ordering
class _Compare:
    """Orders pairs of types lexicographically by specificity (subclass first)."""

    def __init__(self, *classes):
        self.classes = classes

    def __eq__(self, other):
        return self.classes == other.classes

    def __le__(self, other):
        for cls_x, cls_y in zip(self.classes, other.classes):
            if not issubclass(cls_x, cls_y):
                return False
            if cls_x is not cls_y:
                break
        return True


def _by_method(p, q):
    # these types define kl_divergence themselves
    return p.kl_divergence(q)


for _cls in (Bernoulli, Binomial, Categorical, Cauchy, ContinuousBernoulli, Normal,
             MultivariateNormal, Uniform, Laplace, Geometric, Exponential, Gamma, Poisson):
    register_kl(_cls, _cls)(_by_method)


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    sum_p, sum_q = p.alpha + p.beta, q.alpha + q.beta
    return (q.alpha.lgamma() + q.beta.lgamma() + sum_p.lgamma()
            - (p.alpha.lgamma() + p.beta.lgamma() + sum_q.lgamma())
            + (p.alpha - q.alpha) * p.alpha.digamma() + (p.beta - q.beta) * p.beta.digamma()
            + (sum_q - sum_p) * sum_p.digamma())


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    a, b = p.concentration, q.concentration
    return (a.sum(-1).lgamma() - b.sum(-1).lgamma() - (a.lgamma() - b.lgamma()).sum(-1)
            + ((a - b) * (a.digamma() - a.sum(-1).digamma().unsqueeze(-1))).sum(-1))


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p, q):
    return p._base.kl_divergence(q._base)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """The Bregman divergence of the log normaliser, for two members of one family."""
    if type(p) is not type(q):
        raise NotImplementedError
    p_params = []
    for param in p._natural_parameters:
        param = param.detach()
        param.stop_gradient = False
        p_params.append(param)
    p_log_norm = p._log_normalizer(*p_params)
    p_grads = dygraph.grad(p_log_norm.sum(), p_params, create_graph=True)
    kl = q._log_normalizer(*q._natural_parameters) - p_log_norm
    for p_param, q_param, p_grad in zip(p_params, q._natural_parameters, p_grads):
        kl = kl - sum_rightmost((q_param - p_param) * p_grad, len(q.event_shape))
    return kl
