"""Spec entries for the differentiable search ops: topk and sort (their values).

Random float inputs have no ties with probability one, so the order is unique and the
values are differentiable at the sampled points.
"""

import numpy as np

import dygraph as D
from tests.op_specs import OpSpec

A = (3, 5)


def _topk_ref(k, axis=-1, largest=True):
    def ref(x):
        order = np.argsort(-x if largest else x, axis=axis)
        idx = np.take(order, np.arange(k), axis=axis)
        return np.take_along_axis(x, idx, axis), idx

    return ref


SPECS = [
    OpSpec("topk", lambda x: D.topk(x, 2), _topk_ref(2), [A]),
    OpSpec("topk", lambda x: D.topk(x, 3, axis=0, largest=False),
           _topk_ref(3, axis=0, largest=False), [A], id="smallest-axis0"),
    OpSpec("topk", lambda x: D.topk(x, 5), _topk_ref(5), [A], id="k=n"),
    OpSpec("sort", D.sort, lambda x: np.sort(x, -1), [A]),
    OpSpec("sort", lambda x: D.sort(x, axis=0, descending=True),
           lambda x: -np.sort(-x, 0), [(4, 3, 2)], id="descending-axis0"),
]
