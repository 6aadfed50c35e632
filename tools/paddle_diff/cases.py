"""Cases for a function, generated from its signature.

Each required parameter gets a role from its name: a tensor that takes the case's dtype
(``x``, ``y``, ``weight``...), an index tensor, a mask, or a plain value from ``VALUES``.
A function with a required parameter of no known role gets no cases. The variants: each
dtype, 0-D, 0-size and broadcast shapes, negative and positive axes, ``keepdim``, every
keyword default given explicitly (with ``name=``), two invalid inputs (mismatched shapes, a
string for a tensor), a gradient case, and, for a name ending in ``_``, whether the result
is its input.

A case is a dict: ``id``, ``name``, ``args`` and ``kwargs`` (value specs, see ``execute``),
and where they apply ``kind`` (``method``; a function when absent), ``grad`` (take
gradients), ``random`` (compare dtype and shape only).
"""

import inspect

from .names import is_random
from .values import array, index_array, rng_for, well_conditioned

TENSOR_PARAMS = frozenset("""x y input other label weight bias x1 x2 vec mat2 logit logits arr
query key updates src positive negative values input1 input2 target labels mat a b""".split())
INDEX_PARAMS = frozenset(["index", "indices"])
MASK_PARAMS = frozenset(["mask", "condition"])
# Plain values of required parameters; a callable gets the first tensor's shape.
VALUES = {
    "shape": [2, 3], "axis": -1, "dim": -1, "value": 2.0, "fill_value": 2.0, "n": 3, "k": 2,
    "p": 2.0, "num_or_sections": 2, "repeat_times": [2, 1], "chunks": 2, "start": 0,
    "stop": 5, "end": 5, "num": 4, "shifts": 1, "kernel_size": 2, "output_size": 2,
    "num_classes": 4, "num_groups": 1, "groups": 1, "axes": [-1], "dims": [-1],
    "starts": [0], "ends": [2], "strides": [1], "dtype": "float32", "repeats": 2,
    "num_or_indices": 2, "scale": 2.0, "q": 0.5, "source": 0, "destination": -1,
    "perm": lambda shape: list(reversed(range(len(shape)))),
    "normalized_shape": lambda shape: list(shape[-1:]),
}
# Parameters that VALUES gives a plain value but that are tensors of these names, with
# their shape from the first tensor's (a slice_scatter value fills the slice [:, 0:2]).
TENSOR_VALUES = {
    "masked_scatter": {"value": lambda shape: shape},
    "masked_scatter_": {"value": lambda shape: shape},
    "slice_scatter": {"value": lambda shape: shape[:-1] + (2,)},
}
# Plain values that differ for a name: Paddle 3.3's slice_scatter reads axes [-1] as a
# slice of the whole tensor (a shape error), so its cases give axis 1.
NAME_VALUES = {"slice_scatter": {"axes": [1]}}
DTYPES = ("float64", "int32", "int64", "bool", "complex64", "complex128")
SKIPPED_KEYWORDS = frozenset(["out", "device", "pin_memory", "place"])


def base_shape(namespace, name):
    """The shape of a case's first tensor, from the name's family.

    >>> base_shape("nn.functional", "conv2d"), base_shape("paddle", "add")
    ((2, 3, 6, 6), (3, 4))
    """
    if namespace == "linalg":
        return (3, 3)
    for dims in (1, 2, 3):
        if f"{dims}d" in name:
            return (2, 3) + (8, 6, 4)[dims - 1:dims] * dims
    return (3, 4)


def param_shape(name, param, first):
    """The shape of a further tensor parameter: weights of convolutions and of linear
    follow the first tensor's channels; every other tensor takes the first one's shape."""
    if "conv" in name and param in ("weight", "bias"):
        dims = len(first) - 2
        if param == "bias":
            return (4,)
        return ((3, 4) if "transpose" in name else (4, 3)) + (3,) * dims
    if name in ("linear", "bilinear") and param in ("weight", "bias"):
        return (first[-1], 5) if param == "weight" else (5,)
    return first


class Variant:
    """How one case differs from the plain float32 call."""

    def __init__(self, label, dtype="float32", shapes="base", positive=False, grad=False,
                 extra=None, bad_type=False):
        self.label, self.dtype, self.shapes, self.positive = label, dtype, shapes, positive
        self.grad, self.extra, self.bad_type = grad, extra or {}, bad_type


def roles(signature):
    """The required parameters and their roles; None if one has no known role.

    >>> def f(x, y, axis=0, name=None): pass
    >>> roles(inspect.signature(f))
    [('x', 'tensor', 'p'), ('y', 'tensor', 'p')]
    """
    out = []
    for p in signature.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.default is not p.empty:
            continue
        how = "k" if p.kind == p.KEYWORD_ONLY else "p"
        if p.name in TENSOR_PARAMS:
            out.append((p.name, "tensor", how))
        elif p.name in INDEX_PARAMS:
            out.append((p.name, "index", how))
        elif p.name in MASK_PARAMS:
            out.append((p.name, "mask", how))
        elif p.name in VALUES:
            out.append((p.name, "value", how))
        else:
            return None
    return out


def variants(signature, tensors, namespace):
    """The variants that apply to a signature with ``tensors`` varying tensor params."""
    optional = {p.name: p.default for p in signature.parameters.values()
                if p.default is not p.empty}
    out = [Variant("f32")] + [Variant(d, dtype=d) for d in DTYPES]
    if tensors:
        out += [Variant("0d", shapes="0d"), Variant("0size", shapes="0size"),
                Variant("grad", dtype="float64", positive=True, grad=True),
                Variant("bad_type", bad_type=True)]
    if tensors >= 2:
        out += [Variant("bcast", shapes="bcast"), Variant("bcast2", shapes="bcast2"),
                Variant("bad_shape", shapes="bad")]
    for axis_name in ("axis", "dim"):
        if axis_name in optional:
            out += [Variant(f"{axis_name}=-1", extra={axis_name: -1}),
                    Variant(f"{axis_name}=0", extra={axis_name: 0})]
            if "keepdim" in optional:
                out.append(Variant("keepdim", extra={axis_name: -1, "keepdim": True}))
    if "dtype" in optional and not tensors:
        out += [Variant("dtype=float64", extra={"dtype": "float64"}),
                Variant("dtype=int64", extra={"dtype": "int64"})]
    defaults = {k: v for k, v in optional.items() if k not in SKIPPED_KEYWORDS
                and (v is None or isinstance(v, (bool, int, float, str)))}
    if defaults:
        out.append(Variant("defaults", extra=dict(defaults, name="t") if "name" in defaults
                           else defaults))
    return out


def shapes_for(variant, count, first):
    """The shapes of the ``count`` varying tensors of a variant."""
    bcast = {"bcast": [first, first[-1:]], "bcast2": [first[:-1] + (1,), (1,) + first[-1:]],
             "bad": [first, tuple(s + 1 for s in first)]}
    if variant.shapes in bcast:
        pair = bcast[variant.shapes]
        return [pair[min(i, 1)] for i in range(count)]
    if variant.shapes == "0d":
        return [()] * count
    if variant.shapes == "0size":
        return [(0,) + first[1:]] * count
    return [first] * count


def build(namespace, name, signature, variant, kind="function"):
    """One case of ``name`` for a variant, or None where the variant does not apply."""
    found = roles(signature)
    if found is None:
        return None
    tensor_values = TENSOR_VALUES.get(name, {})
    found = [(param, "tensor" if param in tensor_values else role, how)
             for param, role, how in found]
    case_id = f"{namespace}.{name}:{kind[0]}:{variant.label}"
    rng = rng_for(case_id)
    first = base_shape(namespace, name)
    varying = [n for n, role, _ in found if role == "tensor"]
    shapes = dict(zip(varying, shapes_for(variant, len(varying), first)))
    args, kwargs = [], {}
    for param, role, how in found:
        if role == "tensor":
            if variant.shapes != "base":
                shape = shapes[param]
            elif param in tensor_values:
                shape = tensor_values[param](first)
            else:
                shape = param_shape(name, param, first)
            make = well_conditioned if namespace == "linalg" and not variant.positive \
                else lambda r, s, d, p=variant.positive: array(r, s, d, positive=p)
            spec = {"tensor": make(rng, shape, variant.dtype)}
            if variant.grad and variant.dtype.startswith("float"):
                spec["grad"] = True
            if variant.bad_type and param == varying[0]:
                spec = {"py": "abc"}
        elif role == "index":
            spec = {"tensor": index_array(rng, (2,), min(first))}
        elif role == "mask":
            spec = {"tensor": array(rng, first, "bool")}
        else:
            value = NAME_VALUES.get(name, {}).get(param, VALUES[param])
            spec = {"py": value(first) if callable(value) else value}
        if how == "k":
            kwargs[param] = spec
        else:
            args.append(spec)
    if kind == "method":
        if not args or "tensor" not in args[0]:
            return None
    kwargs.update({k: {"py": v} for k, v in variant.extra.items()})
    case = {"id": case_id, "name": name, "args": args, "kwargs": kwargs}
    # only what differs from a plain function call is written, to keep the files small
    flags = {"kind": kind if kind != "function" else None, "grad": variant.grad,
             "random": is_random(name)}
    case.update({k: v for k, v in flags.items() if v})
    return case


def function_cases(namespace, name, function, kind="function", labels=None):
    """All cases of one function (only the variants in ``labels`` when given).

    >>> import numpy as np
    >>> def add(x, y, name=None): pass
    >>> [c["id"] for c in function_cases("paddle", "add", add)][:3]
    ['paddle.add:f:f32', 'paddle.add:f:float64', 'paddle.add:f:int32']
    """
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return []
    found = roles(signature)
    if found is None:
        return []
    tensors = sum(role == "tensor" for _, role, _ in found)
    out = []
    for variant in variants(signature, tensors, namespace):
        if labels is not None and variant.label not in labels:
            continue
        case = build(namespace, name, signature, variant, kind)
        if case is not None:
            out.append(case)
    return out
