"""Cases for the Layer classes of ``paddle.nn`` (namespace ``nn.Layer``).

Per class, from a construction rule: ``CTOR`` gives each common required argument a value
(``in_features=4``...), ``OVERRIDES`` the arguments and inputs of the classes the common
rule does not fit; the input's shape follows the family (``1D``: [2, 4, 8], ``2D``:
[2, 4, 6, 6], ``3D``: [2, 4, 4, 4, 4], else [3, 4]; losses take two). The cases:

* ``state``: the state_dict's keys, dtypes and shapes after construction;
* ``train`` / ``eval``: with every floating state value set to seeded values (recorded, so
  DyGraph gets the same state), the forward output in that mode, and in train mode the
  buffers after the forward (running statistics); random layers (dropout) compare dtypes and
  shapes only in train mode;
* ``bad``: one invalid construction argument where one is obvious (``BAD``), constructed
  and run forward: the exception type.

``SKIPPED`` names the classes with no cases and why.
"""

import inspect

import numpy as np

from .classes import construct, describe, find, keys_spec, parts
from .values import array, rng_for

NAMESPACE = "nn.Layer"

CTOR = {"in_features": 4, "out_features": 5, "in_channels": 4, "out_channels": 6,
        "kernel_size": 2, "output_size": 2, "num_features": 4, "num_channels": 4,
        "normalized_shape": 4, "padding": 1, "value": 0.5, "groups": 2,
        "upscale_factor": 2, "downscale_factor": 2, "norm_type": 2.0, "size": 3,
        "num_embeddings": 10, "embedding_dim": 4, "input_size": 4, "hidden_size": 5,
        "num_groups": 2, "kernel_sizes": 2, "in1_features": 4, "in2_features": 3,
        "d_model": 8, "nhead": 2, "dim_feedforward": 16, "embed_dim": 8, "num_heads": 2,
        "weight_shape": [4, 5], "axis": 1, "shape": [2, 2]}

F2, F3, F4 = ("f", [2, 4, 6, 6]), ("f", [2, 3, 4]), ("f", [3, 4])
# class -> {"kwargs": extra construction arguments, "inputs": [(kind, shape[, high])]}
# input kinds: f floats in [-2, 2), p positive, u in (0, 1), s signs, b 0/1 floats,
# i int64 indices below ``high``
OVERRIDES = {
    "Bilinear": {"inputs": [F4, ("f", [3, 3])]},
    "Embedding": {"inputs": [("i", [3, 2], 10)]},
    "Fold": {"kwargs": {"output_sizes": [4, 4]}, "inputs": [("f", [2, 8, 9])]},
    "Unfold": {"inputs": [F2]},
    "Upsample": {"kwargs": {"scale_factor": 2}, "inputs": [F2]},
    "FractionalMaxPool2D": {"kwargs": {"output_size": 3, "random_u": 0.3}, "inputs": [F2]},
    "FractionalMaxPool3D": {"kwargs": {"output_size": 2, "random_u": 0.3},
                            "inputs": [("f", [2, 4, 4, 4, 4])]},
    "CosineSimilarity": {"inputs": [F4, F4]},
    "PairwiseDistance": {"inputs": [F4, F4]},
    "ChannelShuffle": {"inputs": [F2]}, "PixelShuffle": {"inputs": [F2]},
    "PixelUnshuffle": {"inputs": [F2]}, "LocalResponseNorm": {"inputs": [F2]},
    "Maxout": {"inputs": [F2]}, "GroupNorm": {"inputs": [F2]}, "Flatten": {"inputs": [F2]},
    "SimpleRNN": {"inputs": [F3]}, "LSTM": {"inputs": [F3]}, "GRU": {"inputs": [F3]},
    "MultiHeadAttention": {"inputs": [("f", [2, 3, 8])]},
    "TransformerEncoderLayer": {"kwargs": {"dropout": 0.0}, "inputs": [("f", [2, 3, 8])]},
    "TransformerDecoderLayer": {"kwargs": {"dropout": 0.0},
                                "inputs": [("f", [2, 3, 8]), ("f", [2, 3, 8])]},
    "Transformer": {"kwargs": {"d_model": 8, "nhead": 2, "num_encoder_layers": 1,
                               "num_decoder_layers": 1, "dim_feedforward": 16,
                               "dropout": 0.0},
                    "inputs": [("f", [2, 3, 8]), ("f", [2, 3, 8])]},
    "SpectralNorm": {"inputs": [("f", [4, 5])]},
    "Unflatten": {"inputs": [F4]},
    "HSigmoidLoss": {"kwargs": {"feature_size": 4, "num_classes": 5},
                     "inputs": [F4, ("i", [3, 1], 5)]},
    "AdaptiveLogSoftmaxWithLoss": {"kwargs": {"n_classes": 6, "cutoffs": [2, 4]},
                                   "inputs": [F4, ("i", [3], 6)]},
    "BCELoss": {"inputs": [("u", [3, 4]), ("u", [3, 4])]},
    "BCEWithLogitsLoss": {"inputs": [F4, ("u", [3, 4])]},
    "CrossEntropyLoss": {"inputs": [F4, ("i", [3], 4)]},
    "NLLLoss": {"inputs": [F4, ("i", [3], 4)]},
    "MultiMarginLoss": {"inputs": [F4, ("i", [3], 4)]},
    "MultiLabelMarginLoss": {"inputs": [F4, ("i", [3, 4], 4)]},
    "MultiLabelSoftMarginLoss": {"inputs": [F4, ("b", [3, 4])]},
    "MarginRankingLoss": {"inputs": [F4, F4, ("s", [3, 4])]},
    "CosineEmbeddingLoss": {"inputs": [F4, F4, ("s", [3])]},
    "TripletMarginLoss": {"inputs": [F4, F4, F4]},
    "TripletMarginWithDistanceLoss": {"inputs": [F4, F4, F4]},
    "HingeEmbeddingLoss": {"inputs": [F4, ("s", [3, 4])]},
    "SoftMarginLoss": {"inputs": [F4, ("s", [3, 4])]},
    "GaussianNLLLoss": {"inputs": [F4, F4, ("p", [3, 4])]},
    "PoissonNLLLoss": {"inputs": [F4, ("p", [3, 4])]},
    "KLDivLoss": {"inputs": [F4, ("u", [3, 4])]},
}
for _alias in ("UpsamplingBilinear2D", "UpsamplingNearest2D", "UpsamplingBilinear2d",
               "UpsamplingNearest2d"):
    OVERRIDES[_alias] = {"kwargs": {"scale_factor": 2}, "inputs": [F2]}

SKIPPED = {
    **dict.fromkeys(["Layer", "Module", "LayerDict", "LayerList", "ModuleDict", "ModuleList",
                     "ParameterDict", "ParameterList", "Sequential", "RNNCellBase"],
                    "a container or base class, tested by its own tests"),
    **dict.fromkeys(["RNN", "BiRNN", "TransformerEncoder", "TransformerDecoder"],
                    "constructed from other layers"),
    **dict.fromkeys(["MaxUnPool1D", "MaxUnPool2D", "MaxUnPool3D", "MaxUnpool1d",
                     "MaxUnpool2d", "MaxUnpool3d"], "needs the indices of a max pool"),
    **dict.fromkeys(["CTCLoss", "RNNTLoss"], "needs sequence lengths and aligned labels"),
}
RANDOM = frozenset(["Dropout", "Dropout2D", "Dropout3D", "AlphaDropout",
                    "FeatureAlphaDropout", "RReLU"])

# class -> one invalid construction argument
BAD = {"Linear": {"in_features": -1}, "Dropout": {"p": 1.5}, "Dropout2D": {"p": -0.1},
       "AlphaDropout": {"p": 2.0}, "Conv2D": {"padding_mode": "mirror"},
       "Conv1D": {"data_format": "NLC2"}, "BatchNorm2D": {"data_format": "NC"},
       "LSTM": {"direction": "sideways"}, "GRU": {"direction": "sideways"},
       "MultiHeadAttention": {"num_heads": 3}, "Upsample": {"mode": "cubic4"},
       "Pad2D": {"mode": "mirror"}, "Embedding": {"padding_idx": 20},
       "AvgPool2D": {"data_format": "NCWH"}, "MaxPool2D": {"data_format": "NCWH"},
       "LayerNorm": {"normalized_shape": "abc"}, "GroupNorm": {"num_groups": 3},
       "PixelShuffle": {"data_format": "NCDHW"}, "Softmax2D": {"name": 3},
       "CrossEntropyLoss": {"reduction": "avg"}, "MSELoss": {"reduction": "avg"},
       "L1Loss": {"reduction": "avg"}, "NLLLoss": {"reduction": "avg"},
       "BCELoss": {"reduction": "avg"}, "KLDivLoss": {"reduction": "avg"},
       "SmoothL1Loss": {"reduction": "avg"}, "PReLU": {"data_format": "NCX"},
       "InstanceNorm2D": {"data_format": "NC"}, "Unfold": {"kernel_sizes": [2, 2, 2]}}


def family_shape(name):
    """The input shape of a layer from its name.

    >>> family_shape("Conv2D"), family_shape("ReLU")
    ([2, 4, 6, 6], [3, 4])
    """
    for dims, shape in (("1D", [2, 4, 8]), ("2D", [2, 4, 6, 6]), ("3D", [2, 4, 4, 4, 4])):
        if dims in name or dims.lower() in name:
            return shape
    return [3, 4]


def make_input(rng, desc):
    """An input array from a descriptor ``(kind, shape[, high])``."""
    kind, shape = desc[0], tuple(desc[1])
    if kind == "i":
        return rng.integers(0, desc[2], shape).astype("int64")
    if kind == "s":
        return np.where(rng.random(shape) < 0.5, -1.0, 1.0).astype("float32")
    if kind == "b":
        return (rng.random(shape) < 0.5).astype("float32")
    if kind == "u":
        return rng.uniform(0.05, 0.95, shape).astype("float32")
    return array(rng, shape, "float32", positive=kind == "p")


def recipe(name, cls):
    """``(construction kwargs, input descriptors)`` of a class, or None (no rule fits)."""
    if name in SKIPPED:
        return None
    override = OVERRIDES.get(name, {})
    try:
        signature = inspect.signature(cls.__init__)
    except (TypeError, ValueError):
        return None
    kwargs = {}
    for p in list(signature.parameters.values())[1:]:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.default is not p.empty:
            continue
        if p.name in override.get("kwargs", {}):
            continue
        if p.name not in CTOR:
            return None
        kwargs[p.name] = CTOR[p.name]
    kwargs.update(override.get("kwargs", {}))
    shape = family_shape(name)
    default = [("f", shape), ("f", shape)] if name.endswith("Loss") else [("f", shape)]
    return kwargs, override.get("inputs", default)


def layer_classes(fw):
    """The public Layer subclasses of ``fw.nn``, sorted by name."""
    return sorted(n for n in dir(fw.nn) if not n.startswith("_")
                  and inspect.isclass(getattr(fw.nn, n))
                  and issubclass(getattr(fw.nn, n), fw.nn.Layer))


def cases(fw):
    """Every layer case, generated from ``fw``'s classes (Paddle's, when recording)."""
    out = []
    for name in layer_classes(fw):
        found = recipe(name, getattr(fw.nn, name))
        if found is None:
            continue
        kwargs, inputs = found
        ctor = {k: {"py": v} for k, v in kwargs.items()}
        base = {"name": name, "kind": "layer", "kwargs": ctor}
        out.append(dict(base, id=f"{NAMESPACE}.{name}:c:state", args=[]))
        for mode in ("train", "eval"):
            case_id = f"{NAMESPACE}.{name}:c:{mode}"
            rng = rng_for(case_id)
            args = [{"tensor": make_input(rng, d)} for d in inputs]
            case = dict(base, id=case_id, args=args, mode=mode)
            if mode == "train" and name in RANDOM:
                case["random"] = True
            out.append(case)
        if name in BAD:
            rng = rng_for(f"{NAMESPACE}.{name}:c:bad")
            out.append(dict(base, id=f"{NAMESPACE}.{name}:c:bad", mode="eval",
                            kwargs=dict(ctor, **{k: {"py": v} for k, v in BAD[name].items()}),
                            args=[{"tensor": make_input(rng, d)} for d in inputs]))
    return out


def seeded_state(layer, case_id, fw):
    """Seeded values for the floating entries of a layer's state dict (variances
    positive); other entries keep their values."""
    rng = rng_for(case_id + ":state")
    out = {}
    for key, value in layer.state_dict().items():
        data = np.asarray(value.numpy())
        if data.dtype.kind == "f":
            positive = "var" in key.lower()
            data = array(rng, data.shape, "float64", positive=positive) * 0.5
            data = data.astype(np.asarray(value.numpy()).dtype)
        out[key] = {"tensor": data}
    return out


def run(case, fw):
    """Construct the layer; its state, or its forward in the case's mode."""
    layer = construct(find(fw.nn, case["name"]), case, fw)
    if "mode" not in case:
        return parts(state=keys_spec(layer.state_dict(), fw))
    if "state" not in case:  # recording: Paddle's keys, seeded values, buffers' names
        case["state"] = seeded_state(layer, case["id"], fw)
        params = dict(layer.named_parameters())
        case["buffers"] = [k for k in case["state"] if k not in params]
    layer.set_state_dict({k: fw.to_tensor(v["tensor"]) for k, v in case["state"].items()})
    layer.train() if case["mode"] == "train" else layer.eval()
    inputs = [fw.to_tensor(spec["tensor"]) for spec in case["args"]]
    if case.get("random"):  # only shapes are compared; seeded so that a record is repeatable
        fw.seed(0)
    out = layer(*inputs)
    answer = {"out": describe(out, fw)}
    if case["mode"] == "train" and case["buffers"]:
        state = layer.state_dict()  # the recorded buffers, in order; None where absent
        answer["state_after"] = {"seq": [describe(state.get(k), fw) for k in case["buffers"]]}
    return parts(**answer)
