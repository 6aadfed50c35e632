"""dygraph.optimizer: update rules, learning-rate schedulers (`lr`) and their state.

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph.framework.parameter import Parameter
    >>> w = Parameter(np.array([1.0], np.float32))
    >>> opt = dygraph.optimizer.Adam(learning_rate=0.1, parameters=[w])
    >>> (w * w).sum().backward(); opt.step(); opt.clear_grad()
    >>> round(float(w.numpy()[0]), 4)
    0.9
"""

from dygraph.optimizer import lr
from dygraph.optimizer.adadelta import Adadelta
from dygraph.optimizer.adagrad import Adagrad
from dygraph.optimizer.adam import Adam, AdamW
from dygraph.optimizer.adamax import Adamax
from dygraph.optimizer.asgd import ASGD
from dygraph.optimizer.lamb import Lamb
from dygraph.optimizer.lbfgs import LBFGS
from dygraph.optimizer.momentum import Momentum
from dygraph.optimizer.nadam import NAdam
from dygraph.optimizer.optimizer import Optimizer
from dygraph.optimizer.radam import RAdam
from dygraph.optimizer.rmsprop import RMSProp
from dygraph.optimizer.rprop import Rprop
from dygraph.optimizer.sgd import SGD

__all__ = ["lr", "Optimizer", "SGD", "Momentum", "Adam", "AdamW", "Adamax", "Adagrad",
           "Adadelta", "RMSProp", "Lamb", "NAdam", "RAdam", "ASGD", "Rprop", "LBFGS"]
