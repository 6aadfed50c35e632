"""Loss functions of dygraph.nn.functional, by kind: class losses (cross_entropy.py),
regression and probability losses (regression.py), margin and metric-learning losses
(margin.py), likelihood, focal and dice losses (likelihood_focal_dice.py), losses over a
class hierarchy (hierarchical.py), CTC (ctc.py) and RNN-T (rnnt.py). Every reduction returns
a 0-D tensor.

Example:
    >>> import dygraph
    >>> from dygraph.ops.loss import mse_loss
    >>> float(mse_loss(dygraph.to_tensor([1.0, 3.0]), dygraph.to_tensor([1.0, 1.0])))
    2.0
"""

from dygraph.ops.loss import (
    cross_entropy,
    ctc,
    hierarchical,
    likelihood_focal_dice,
    margin,
    regression,
    rnnt,
)

_KINDS = (cross_entropy, regression, margin, likelihood_focal_dice, hierarchical, ctc, rnnt)
for _kind in _KINDS:
    globals().update({_n: getattr(_kind, _n) for _n in _kind.__all__})
__all__ = [name for kind in _KINDS for name in kind.__all__]
NONDIFF = {name for kind in _KINDS for name in getattr(kind, "NONDIFF", ())}
