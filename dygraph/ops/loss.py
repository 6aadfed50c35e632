"""Loss functions of dygraph.nn.functional, by kind: class losses (loss_ce.py),
regression and probability losses (loss_regression.py), margin losses (loss_margin.py)
and CTC (loss_ctc.py). Every reduction returns a 0-D tensor.
"""

from dygraph.ops import loss_ce, loss_ctc, loss_margin, loss_regression
from dygraph.ops.loss_ce import *  # noqa: F401,F403
from dygraph.ops.loss_ctc import *  # noqa: F401,F403
from dygraph.ops.loss_margin import *  # noqa: F401,F403
from dygraph.ops.loss_regression import *  # noqa: F401,F403

__all__ = [*loss_ce.__all__, *loss_regression.__all__, *loss_margin.__all__,
           *loss_ctc.__all__]
NONDIFF = set()
