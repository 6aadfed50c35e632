"""fluid.contrib.reader: distributed_batch_reader for multi-process training.

Example:
    >>> import dygraph.fluid as fluid
    >>> reader = fluid.contrib.reader.distributed_batch_reader(lambda: iter([[1], [2]]))
    >>> list(reader())
    [[1], [2]]
"""

import os

from dygraph import reader as _reader

__all__ = ["distributed_batch_reader"]


def distributed_batch_reader(batch_reader):
    """Give trainer PADDLE_TRAINER_ID of PADDLE_TRAINERS_NUM its share of the batches:
    batch `trainer_id` of every group of `trainers_num` consecutive batches (an incomplete
    last group is dropped, so every trainer runs as many steps). With one trainer every
    batch passes; with several, each prints which share it reads when it starts.

    Example:
        >>> list(distributed_batch_reader(lambda: iter([[1], [2], [3]]))())
        [[1], [2], [3]]
    """
    shard = _reader.distributed_batch_reader(batch_reader)
    trainers = int(os.environ.get("PADDLE_TRAINERS_NUM", "1"))
    if trainers < 2:
        return shard
    trainer_id = int(os.environ.get("PADDLE_TRAINER_ID", "0"))

    def announced():
        print(f"start data reader (trainers_num: {trainers}, trainer_id: {trainer_id})")
        yield from shard()

    return announced
