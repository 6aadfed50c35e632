"""dygraph.metric: evaluation metrics (Paddle's paddle.metric): the `accuracy` function and
the stateful `Metric` classes that accumulate over batches."""

from dygraph.metric.binary import Auc, Precision, Recall
from dygraph.metric.metrics import Accuracy, Metric, accuracy

__all__ = ["Metric", "Accuracy", "Precision", "Recall", "Auc", "accuracy"]
