"""fluid.io: the 1.x reader decorators and DataLoader that dygraph code imports from here.

They are `dygraph.reader`'s decorators (Paddle's `paddle.reader`) and `dygraph.io`'s
DataLoader (with `from_generator`).

Example:
    >>> import dygraph.fluid as fluid
    >>> list(fluid.io.batch(lambda: iter(range(5)), batch_size=2, drop_last=True)())
    [[0, 1], [2, 3]]
"""

from dygraph.io import DataLoader
from dygraph.reader import (
    batch,
    buffered,
    cache,
    chain,
    compose,
    firstn,
    map_readers,
    shuffle,
    xmap_readers,
)

__all__ = ["DataLoader", "batch", "buffered", "cache", "chain", "compose", "firstn",
           "map_readers", "shuffle", "xmap_readers"]
