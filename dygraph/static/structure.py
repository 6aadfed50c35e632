"""Nested structures of control flow: the loop variables of `while_loop` and the results of
`cond` may be lists, tuples and dicts of tensors, nested, as in Paddle. They are flattened
into their leaves (dict entries in sorted key order) for the ops, and packed back into the
caller's structure afterwards.

Example:
    >>> leaves = flatten([1, {'b': 3, 'a': 2}, (4,)])
    >>> leaves
    [1, 2, 3, 4]
    >>> pack([0, {'b': 0, 'a': 0}, (0,)], [x * 10 for x in leaves])
    [10, {'a': 20, 'b': 30}, (40,)]
"""

__all__ = ["flatten", "pack", "same_structure", "is_sequence"]


def is_sequence(value):
    """Whether `value` is a container whose items are leaves or containers themselves.

    Example:
        >>> is_sequence((1, 2)), is_sequence({'a': 1}), is_sequence('ab')
        (True, True, False)
    """
    return isinstance(value, (list, tuple, dict))


def _items(value):
    if isinstance(value, dict):
        return [value[k] for k in sorted(value)]
    return list(value)


def flatten(structure):
    """The leaves of `structure`, depth first (a non-container is its own single leaf).

    Example:
        >>> flatten({'x': [1, 2], 'y': None})
        [1, 2, None]
    """
    if not is_sequence(structure):
        return [structure]
    leaves = []
    for item in _items(structure):
        leaves += flatten(item)
    return leaves


def pack(structure, leaves):
    """A new structure shaped like `structure` holding `leaves` in flatten's order.

    Example:
        >>> pack((0, [0]), ['a', 'b'])
        ('a', ['b'])
    """
    leaves = list(leaves)
    packed, used = _pack(structure, leaves, 0)
    if used != len(leaves):
        raise ValueError(f"pack: the structure holds {used} leaves, got {len(leaves)}")
    return packed


def _pack(structure, leaves, at):
    if not is_sequence(structure):
        return leaves[at], at + 1
    if isinstance(structure, dict):
        out = {}
        for key in sorted(structure):
            out[key], at = _pack(structure[key], leaves, at)
        return out, at
    items = []
    for item in structure:
        value, at = _pack(item, leaves, at)
        items.append(value)
    return (tuple(items) if isinstance(structure, tuple) else items), at


def same_structure(a, b):
    """Whether `a` and `b` nest alike: containers (a list and a tuple count as alike) with
    the same number of items and dicts with the same keys, at every level.

    Example:
        >>> same_structure([1, {'k': 2}], (3, {'k': 4})), same_structure([1], [1, 2])
        (True, False)
    """
    if is_sequence(a) != is_sequence(b):
        return False
    if not is_sequence(a):
        return True
    if isinstance(a, dict) != isinstance(b, dict):
        return False
    if isinstance(a, dict) and sorted(a) != sorted(b):
        return False
    items_a, items_b = _items(a), _items(b)
    return len(items_a) == len(items_b) and all(
        same_structure(x, y) for x, y in zip(items_a, items_b))
