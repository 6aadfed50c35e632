"""A stand-in for NVIDIA's cuDNN frontend (the `cudnn` Python package) for the CuPy stand-in.

dygraph/backend/cudnn/ builds cuDNN graphs through the frontend and runs them on the
device pointers of CuPy arrays. This module has the part of the frontend's API it uses
(`pygraph`, its tensors, `conv_fprop`, `conv_dgrad`, `conv_wgrad`, `batchnorm`,
`batchnorm_backward`, `sdpa`, `sdpa_backward`, plan building and `execute`), and runs a
built graph with NumPy on the memory behind the pointers it is given (the stand-in's arrays
are host memory), so that:

- a GPU step's calls can be counted as a GPU with cuDNN makes them: one `execute` is one
  call, as one cuDNN launch (`benchmarks/gpu_calls.py`);
- DyGraph's side of cuDNN (operand layouts, the graph cache, the statistics it returns and
  what the ops do with them, capture into CUDA graphs) runs in CI, with results checked
  against the CPU's.

The arithmetic is float64 NumPy, rounded to the output's dtype: what cuDNN's kernels compute
is not modelled (the GPU tests compare real cuDNN with the CuPy paths). Running statistics
follow cuDNN's definitions (the unbiased variance, `momentum` weighting the batch).

Example:
    >>> lib = module()
    >>> graph = lib.pygraph(io_data_type=lib.data_type.FLOAT)
    >>> x = graph.tensor(name="x", dim=[1, 1, 1, 2], stride=[2, 2, 2, 1],
    ...                  data_type=lib.data_type.FLOAT)
    >>> x.get_uid() >= 0
    True
"""

import ctypes
import itertools
import types

import numpy as np

from tools.cupy_standin.arrays import POINTED
from tools.cupy_standin.state import _STATE, _capturing, count_call

__all__ = ["module"]

_DTYPES = {"FLOAT": np.dtype(np.float32), "HALF": np.dtype(np.float16),
           "DOUBLE": np.dtype(np.float64)}
_NOTES = ("TENSOR_CORE", "DOWN_CONVERT_INPUTS", "REDUCED_PRECISION_REDUCTION", "FFT",
          "NONDETERMINISTIC", "WINOGRAD", "WINOGRAD_TILE_4x4", "WINOGRAD_TILE_6x6",
          "WINOGRAD_TILE_13x13")


class _Tensor:
    """A graph tensor: dims, strides (in elements), data type, and whether it is a host
    scalar passed by value."""

    def __init__(self, uid, name, dim=None, stride=None, data_type=None, by_value=False):
        self.uid, self.name, self.by_value = uid, name, by_value
        self.dim = None if dim is None else [int(d) for d in dim]
        self.stride = None if stride is None else [int(s) for s in stride]
        self.data_type = data_type

    def get_uid(self):
        return self.uid

    def set_output(self, flag):
        return self

    def set_dim(self, dim):
        self.dim = [int(d) for d in dim]
        return self

    def set_stride(self, stride):
        self.stride = [int(s) for s in stride]
        return self

    def set_data_type(self, data_type):
        self.data_type = data_type
        return self


def _view(ptr, tensor):
    """The NumPy array over the memory at `ptr` that `tensor` describes (writable)."""
    dtype = _DTYPES[tensor.data_type]
    span = 1 + sum((d - 1) * s for d, s in zip(tensor.dim, tensor.stride))
    flat = np.frombuffer((ctypes.c_char * (span * dtype.itemsize)).from_address(ptr), dtype)
    return np.lib.stride_tricks.as_strided(
        flat, shape=tensor.dim, strides=[s * dtype.itemsize for s in tensor.stride])


def _windows(args, ksize, out_spatial):
    """For each kernel offset: (offset, the slices of a padded (N, C, *S) array that the
    offset's taps read for every output position)."""
    for offset in itertools.product(*(range(k) for k in ksize)):
        parts = [slice(None), slice(None)]
        for i, o, s, d in zip(offset, out_spatial, args["stride"], args["dilation"]):
            parts.append(slice(i * d, i * d + s * (o - 1) + 1, s))
        yield offset, tuple(parts)


def _grouped(a, groups):
    """(N, C, *S) -> (N, groups, C / groups, prod(S))."""
    return a.reshape(a.shape[0], groups, a.shape[1] // groups, -1)


def _pad(args):
    return [(0, 0), (0, 0)] + list(zip(args["pre"], args["post"]))


def _conv_fprop(arrays, node):
    x, w, y = (arrays[node[k]] for k in ("image", "weight", "out"))
    x, w = x.astype(np.float64), w.astype(np.float64)
    groups = x.shape[1] // w.shape[1]
    xp = np.pad(x, _pad(node["args"]))
    acc = np.zeros((y.shape[0], groups, y.shape[1] // groups, int(np.prod(y.shape[2:]))))
    wg = w.reshape((groups, w.shape[0] // groups) + w.shape[1:])
    for offset, parts in _windows(node["args"], w.shape[2:], y.shape[2:]):
        taps = _grouped(np.ascontiguousarray(xp[parts]), groups)
        acc += np.einsum("ngcp,gmc->ngmp", taps, wg[(slice(None),) * 3 + offset])
    y[...] = acc.reshape(y.shape)


def _conv_dgrad(arrays, node):
    g, w, dx = (arrays[node[k]] for k in ("loss", "filter", "out"))
    g, w = g.astype(np.float64), w.astype(np.float64)
    groups = dx.shape[1] // w.shape[1]
    args = node["args"]
    padded = np.zeros(dx.shape[:2] + tuple(n + lo + hi for n, lo, hi in
                                           zip(dx.shape[2:], args["pre"], args["post"])))
    gg = _grouped(g, groups)
    wg = w.reshape((groups, w.shape[0] // groups) + w.shape[1:])
    for offset, parts in _windows(args, w.shape[2:], g.shape[2:]):
        taps = np.einsum("ngmp,gmc->ngcp", gg, wg[(slice(None),) * 3 + offset])
        padded[parts] += taps.reshape(padded[parts].shape)
    inner = tuple(slice(lo, lo + n) for lo, n in zip(args["pre"], dx.shape[2:]))
    dx[...] = padded[(slice(None), slice(None)) + inner]


def _conv_wgrad(arrays, node):
    x, g, dw = (arrays[node[k]] for k in ("image", "loss", "out"))
    x, g = x.astype(np.float64), g.astype(np.float64)
    groups = x.shape[1] // dw.shape[1]
    xp = np.pad(x, _pad(node["args"]))
    gg = _grouped(g, groups)
    out = np.zeros((groups, dw.shape[0] // groups) + dw.shape[1:])
    for offset, parts in _windows(node["args"], dw.shape[2:], g.shape[2:]):
        taps = _grouped(np.ascontiguousarray(xp[parts]), groups)
        out[(slice(None),) * 3 + offset] = np.einsum("ngcp,ngmp->gmc", taps, gg)
    dw[...] = out.reshape(dw.shape)


def _channel_axes(a):
    return (0,) + tuple(range(2, a.ndim))


def _batchnorm(arrays, node):
    get = {k: arrays[v] for k, v in node.items() if k != "op"}
    x = get["input"].astype(np.float64)
    axes = _channel_axes(x)
    eps, momentum = float(get["epsilon"].reshape(-1)[0]), float(get["momentum"].reshape(-1)[0])
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    get["y"][...] = (x - mean) * rstd * get["scale"] + get["bias"]
    count = x.size // x.shape[1]
    unbiased = var * count / max(count - 1, 1)
    get["next_mean"][...] = (1 - momentum) * get["in_running_mean"] + momentum * mean
    get["next_var"][...] = (1 - momentum) * get["in_running_var"] + momentum * unbiased
    get["mean"][...] = mean
    get["inv_variance"][...] = rstd


def _batchnorm_backward(arrays, node):
    get = {k: arrays[v] for k, v in node.items() if k != "op"}
    g, x = get["grad"].astype(np.float64), get["input"].astype(np.float64)
    axes = _channel_axes(x)
    rstd, scale = get["inv_variance"].astype(np.float64), get["scale"].astype(np.float64)
    xhat = (x - get["mean"]) * rstd
    gs = g * scale
    get["dx"][...] = rstd * (gs - gs.mean(axis=axes, keepdims=True)
                             - xhat * (gs * xhat).mean(axis=axes, keepdims=True))
    get["dscale"][...] = (g * xhat).sum(axis=axes, keepdims=True)
    get["dbias"][...] = g.sum(axis=axes, keepdims=True)


def _attention_scores(get, args):
    """(q, k, v as float64 (batch, heads, seq, dim) with k and v repeated over each group
    of query heads, the probabilities P, the group size)."""
    q, k, v = (get[n].astype(np.float64) for n in ("q", "k", "v"))
    group = q.shape[1] // k.shape[1]
    k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    s = q @ k.swapaxes(2, 3) * args["scale"]
    if args["causal"]:  # top-left aligned, right bound 0: key j <= query i
        s = np.where(np.tri(s.shape[2], s.shape[3], dtype=bool), s, -np.inf)
    top = s.max(axis=3, keepdims=True)
    lse = top + np.log(np.exp(s - top).sum(axis=3, keepdims=True))
    return q, k, v, np.exp(s - lse), lse, group


def _sdpa(arrays, node):
    get = {k: arrays[v] for k, v in node.items() if k not in ("op", "args")}
    _, _, v, p, lse, _ = _attention_scores(get, node["args"])
    get["out"][...] = p @ v
    get["stats_out"][...] = lse


def _sdpa_backward(arrays, node):
    get = {k: arrays[v] for k, v in node.items() if k not in ("op", "args")}
    q, k, v, _, _, group = _attention_scores(get, node["args"])
    # The probabilities from the forward's stats, as cuDNN's backward takes them: a stats
    # array of another layout or meaning gives other gradients here too.
    s = q @ k.swapaxes(2, 3) * node["args"]["scale"]
    if node["args"]["causal"]:
        s = np.where(np.tri(s.shape[2], s.shape[3], dtype=bool), s, -np.inf)
    p = np.exp(s - get["stats"].astype(np.float64))
    g = get["dO"].astype(np.float64)
    dp = g @ v.swapaxes(2, 3)
    ds = p * (dp - (dp * p).sum(axis=3, keepdims=True)) * node["args"]["scale"]
    b, heads = q.shape[:2]
    get["dq"][...] = ds @ k
    get["dk"][...] = (ds.swapaxes(2, 3) @ q).reshape(b, heads // group, group,
                                                      *k.shape[2:]).sum(axis=2)
    get["dv"][...] = (p.swapaxes(2, 3) @ g).reshape(b, heads // group, group,
                                                     *v.shape[2:]).sum(axis=2)


_RUN = {"conv_fprop": _conv_fprop, "conv_dgrad": _conv_dgrad, "conv_wgrad": _conv_wgrad,
        "batchnorm": _batchnorm, "batchnorm_backward": _batchnorm_backward,
        "sdpa": _sdpa, "sdpa_backward": _sdpa_backward}
# What cuDNN's fused attention takes (the graph is declined otherwise): half-precision data,
# head dims a multiple of 8 up to 128.
_ATTENTION_TYPES = ("HALF", "BFLOAT16")


class _Graph:
    """A frontend graph: tensors, operation nodes (each a dict of role -> tensor uid), and
    after build_plans() a runnable plan."""

    def __init__(self, **options):
        self.tensors, self.nodes, self.built = {}, [], False
        self.deselected = ()  # the numerical notes whose engines may not run (kept to read)

    def _new(self, name, **kw):
        tensor = _Tensor(len(self.tensors), name, **kw)
        self.tensors[tensor.uid] = tensor
        return tensor

    def tensor(self, name, dim, stride, data_type, is_pass_by_value=False):
        return self._new(name, dim=dim, stride=stride, data_type=data_type,
                         by_value=is_pass_by_value)

    def _conv(self, op, first, second, roles, pre_padding, post_padding, stride, dilation,
              **options):
        out = self._new(f"{op}_out")
        self.nodes.append({"op": op, roles[0]: first.uid, roles[1]: second.uid,
                           "out": out.uid, "args": {
                               "pre": list(pre_padding), "post": list(post_padding),
                               "stride": list(stride), "dilation": list(dilation)}})
        return out

    def conv_fprop(self, image, weight, **kw):
        return self._conv("conv_fprop", image, weight, ("image", "weight"), **kw)

    def conv_dgrad(self, loss, filter, **kw):
        return self._conv("conv_dgrad", loss, filter, ("loss", "filter"), **kw)

    def conv_wgrad(self, image, loss, **kw):
        return self._conv("conv_wgrad", image, loss, ("image", "loss"), **kw)

    def batchnorm(self, input, scale, bias, in_running_mean, in_running_var, epsilon,
                  momentum, **options):
        outs = [self._new(n) for n in ("y", "mean", "inv_variance", "next_mean", "next_var")]
        node = {"op": "batchnorm", "input": input.uid, "scale": scale.uid, "bias": bias.uid,
                "in_running_mean": in_running_mean.uid, "in_running_var": in_running_var.uid,
                "epsilon": epsilon.uid, "momentum": momentum.uid}
        node.update((t.name, t.uid) for t in outs)
        self.nodes.append(node)
        return outs

    def batchnorm_backward(self, grad, input, scale, mean, inv_variance, **options):
        outs = [self._new(n) for n in ("dx", "dscale", "dbias")]
        node = {"op": "batchnorm_backward", "grad": grad.uid, "input": input.uid,
                "scale": scale.uid, "mean": mean.uid, "inv_variance": inv_variance.uid}
        node.update((t.name, t.uid) for t in outs)
        self.nodes.append(node)
        return outs

    def _attention_args(self, q, attn_scale, diagonal_alignment, diagonal_band_right_bound):
        causal = diagonal_band_right_bound is not None
        if causal and (diagonal_alignment != "TOP_LEFT" or diagonal_band_right_bound != 0):
            raise NotImplementedError("cudnn stand-in: only the top-left causal band")
        return {"scale": float(attn_scale), "causal": causal, "q": q}

    def sdpa(self, q, k, v, generate_stats, attn_scale, name="", diagonal_alignment=None,
             diagonal_band_right_bound=None, **options):
        if options:
            raise NotImplementedError(f"cudnn stand-in: sdpa options {sorted(options)}")
        outs = [self._new("out"), self._new("stats", data_type="FLOAT")]
        self.nodes.append({"op": "sdpa", "q": q.uid, "k": k.uid, "v": v.uid,
                           "out": outs[0].uid, "stats_out": outs[1].uid,
                           "args": self._attention_args(q, attn_scale, diagonal_alignment,
                                                        diagonal_band_right_bound)})
        return outs if generate_stats else [outs[0], None]

    def sdpa_backward(self, q, k, v, o, dO, stats, attn_scale, name="",
                      diagonal_alignment=None, diagonal_band_right_bound=None, **options):
        if options:
            raise NotImplementedError(f"cudnn stand-in: sdpa_backward options {sorted(options)}")
        outs = [self._new(n) for n in ("dq", "dk", "dv")]
        node = {"op": "sdpa_backward", "q": q.uid, "k": k.uid, "v": v.uid, "o": o.uid,
                "dO": dO.uid, "stats": stats.uid,
                "args": self._attention_args(q, attn_scale, diagonal_alignment,
                                             diagonal_band_right_bound)}
        node.update((t.name, t.uid) for t in outs)
        self.nodes.append(node)
        return outs

    def validate(self):
        for tensor in self.tensors.values():
            if tensor.dim is None or tensor.stride is None or tensor.data_type is None:
                raise RuntimeError(f"cudnn stand-in: tensor {tensor.name!r} has no dims, "
                                   f"strides or data type")
            if min(tensor.stride) < 1:  # as cuDNN's tensor descriptors
                raise RuntimeError(f"cudnn stand-in: tensor {tensor.name!r} has a stride "
                                   f"below 1: {tensor.stride}")
            if tensor.data_type not in _DTYPES:
                raise RuntimeError(f"cudnn stand-in: data type {tensor.data_type} is not "
                                   f"supported")

    def build_operation_graph(self):
        pass

    def create_execution_plans(self, modes):
        pass

    def deselect_numeric_notes(self, notes):
        self.deselected = tuple(notes)

    def check_support(self):
        for node in self.nodes:
            q = node.get("args", {}).get("q")
            if node["op"].startswith("sdpa") and (
                    q.data_type not in _ATTENTION_TYPES or q.dim[3] % 8 or q.dim[3] > 128):
                raise RuntimeError("cudnn stand-in: no fused attention engine for "
                                   f"{q.data_type} data of head dim {q.dim[3]}")

    def build_plans(self):
        self.built = True

    def get_workspace_size(self):
        return 256

    def execute(self, pack, workspace, handle=None):
        """Run the graph on the memory at the pointers of `pack` (uid -> address): one call
        to count, recorded for replay while a stream captures."""
        if not self.built:
            raise RuntimeError("cudnn stand-in: execute before build_plans")
        arrays = {uid: _view(pack[uid], t) for uid, t in self.tensors.items()}
        count_call("cudnn " + "+".join(node["op"] for node in self.nodes))
        if _capturing():
            # A real capture runs nothing: undo the writes at the capture's end, and run the
            # graph again at each replay, keeping the arrays behind the pointers alive.
            for node in self.nodes:
                for uid in self._outputs(node):
                    _STATE.saved.append((arrays[uid], arrays[uid].copy()))
            owners = tuple(POINTED[ptr] for ptr in pack.values() if ptr in POINTED)
            _STATE.capture.append((self._run, (arrays, owners), {}, None))
        self._run(arrays)

    def _outputs(self, node):
        inputs = {"image", "weight", "loss", "filter", "input", "scale", "bias", "grad",
                  "mean", "inv_variance", "in_running_mean", "in_running_var", "epsilon",
                  "momentum", "q", "k", "v", "o", "dO", "stats"}
        if node["op"] == "batchnorm":
            inputs.discard("mean")
        return [uid for role, uid in node.items()
                if role not in inputs and role not in ("op", "args")]

    def _run(self, arrays, owners=()):
        for node in self.nodes:
            _RUN[node["op"]](arrays, node)


def module():
    """The stand-in `cudnn` module.

    Example:
        >>> module().backend_version() > 0
        True
    """
    names = lambda *items: types.SimpleNamespace(**{n: n for n in items})  # noqa: E731
    lib = types.ModuleType("cudnn", "A stand-in for nvidia-cudnn-frontend "
                                    "(tools/cupy_standin/cudnn_frontend.py)")
    lib.backend_version = lambda: 90000
    lib.create_handle = lambda: object()
    lib.set_stream = lambda handle, stream: None
    lib.pygraph = _Graph
    lib.data_type = names("FLOAT", "HALF", "BFLOAT16", "DOUBLE")
    lib.heur_mode = names("A", "B", "FALLBACK")
    lib.numerical_note = names(*_NOTES)
    lib.diagonal_alignment = names("TOP_LEFT", "BOTTOM_RIGHT")
    return lib
