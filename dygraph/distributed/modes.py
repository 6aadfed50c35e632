"""Paddle's enumerations of parallel modes and reduction kinds: ParallelMode (what a
fleet strategy parallelises; DyGraph runs DATA_PARALLEL) and ReduceType (the reductions
of paddle.base's ReduceType; its first five equal ReduceOp's, so all_reduce and reduce
accept them).

Example:
    >>> ParallelMode.DATA_PARALLEL, int(ReduceType.kRedAvg)
    (0, 4)
"""

import enum

__all__ = ["ParallelMode", "ReduceType"]


class ParallelMode:
    """The parallel modes of Paddle's fleet: data, tensor, pipeline, sharding and segment
    parallelism. DyGraph trains with DATA_PARALLEL; fleet reports it.

    Example:
        >>> ParallelMode.TENSOR_PARALLEL, ParallelMode.SEGMENT_PARALLEL
        (1, 4)
    """

    DATA_PARALLEL = 0
    TENSOR_PARALLEL = 1
    PIPELINE_PARALLEL = 2
    SHARDING_PARALLEL = 3
    SEGMENT_PARALLEL = 4


class ReduceType(enum.IntEnum):
    """Reduction kinds. kRedSum..kRedAvg compare equal to ReduceOp.SUM..AVG and work as
    the `op` of all_reduce and reduce; kRedAny and kRedAll (logical or/and) belong to
    Paddle's auto-parallel placements, which DyGraph does not have, and the collectives
    refuse them.

    Example:
        >>> ReduceType.kRedMax == 1, ReduceType.kRedAll.name
        (True, 'kRedAll')
    """

    kRedSum = 0
    kRedMax = 1
    kRedMin = 2
    kRedProd = 3
    kRedAvg = 4
    kRedAny = 5
    kRedAll = 6
