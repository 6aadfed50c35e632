"""Gradient copies into the leaf gradients of a GPU, made together at the end of a
backward pass.

After clear_grad() a parameter's next gradient is copied over its stale one
(Tensor._grad). On a GPU each copy is a kernel launch: one per parameter and step (34 for
the benchmark Transformer, 62 for ResNet-18, 158 for MobileNetV2), and where the optimizer
keeps the gradients in one flat buffer (optimizer/device_flat.py) those copies fill it end
to end. So the engine hands the copies of device arrays here (`defer`), and `flush`, at
the end of the backward pass, makes them together where the destinations tile one range
of one buffer: up to FLAT_COPIES copies with kernels of ours, eight a launch
(kernels/cuda/flat_copies.py), more with one concatenate; else one by one.

Until the flush a leaf's gradient is its pending array: a second gradient for the same
leaf in the same pass adds to it (`add_to_pending`), and reading a gradient in the middle
of a pass (the `.grad` property: a hook, the engine's own slower paths) flushes first. On
the CPU the engine copies at once: a copy there is no launch.

Example (nothing is pending outside a backward pass):
    >>> flush()
    >>> PENDING
    {}
"""

__all__ = ["PENDING", "FLAT_COPIES", "defer", "add_to_pending", "flush"]

# {id(gradient tensor): [the gradient tensor, the array to copy into its data]}
PENDING = {}
# Up to this many copies that tile one range of a buffer go through flat_copies' kernel,
# eight a launch: CuPy's concatenate copies eight arrays or fewer with a kernel each, and
# more with one kernel after copying to the device three tables (pointers, offsets,
# strides), four operations that three launches of ours beat.
FLAT_COPIES = 24


def defer(slot, g):
    """Copy array g into the gradient tensor `slot` (of g's shape and dtype) at the next
    flush.

    Example: see the module's text.
    """
    PENDING[id(slot)] = [slot, g]


def add_to_pending(slot, g):
    """Add g to the pending copy into `slot`, if there is one; whether there was.

    Example:
        >>> add_to_pending(object(), None)
        False
    """
    entry = PENDING.get(id(slot))
    if entry is None:
        return False
    entry[1] = entry[1] + g
    return True


def flush():
    """Make the pending copies: together where they tile one range of one buffer (kernels
    of ours, eight a launch, up to FLAT_COPIES; one concatenate past that), else a copy
    each.

    Example: see the module's text.
    """
    if not PENDING:
        return
    pairs = [(slot._data, g) for slot, g in PENDING.values()]
    PENDING.clear()
    run = _one_range(pairs)
    if run is None:
        for dst, g in pairs:
            dst[...] = g
        return
    base, offset, size, ordered = run
    if len(ordered) <= FLAT_COPIES:  # into the buffer as it is: no view to make
        from dygraph.kernels.cuda import flat_copies

        flat_copies.copy_into_flat(base, [g for _, g in ordered], offset)
        return
    from dygraph.backend import get_array_module

    # Flat pieces for CuPy's concatenate: a view is a call on a GPU, so 1-D gradients (the
    # biases and norms' weights: 104 of MobileNetV2's 158) go as they are.
    get_array_module(base).concatenate([g if g.ndim == 1 else g.reshape(-1)
                                        for _, g in ordered],
                                       out=base.reshape(-1)[offset:offset + size])


def _one_range(pairs):
    """(the buffer, the range's first element and its size, the pairs in its order) where
    the destinations are C-ordered views of one C-ordered buffer of one dtype that tile
    one range of it; else None."""
    from dygraph.backend import capturing

    if len(pairs) < 2 or capturing():
        return None
    first = pairs[0][0]
    base, dtype = first.base, first.dtype
    if base is None or base.dtype != dtype or not base.flags.c_contiguous:
        return None
    base_ptr = base.data.ptr
    for dst, g in pairs:
        owner = dst.base
        if (owner is None or owner.data.ptr != base_ptr or dst.dtype != dtype
                or g.dtype != dtype or g.shape != dst.shape or not dst.flags.c_contiguous):
            return None
    ordered = sorted(pairs, key=lambda pair: pair[0].data.ptr)
    start = end = ordered[0][0].data.ptr
    for dst, _ in ordered:
        if dst.data.ptr != end:
            return None
        end += dst.nbytes
    return base, (start - base_ptr) // dtype.itemsize, (end - start) // dtype.itemsize, ordered
