"""Paddle's LoD sequence builders (paddle.static.nn.sequence_conv, sequence_expand,
sequence_first_step, sequence_last_step, sequence_pool, sequence_softmax), as Paddle 3.3's
default static mode has them: each call warns that the API is deprecated, then refuses with
AssertionError. They work on LoD tensors (variable-length sequences packed one after
another with their offsets), which DyGraph does not have, and which Paddle 3.3 keeps only
in its old static mode (FLAGS_enable_pir_api=0). Padded [batch, time, ...] tensors with
the dense layers (conv1d, pooling, softmax with a mask) compute the same things.

Example:
    >>> import warnings
    >>> import dygraph
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     sequence_pool(dygraph.ones([4, 3]), 'sum')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    AssertionError: sequence_pool: sequence layers need LoD tensors ...
"""

from dygraph.framework.errors import op_error
from dygraph.utils.deprecated import deprecated

__all__ = ["sequence_conv", "sequence_expand", "sequence_first_step", "sequence_last_step",
           "sequence_pool", "sequence_softmax"]

_REASON = "This API will be deprecated in the future, because it's just for old static mode."


def _refuse(op):
    return op_error(op, "sequence layers need LoD tensors (variable-length sequences packed "
                    "with their offsets), which DyGraph does not have; Paddle 3.3's default "
                    "(PIR) static mode refuses them too. Pad the sequences to [batch, time, "
                    "...] and use the dense layers (conv1d, pooling, softmax with a mask)",
                    AssertionError)


@deprecated(since="3.0.0", reason=_REASON, level=1)
def sequence_conv(input, num_filters, filter_size=3, filter_stride=1,  # noqa: A002
                  padding=True, padding_start=None, bias_attr=None, param_attr=None,
                  act=None, name=None):
    """A convolution over the time steps of each LoD sequence: refused (no LoD tensors).

    Example:
        >>> import warnings
        >>> import dygraph
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     sequence_conv(dygraph.ones([4, 3]), 2)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        AssertionError: sequence_conv: sequence layers need LoD tensors ...
    """
    raise _refuse("sequence_conv")


@deprecated(since="3.0.0", reason=_REASON, level=1)
def sequence_expand(x, y, ref_level=-1, name=None):
    """x's sequences repeated as y's LoD at ref_level says: refused (no LoD tensors).

    Example:
        >>> import warnings
        >>> import dygraph
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     sequence_expand(dygraph.ones([2, 3]), dygraph.ones([4, 3]))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        AssertionError: sequence_expand: sequence layers need LoD tensors ...
    """
    raise _refuse("sequence_expand")


@deprecated(since="3.0.0", reason=_REASON, level=1)
def sequence_pool(input, pool_type, is_test=False, pad_value=0.0):  # noqa: A002
    """One row per LoD sequence ('sum', 'average', 'sqrt', 'max', 'first' or 'last' of its
    time steps): refused (no LoD tensors).

    Example:
        >>> import warnings
        >>> import dygraph
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     sequence_pool(dygraph.ones([4, 3]), 'max')  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        AssertionError: sequence_pool: sequence layers need LoD tensors ...
    """
    raise _refuse("sequence_pool")


@deprecated(since="3.0.0", reason=_REASON, level=1)
def sequence_first_step(input):  # noqa: A002
    """The first time step of each LoD sequence (sequence_pool 'first', which warns too, as
    in Paddle): refused (no LoD tensors).

    Example:
        >>> import warnings
        >>> import dygraph
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     sequence_first_step(dygraph.ones([4, 3]))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        AssertionError: sequence_pool: sequence layers need LoD tensors ...
    """
    return sequence_pool(input, "first")


@deprecated(since="3.0.0", reason=_REASON, level=1)
def sequence_last_step(input):  # noqa: A002
    """The last time step of each LoD sequence (sequence_pool 'last', which warns too, as
    in Paddle): refused (no LoD tensors).

    Example:
        >>> import warnings
        >>> import dygraph
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     sequence_last_step(dygraph.ones([4, 3]))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        AssertionError: sequence_pool: sequence layers need LoD tensors ...
    """
    return sequence_pool(input, "last")


@deprecated(since="3.0.0", reason=_REASON, level=1)
def sequence_softmax(input, use_cudnn=False, name=None):  # noqa: A002
    """A softmax over the time steps of each LoD sequence: refused (no LoD tensors).

    Example:
        >>> import warnings
        >>> import dygraph
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     sequence_softmax(dygraph.ones([4, 1]))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        AssertionError: sequence_softmax: sequence layers need LoD tensors ...
    """
    raise _refuse("sequence_softmax")
