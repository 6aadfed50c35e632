"""fluid.regularizer: 1.x weight-decay names (`regularization_coeff`) on the 2.x regularizers.

Give one to an optimizer (`regularization=L2Decay(1e-4)`) or to a parameter through
`ParamAttr(regularizer=...)`, which wins over the optimizer's.

Example:
    >>> import dygraph
    >>> import dygraph.fluid as fluid
    >>> reg = fluid.regularizer.L2Decay(regularization_coeff=0.5)
    >>> reg(dygraph.to_tensor([2.0]), dygraph.to_tensor([1.0])).numpy()
    array([2.], dtype=float32)
"""

from dygraph import regularizer as _regularizer

__all__ = ["L1Decay", "L2Decay", "L1DecayRegularizer", "L2DecayRegularizer"]


class L1DecayRegularizer(_regularizer.L1Decay):
    """L1 decay: adds regularization_coeff * sign(w) to the gradient.

    Example:
        >>> L1DecayRegularizer(0.1).coeff
        0.1
    """

    def __init__(self, regularization_coeff=0.0):
        super().__init__(regularization_coeff)


class L2DecayRegularizer(_regularizer.L2Decay):
    """L2 decay: adds regularization_coeff * w to the gradient.

    Example:
        >>> L2DecayRegularizer(0.1).coeff
        0.1
    """

    def __init__(self, regularization_coeff=0.0):
        super().__init__(regularization_coeff)


L1Decay = L1DecayRegularizer
L2Decay = L2DecayRegularizer
