"""dygraph.callbacks: the callbacks of `Model.fit` (Paddle's paddle.callbacks).

Example:
    >>> import dygraph
    >>> issubclass(dygraph.callbacks.EarlyStopping, dygraph.callbacks.Callback)
    True
"""

from dygraph.hapi.callbacks import (
    Callback,
    CSVLogger,
    EarlyStopping,
    LRScheduler,
    ModelCheckpoint,
    ProgBarLogger,
    ReduceLROnPlateau,
    VisualDL,
)
from dygraph.hapi.wandb_callback import WandbCallback

__all__ = ["Callback", "ProgBarLogger", "ModelCheckpoint", "EarlyStopping", "LRScheduler",
           "ReduceLROnPlateau", "VisualDL", "CSVLogger", "WandbCallback"]
