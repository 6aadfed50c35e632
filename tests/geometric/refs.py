"""Paddle 3.3's recorded results for paddle.geometric (tests/data/geometric_refs.json,
written by tools/record_geometric_refs.py) and the helpers that replay a case on DyGraph."""

import json
import pathlib

import numpy as np

import dygraph
import dygraph.geometric as G

REFS = json.loads((pathlib.Path(__file__).resolve().parents[1] / "data" /
                   "geometric_refs.json").read_text())


def build(arg):
    """A case's argument as DyGraph sees it: tensors (float ones need a gradient), lists of
    tensors, or the plain value."""
    if isinstance(arg, dict) and "tensor" in arg:
        dtype = arg["dtype"]
        return dygraph.to_tensor(np.asarray(arg["tensor"], dtype=dtype),
                                 stop_gradient=not dtype.startswith("float"))
    if isinstance(arg, list) and arg and isinstance(arg[0], dict):
        return [build(a) for a in arg]
    return arg


def call(case):
    """(the built arguments, DyGraph's outputs as a list) of a recorded case."""
    args = [build(a) for a in case["args"]]
    kwargs = {k: build(v) for k, v in case["kwargs"].items()}
    out = getattr(G, case["fn"])(*args, **kwargs)
    return args, list(out) if isinstance(out, tuple) else [out]


def label(case):
    """A readable test id: the function and its arguments' shapes, dtypes and options."""
    parts = []
    for a in case["args"]:
        if isinstance(a, dict):
            parts.append(f"{a['dtype']}{list(np.shape(a['tensor']))}")
        elif isinstance(a, list):
            parts.append(f"list{len(a)}")
    options = ",".join(f"{k}={v if not isinstance(v, dict) else 'T'}"
                       for k, v in case["kwargs"].items() if k not in ("eids",))
    return f"{case['fn']}({' '.join(parts)}{';' + options if options else ''})"
