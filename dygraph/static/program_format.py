"""The `.pdmodel` format: a program as JSON data with a schema, and nothing else.

A saved program names op classes, attributes, record types and functions. Loading checks
every name against a closed table and every value against its declared kind before anything
is built, so a file can describe a program but never make one run code or read memory:

- op classes: the Op subclasses that dygraph defines, by `module:qualname`, less those that
  hold live objects (`saveable = False`: optimizer updates, training-step calls);
- attributes: the names an op's class declares in `attrs` (along its bases); any other name
  is refused, so a file cannot replace a method, a hook or a saved input;
- kinds: an attribute holds plain data (None, bool, int, float, str, a dtype, a slice,
  Ellipsis, tuples, lists and string-keyed dicts of those, arrays by reference into the
  parameters file, records) unless its class declares another kind in `attr_kinds`: BLOCK (a
  sub-block or a tuple of them), FUNCTION (one of the functions recorded whole, by name), or
  a closed table of names (a selector: the value must be one of the table's keys);
- records: the geometry types in RECORDS, with exactly their own fields;
- dtypes: the bool, integer, float and complex types, by name;
- nesting: at most MAX_DEPTH levels of values; shapes: at most MAX_NDIM dimensions.

Every violation is a ValueError naming the file and the field.

Example:
    >>> from dygraph.ops.compare import _Elementwise
    >>> ops = OpTable()
    >>> ops.lookup("dygraph.ops.compare:_Elementwise", "op 0") is _Elementwise
    True
    >>> ops.lookup("os:system", "op 0")
    Traceback (most recent call last):
    ...
    ValueError: op 0: 'os:system' is not an op class of dygraph
"""

import importlib

import numpy as np

from dygraph.autograd.function import Op, declared_attrs
from dygraph.autograd.whole_call import WHOLE_CALLS
from dygraph.framework.dtype import DType
from dygraph.ops.conv.im2col import Geometry
from dygraph.ops.nn.resample import AxisMap
from dygraph.ops.nn.vision import Window
from dygraph.ops.pool.windows import PoolGeometry
from dygraph.static.former_paths import current_path

__all__ = ["FORMAT", "VERSION", "BLOCK", "FUNCTION", "MAX_DEPTH", "MAX_NDIM", "RECORDS",
           "OP_MODULES", "WHOLE_CALL_MODULES", "OpTable", "Encoder", "Decoder", "dtype_name",
           "dtype_from_name", "declared_attrs", "attr_kind", "check_shape"]

FORMAT = "dygraph-program"
# Version 2 stores only declared attributes and dtypes by name; version 1 files (every
# attribute, dtypes as array-interface strings) still load, their undeclared attributes
# (one run's working state, recomputed by the next run) skipped.
VERSION = 2
BLOCK = "block"
FUNCTION = "function"
# A program's values nest a few levels (a tuple of slices in an index, a dict of kwargs):
# 32 is far above any op's need and far below Python's recursion limit.
MAX_DEPTH = 32
MAX_NDIM = 64
# Fields of records that cache what the others determine (an AxisMap's transpose, which
# points back at it): stored as None and made again when needed.
_CACHED_FIELDS = frozenset({"_transpose"})
# The record types ops keep as attributes, with the fields a file may set.
RECORDS = {f"{cls.__module__}:{cls.__qualname__}": (cls, fields) for cls, fields in (
    (Geometry, Geometry.__slots__),
    (Window, Window.__slots__),
    (AxisMap, AxisMap.__slots__),
    (PoolGeometry, ("in_sizes", "out_sizes", "ksize", "stride", "pads", "ext", "starts",
                    "ends")),
)}
_DTYPES = {np.dtype(n).name: np.dtype(n) for n in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128")}
# Every module that defines op classes (a test keeps the list complete): the table imports
# them all, since `import dygraph` leaves some for their first use.
OP_MODULES = (
    "dygraph.amp.auto_cast", "dygraph.autograd.py_layer", "dygraph.distributed.collective",
    "dygraph.fluid.layers.array_shape", "dygraph.jit.run_program", "dygraph.jit.train_step",
    "dygraph.ops.activation.piecewise", "dygraph.ops.activation.smooth",
    "dygraph.ops.activation.softmax", "dygraph.ops.common", "dygraph.ops.compare",
    "dygraph.ops.complex", "dygraph.ops.conv.convolution", "dygraph.ops.fft.stft",
    "dygraph.ops.fft.transforms", "dygraph.ops.geometric.send_recv",
    "dygraph.ops.linalg.decompositions", "dygraph.ops.linalg.eig", "dygraph.ops.linalg.einsum",
    "dygraph.ops.linalg.inverse", "dygraph.ops.linalg.lu", "dygraph.ops.linalg.products",
    "dygraph.ops.linalg.vector_norm", "dygraph.ops.loss.common",
    "dygraph.ops.loss.cross_entropy", "dygraph.ops.loss.ctc", "dygraph.ops.loss.nce",
    "dygraph.ops.loss.regression", "dygraph.ops.loss.rnnt", "dygraph.ops.manipulation.diag",
    "dygraph.ops.manipulation.indexing", "dygraph.ops.manipulation.pad",
    "dygraph.ops.manipulation.rearrange", "dygraph.ops.manipulation.scatter",
    "dygraph.ops.manipulation.shape", "dygraph.ops.math.arithmetic", "dygraph.ops.math.extrema",
    "dygraph.ops.math.elementwise", "dygraph.ops.nn.dropout", "dygraph.ops.nn.fused_attention",
    "dygraph.ops.nn.linear",
    "dygraph.ops.nn.resample", "dygraph.ops.nn.vision", "dygraph.ops.normalization.normalize",
    "dygraph.ops.normalization.running", "dygraph.ops.pool.pooling",
    "dygraph.ops.reduction.cumulative", "dygraph.ops.reduction.integer_moments",
    "dygraph.ops.reduction.reduce",
    "dygraph.ops.reduction.scans_and_nan", "dygraph.ops.reduction.statistics",
    "dygraph.ops.rnn.fused_gates", "dygraph.ops.rnn.layer_op", "dygraph.ops.rnn.sequence",
    "dygraph.ops.search.sorting", "dygraph.ops.unary.core", "dygraph.ops.unary.erf",
    "dygraph.ops.unary.explog", "dygraph.ops.unary.special", "dygraph.ops.unary.trig",
    "dygraph.ops.vision.deform_conv", "dygraph.ops.vision.roi_maps",
    "dygraph.ops.vision.roi_pool", "dygraph.sparse.dense_product", "dygraph.static.backward",
    "dygraph.static.block_op", "dygraph.static.capture", "dygraph.static.cond_block",
    "dygraph.static.control_flow", "dygraph.static.eager_call", "dygraph.static.ema",
    "dygraph.static.fuse_elementwise", "dygraph.static.metric", "dygraph.static.nn.py_func",
    "dygraph.static.optimize",
    "dygraph.static.print_op", "dygraph.static.program", "dygraph.static.tensor_array",
    "dygraph.static.while_loop", "dygraph.tensor.diagonal", "dygraph.tensor.operators",
    "dygraph.tensor.plumbing",
)
# The other modules that register whole-call functions a program may call (a test keeps
# the list complete): the table imports them too, so that a fresh process finds them.
WHOLE_CALL_MODULES = (
    "dygraph.ops.activation.gated", "dygraph.ops.creation.constructors",
    "dygraph.ops.creation.random", "dygraph.ops.geometric.message_passing",
    "dygraph.ops.geometric.reindex", "dygraph.ops.geometric.sampling",
    "dygraph.ops.geometric.segment", "dygraph.ops.linalg.solvers",
    "dygraph.ops.manipulation.gather", "dygraph.ops.manipulation.scatter_index",
    "dygraph.ops.manipulation.view", "dygraph.ops.math.composite",
    "dygraph.ops.nn.grid_sample", "dygraph.ops.normalization.norms",
    "dygraph.ops.search.order_and_membership", "dygraph.vision.ops.boxes",
    "dygraph.vision.ops.image_io", "dygraph.vision.ops.nms", "dygraph.vision.ops.proposals",
    "dygraph.vision.ops.yolo",
)

def dtype_name(dtype):
    """The name a file stores for `dtype` (ml_dtypes' bfloat16 included).

    Example:
        >>> dtype_name(np.dtype('float32'))
        'float32'
    """
    name = np.dtype(dtype).name
    if name not in _DTYPES and name != "bfloat16":
        raise TypeError(f"a program cannot store the dtype {name}")
    return name


def dtype_from_name(text, where):
    """The dtype a file names, from the closed table; version 1's array-interface strings
    ('<f4', '|b1') are read as the same types.

    Example:
        >>> dtype_from_name('<f8', 'var x'), dtype_from_name('int64', 'var x')
        (dtype('float64'), dtype('int64'))
    """
    if not isinstance(text, str):
        raise ValueError(f"{where}: dtype {text!r} is not a name")
    if text in _DTYPES:
        return _DTYPES[text]
    if text == "bfloat16":
        from ml_dtypes import bfloat16

        return np.dtype(bfloat16)
    if len(text) in (3, 4) and text[0] in "<>|=" and text[1] in "biufc" and text[2:].isdigit():
        dtype = np.dtype(text)
        if dtype.name in _DTYPES:
            return dtype
    raise ValueError(f"{where}: {text!r} is not a dtype a program may hold")


def check_shape(shape, where):
    """`shape` as a tuple of ints, each a size or -1 (free); ValueError otherwise.

    Example:
        >>> check_shape([-1, 4], 'var x')
        (-1, 4)
    """
    if (not isinstance(shape, list) or len(shape) > MAX_NDIM
            or not all(type(d) is int and d >= -1 for d in shape)):
        raise ValueError(f"{where}: shape {str(shape)[:80]} is not a list of at most "
                         f"{MAX_NDIM} sizes (-1 for a free dimension)")
    return tuple(shape)


def attr_kind(cls, name):
    """What attribute `name` of `cls` may hold: None (plain data), BLOCK, FUNCTION, or the
    closed table of names it selects from.

    Example:
        >>> from dygraph.static.eager_call import EagerCall
        >>> attr_kind(EagerCall, 'fn')
        'function'
    """
    for base in cls.__mro__:
        kinds = base.__dict__.get("attr_kinds")
        if kinds and name in kinds:
            return kinds[name]
    return None


class OpTable:
    """The op classes a file may name: every Op subclass defined in dygraph.

    Example:
        >>> OpTable().lookup("dygraph.ops.math.arithmetic:Add", "op 3").__name__
        'Add'
    """

    def __init__(self):
        for module in OP_MODULES + WHOLE_CALL_MODULES:  # constants, never names from a file
            importlib.import_module(module)
        self.classes = {}
        pending = [Op]
        while pending:
            cls = pending.pop()
            pending.extend(cls.__subclasses__())
            if (cls.__module__.startswith("dygraph.") and cls.saveable
                    and not cls.__dict__.get("complex_variant")):
                self.classes[f"{cls.__module__}:{cls.__qualname__}"] = cls

    def lookup(self, path, where):
        cls = self.classes.get(current_path(path)) if isinstance(path, str) else None
        if cls is None:
            raise ValueError(f"{where}: {path!r} is not an op class of dygraph")
        return cls


class Encoder:
    """Turns op attributes into JSON values; arrays go to `arrays` (the parameters file)
    and sub-blocks to `blocks`, both referred to by key."""

    def __init__(self):
        self.arrays = {}
        self.blocks = {}  # id(sub-block) -> (its index in the file, the block)

    def attrs(self, op, where):
        """The declared attributes `op` holds, encoded; the rest is one run's state."""
        cls = type(op)
        if not cls.saveable:
            raise TypeError(f"save_inference_model: {where} is a {cls.__name__}, which holds "
                            "live objects and cannot be saved")
        names = declared_attrs(cls)
        out = {}
        for name, value in vars(op).items():
            if name in names:
                out[name] = self.value(value, f"{where} attribute {name!r}",
                                       attr_kind(cls, name))
        return out

    def value(self, v, where, kind=None):
        from dygraph.static.program import Block

        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        if isinstance(v, (np.integer, np.floating, np.bool_)):
            return v.item()
        if isinstance(v, (np.dtype, DType)):  # dygraph's dtype objects load as NumPy's
            return {"__dtype__": dtype_name(v.np_dtype if isinstance(v, DType) else v)}
        if isinstance(v, slice):  # indexing ops (x[:, -1])
            return {"__slice__": [self.value(x, where) for x in (v.start, v.stop, v.step)]}
        if v is Ellipsis:
            return {"__ellipsis__": True}
        if isinstance(v, tuple):
            return {"__tuple__": [self.value(x, where, kind) for x in v]}
        if isinstance(v, list):
            return [self.value(x, where, kind) for x in v]
        if isinstance(v, dict) and all(isinstance(k, str) for k in v):
            return {"__dict__": {k: self.value(x, where) for k, x in v.items()}}
        if isinstance(v, Block) and kind == BLOCK:  # a loop body or branch
            if id(v) not in self.blocks:
                self.blocks[id(v)] = (len(self.blocks) + 1, v)
            return {"__block__": self.blocks[id(v)][0]}
        if isinstance(v, np.ndarray):
            key = f"@array{len(self.arrays)}"
            self.arrays[key] = v
            return {"__array__": key}
        path = f"{getattr(v, '__module__', '')}:{getattr(v, '__qualname__', '')}"
        if kind == FUNCTION and WHOLE_CALLS.get(path) is v:
            return {"__function__": path}
        record = f"{type(v).__module__}:{type(v).__qualname__}"
        if record in RECORDS:
            fields = RECORDS[record][1]
            return {"__record__": record,
                    "fields": {k: None if k in _CACHED_FIELDS else self.value(getattr(v, k),
                                                                              where)
                               for k in fields}}
        raise TypeError(f"save_inference_model: {where} holds a {type(v).__name__}, which "
                        "an inference program cannot store")


class Decoder:
    """Builds op attributes from JSON values after checking them against the schema.

    `arrays` are the parameters file's arrays, `blocks` the program's blocks (index 0 is
    the global block, which no attribute may name)."""

    def __init__(self, path, arrays, blocks):
        self.path, self.arrays, self.blocks = path, arrays, blocks

    def fail(self, where, problem):
        return ValueError(f"load_inference_model: {self.path}: {where}: {problem}")

    def attrs(self, cls, record, where, strict):
        """The attributes of an op of class `cls` from its file record."""
        if not isinstance(record, dict):
            raise self.fail(where, "attributes are not a mapping")
        names = declared_attrs(cls)
        out = {}
        for name, value in record.items():
            if name not in names:
                if strict:
                    raise self.fail(where, f"{cls.__qualname__} has no attribute {name!r}")
                continue  # version 1 saved run state too; the next run recomputes it
            out[name] = self.value(value, f"{where} attribute {name!r}", attr_kind(cls, name))
        return out

    def value(self, v, where, kind=None, depth=0):
        if depth > MAX_DEPTH:
            raise self.fail(where, f"values nest deeper than {MAX_DEPTH} levels")
        if v is None or isinstance(v, (bool, int, float, str)):
            if isinstance(kind, (dict, frozenset)) and v not in kind:
                raise self.fail(where, f"{str(v)[:40]!r} is not one of {sorted(kind)}")
            return v
        if isinstance(kind, (dict, frozenset)):
            raise self.fail(where, "a selector must be a name")
        if isinstance(v, list):
            return [self.value(x, where, kind, depth + 1) for x in v]
        if isinstance(v, dict) and "__record__" in v:
            return self.record(v, where, depth)
        if not isinstance(v, dict) or len(v) != 1:
            raise self.fail(where, f"unknown entry {str(v)[:60]}")
        (tag, body), = v.items()
        if tag == "__tuple__" and isinstance(body, list):
            return tuple(self.value(x, where, kind, depth + 1) for x in body)
        if tag == "__dict__" and isinstance(body, dict):
            return {str(k): self.value(x, where, None, depth + 1) for k, x in body.items()}
        if tag == "__array__" and isinstance(body, str) and body in self.arrays:
            return self.arrays[body]
        if tag == "__dtype__":
            return dtype_from_name(body, f"{self.path}: {where}")
        if tag == "__slice__" and isinstance(body, list) and len(body) == 3:
            if not all(x is None or type(x) is int for x in body):
                raise self.fail(where, "a slice holds ints or None")
            return slice(*body)
        if tag == "__ellipsis__" and body is True:
            return Ellipsis
        if tag == "__block__" and kind == BLOCK:
            if type(body) is not int or not 0 < body < len(self.blocks):
                raise self.fail(where, f"no block {body!r}")
            return self.blocks[body]
        if tag == "__function__" and kind == FUNCTION:
            fn = WHOLE_CALLS.get(current_path(body)) if isinstance(body, str) else None
            if fn is None:
                raise self.fail(where, f"{str(body)[:80]!r} is not a function a program "
                                       "may call")
            return fn
        raise self.fail(where, f"unknown or misplaced entry {tag!r}")

    def record(self, v, where, depth):
        record = v["__record__"]
        entry = RECORDS.get(current_path(record)) if isinstance(record, str) else None
        fields = v.get("fields")
        if entry is None or set(v) != {"__record__", "fields"}:
            raise self.fail(where, f"{str(v['__record__'])[:80]!r} is not a record type "
                                   "a program may hold")
        cls, names = entry
        if not isinstance(fields, dict) or set(fields) != set(names):
            raise self.fail(where, f"a {cls.__name__} record has exactly the fields "
                                   f"{list(names)}")
        record = object.__new__(cls)
        for name in names:
            setattr(record, name, self.value(fields[name], where, None, depth + 1))
        return record
