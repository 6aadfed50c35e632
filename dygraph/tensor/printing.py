"""Printing tensors in Paddle's format, as the seeds show it:

    Tensor(shape=[4, 2], dtype=float32, place=CPUPlace, stop_gradient=True,
           [[1.60883498, 0.43853286],
            [-1.14591110,  1.26320088]])

Floats print with 8 decimals, whole floats as '2.'; within each innermost row a positive
item gets one space where another item of that row has a minus sign. Tensors of more than
`threshold` items are summarised with '...' around `edgeitems` items per side.
"""

import numpy as np

__all__ = ["set_printoptions", "format_tensor"]

_options = {"precision": 8, "threshold": 1000, "edgeitems": 3, "linewidth": 80,
            "sci_mode": False}


def set_printoptions(precision=None, threshold=None, edgeitems=None, sci_mode=None,
                     linewidth=None):
    """Change how tensors print (same knobs as Paddle's).

    Example:
        >>> set_printoptions(precision=4); set_printoptions(precision=8)
    """
    for key, value in (("precision", precision), ("threshold", threshold),
                       ("edgeitems", edgeitems), ("sci_mode", sci_mode),
                       ("linewidth", linewidth)):
        if value is not None:
            _options[key] = value


def _item_text(value):
    if isinstance(value, (np.floating, float)):
        if _options["sci_mode"]:
            return f"{value:.{_options['precision']}e}"
        if np.isfinite(value) and np.ceil(value) == value:
            return f"{value:.0f}."
        return f"{value:.{_options['precision']}f}"
    if isinstance(value, (np.bool_, bool)):
        return "True" if value else "False"
    if isinstance(value, (np.complexfloating, complex)):
        return f"({value.real:.{_options['precision']}f}{value.imag:+.{_options['precision']}f}j)"
    return str(value)


def _row_text(row):
    """One innermost row: items joined by ', ' with the sign column aligned."""
    if isinstance(row, str):
        return row
    texts = [t if isinstance(t, str) else _item_text(t) for t in row]
    width = max((len(t) for t in texts), default=0)
    signed = any(t.startswith("-") for t in texts)
    out = []
    for text in texts:
        if width > len(text) and signed and not text.startswith("-") and text != "...":
            text = " " + text
        out.append(text)
    return "[" + ", ".join(out) + "]"


def _summarise(array, edge):
    """Nested lists with '...' in place of the middle of long axes."""
    if array.ndim == 1:
        if array.shape[0] > 2 * edge:
            return list(array[:edge]) + ["..."] + list(array[-edge:])
        return list(array)
    if array.shape[0] > 2 * edge:
        head = [_summarise(a, edge) for a in array[:edge]]
        tail = [_summarise(a, edge) for a in array[-edge:]]
        return head + ["..."] + tail
    return [_summarise(a, edge) for a in array]


def _nested_text(nested, depth, indent):
    if depth == 1:
        return _row_text(nested)
    pad = " " * (indent + 1)
    parts = [item if isinstance(item, str) else _nested_text(item, depth - 1, indent + 1)
             for item in nested]
    sep = "," + "\n" * (depth - 1) + pad
    return "[" + sep.join(parts) + "]"


def format_data(array, indent):
    """The value part of a tensor's repr (no header)."""
    if array.ndim == 0:
        return _item_text(array.item() if array.dtype.kind not in "fc" else array[()])
    if array.size > _options["threshold"]:
        nested = _summarise(array, _options["edgeitems"])
    else:
        nested = _summarise(array, max(array.shape) + 1)
    return _nested_text(nested, array.ndim, indent)


def format_tensor(tensor):
    """The full repr of a Tensor.

    Example:
        >>> import dygraph
        >>> print(dygraph.to_tensor([1.0, 2.0]))
        Tensor(shape=[2], dtype=float32, place=CPUPlace, stop_gradient=True,
               [1., 2.])
    """
    indent = 7
    head = (f"Tensor(shape={tensor.shape}, dtype={tensor.dtype.name}, place={tensor.place}, "
            f"stop_gradient={tensor.stop_gradient},\n")
    return head + " " * indent + format_data(tensor._host(), indent) + ")"
