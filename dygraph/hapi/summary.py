"""`summary` (the layer table Paddle prints) and `flops` of a network.

Example:
    >>> import dygraph
    >>> info = summary(dygraph.vision.models.LeNet(), (1, 1, 28, 28))  # doctest: +ELLIPSIS
    ---...
    >>> info
    {'total_params': 61610, 'trainable_params': 61610}
"""

import numpy as np

from dygraph.framework import dtype as _dt

__all__ = ["summary", "flops"]

_WIDTHS = {"layer": 15, "input": 20, "output": 20, "params": 15, "table": 75}


def _shape_list(value):
    if hasattr(value, "shape") and not isinstance(value, (list, tuple)):
        return list(value.shape)
    if isinstance(value, (list, tuple)):
        return [_shape_list(v) for v in value]
    return []


def _is_size(size):
    return isinstance(size, (list, tuple)) and all(
        isinstance(d, (int, np.integer)) or d is None for d in size)


def _make_inputs(input_size, dtypes):
    import dygraph

    sizes = [input_size] if _is_size(input_size) else list(input_size)
    dtypes = dtypes if isinstance(dtypes, (list, tuple)) else [dtypes] * len(sizes)
    inputs = []
    for size, dtype in zip(sizes, dtypes):
        size = [1 if d is None or d == -1 else int(d) for d in size]
        dtype = _dt.convert_dtype(dtype or "float32")
        if dtype.np_dtype.kind == "f":
            inputs.append(dygraph.rand(size, dtype=dtype.name))
        else:
            inputs.append(dygraph.zeros(size, dtype=dtype.name))
    return inputs


def _leaf_layers(net):
    return [(name, layer) for name, layer in net.named_sublayers(include_self=True)
            if not list(layer.children())]


def _records(net, inputs):
    """Run the network once; per leaf layer: its table name, input and output shapes and
    parameter counts."""
    from dygraph.autograd.grad_mode import no_grad

    records, counts, handles = [], {}, []

    def hook(layer, layer_inputs, output):
        kind = type(layer).__name__
        counts[kind] = counts.get(kind, 0) + 1
        params = [p for p in layer.parameters(include_sublayers=False)]
        records.append({
            "name": f"{kind}-{counts[kind]}",
            "input": _shape_list(list(layer_inputs)),
            "output": _shape_list(output),
            "params": int(sum(int(np.prod(p.shape)) for p in params)),
            "trainable": int(sum(int(np.prod(p.shape)) for p in params
                                 if not p.stop_gradient)),
            "out_size": _out_size(output),
            "layer": layer,
            "in_values": list(layer_inputs),
            "out_value": output,
        })

    for _, layer in _leaf_layers(net):
        handles.append(layer.register_forward_post_hook(hook))
    training = net.training
    net.eval()
    try:
        with no_grad():
            net(*inputs)
    finally:
        for h in handles:
            h.remove()
        if training:
            net.train()
    return records


def _out_size(output):
    if hasattr(output, "shape") and not isinstance(output, (list, tuple)):
        return int(np.prod(output.shape))
    if isinstance(output, (list, tuple)):
        return sum(_out_size(o) for o in output)
    return 0


def summary(net, input_size=None, dtypes=None, input=None):  # noqa: A002 - Paddle's name
    """Print Paddle's table of `net`'s leaf layers (type, input and output shapes,
    parameters), the totals and memory estimates, for an input of `input_size` (one shape
    or a list of shapes; None or -1 dims count as 1) or the given `input` tensors.
    Returns {'total_params': ..., 'trainable_params': ...}.
    """
    if input is None and input_size is None:
        raise ValueError("summary: give input_size (e.g. (1, 1, 28, 28)) or input")
    inputs = (list(input) if isinstance(input, (list, tuple)) else [input]) if input is not \
        None else _make_inputs(input_size, dtypes)
    records = _records(net, inputs)
    widths = dict(_WIDTHS)
    for r in records:
        widths["layer"] = max(widths["layer"], len(r["name"]))
        widths["input"] = max(widths["input"], len(str(r["input"])))
        widths["output"] = max(widths["output"], len(str(r["output"])))
        widths["params"] = max(widths["params"], len(f"{r['params']:,}"))
    inner = widths["layer"] + widths["input"] + widths["output"] + widths["params"]
    widths["table"] = max(widths["table"], inner + 5)

    def row(a, b, c, d):
        return (f"{a:^{widths['layer']}} {b:^{widths['input']}} {c:^{widths['output']}} "
                f"{d:^{widths['params']}}")

    lines = ["-" * widths["table"], row("Layer (type)", "Input Shape", "Output Shape",
                                       "Param #"), "=" * widths["table"]]
    for r in records:
        lines.append(row(r["name"], str(r["input"]), str(r["output"]), f"{r['params']:,}"))
    total = sum(int(np.prod(p.shape)) for p in net.parameters())
    trainable = sum(int(np.prod(p.shape)) for p in net.parameters() if not p.stop_gradient)
    itemsize = 4
    input_mb = sum(int(np.prod(t.shape)) for t in inputs) * itemsize / 2 ** 20
    output_mb = 2 * sum(r["out_size"] for r in records) * itemsize / 2 ** 20
    params_mb = total * itemsize / 2 ** 20
    lines += ["=" * widths["table"], f"Total params: {total:,}",
              f"Trainable params: {trainable:,}",
              f"Non-trainable params: {total - trainable:,}", "-" * widths["table"],
              f"Input size (MB): {input_mb:0.2f}",
              f"Forward/backward pass size (MB): {output_mb:0.2f}",
              f"Params size (MB): {params_mb:0.2f}",
              f"Estimated Total Size (MB): {input_mb + output_mb + params_mb:0.2f}",
              "-" * widths["table"]]
    print("\n".join(lines) + "\n")
    return {"total_params": total, "trainable_params": trainable}


def _layer_flops(layer, inputs, output):
    """Multiply-accumulate count of one leaf layer, as Paddle's flops counts them."""
    from dygraph import nn

    out = int(np.prod(output.shape)) if hasattr(output, "shape") else 0
    if isinstance(layer, (nn.Conv1D, nn.Conv2D, nn.Conv3D)):
        w = layer.weight.shape
        per_output = int(np.prod(w[1:]))
        return out * per_output + (out if layer.bias is not None else 0)
    if isinstance(layer, nn.Linear):
        return out * layer.weight.shape[0] + (out if layer.bias is not None else 0)
    if isinstance(layer, (nn.BatchNorm1D, nn.BatchNorm2D, nn.BatchNorm3D, nn.LayerNorm)):
        return 2 * int(np.prod(inputs[0].shape))
    if isinstance(layer, (nn.ReLU, nn.ReLU6, nn.LeakyReLU, nn.Sigmoid, nn.Tanh)):
        return 0
    if isinstance(layer, (nn.AvgPool2D, nn.AdaptiveAvgPool2D, nn.MaxPool2D)):
        return int(np.prod(inputs[0].shape))
    return 0


def flops(net, input_size, custom_ops=None, print_detail=False):
    """Total FLOPs of one forward pass of `net` on an input of `input_size`, counting a
    multiply-add as one, per leaf layer (conv, linear, norms and pools);
    `custom_ops` maps a Layer class to fn(layer, inputs, output) -> count.

    Example:
        >>> import dygraph
        >>> flops(dygraph.nn.Linear(4, 3), [1, 4])
        15
    """
    inputs = _make_inputs(input_size, None)
    custom_ops = custom_ops or {}
    total, detail = 0, []
    for r in _records(net, inputs):
        counter = custom_ops.get(type(r["layer"]), _layer_flops)
        count = int(counter(r["layer"], r["in_values"], r["out_value"]))
        total += count
        detail.append((r["name"], r["input"], r["output"], r["params"], count))
    if print_detail:
        print(f"{'Layer Name':<20}{'Input Shape':<24}{'Output Shape':<24}{'Params':>10}"
              f"{'Flops':>14}")
        for name, ins, outs, params, count in detail:
            print(f"{name:<20}{str(ins):<24}{str(outs):<24}{params:>10,}{count:>14,}")
        print(f"Total Flops: {total:,}     Total Params: "
              f"{sum(int(np.prod(p.shape)) for p in net.parameters()):,}")
    return total
