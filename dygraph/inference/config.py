"""`Config` of the inference predictor (Paddle's paddle.inference.Config), and the enums
PrecisionType, PlaceType and DataType.

A Config names the model: a path prefix (`prefix.pdmodel` and `prefix.pdiparams`, as
`static.save_inference_model` and `jit.save` write them), the two files, a directory holding
one model, or an `.onnx` file. The switches that mean something here act; the GPU and
TensorRT ones of Paddle Inference are accepted and warn that this build runs on the CPU.

Example:
    >>> config = Config('model')
    >>> config.prog_file(), config.params_file()
    ('model.pdmodel', 'model.pdiparams')
    >>> config.enable_onnxruntime(); config.onnxruntime_enabled()
    True
"""

import enum
import os
import warnings

__all__ = ["Config", "PrecisionType", "PlaceType", "DataType", "get_num_bytes_of_data_type"]


class PrecisionType(enum.IntEnum):
    """Inference precision (Paddle's names); this predictor computes in the model's dtype."""

    Float32 = 0
    Int8 = 1
    Half = 2
    Bfloat16 = 3


class PlaceType(enum.IntEnum):
    """Where a tensor lives (Paddle's names)."""

    UNK = -1
    CPU = 0
    GPU = 1
    XPU = 2
    CUSTOM = 3


class DataType(enum.IntEnum):
    """Element types of predictor tensors (Paddle's names)."""

    FLOAT64 = 0
    FLOAT32 = 1
    FLOAT16 = 2
    BFLOAT16 = 3
    INT64 = 4
    INT32 = 5
    UINT8 = 6
    INT8 = 7
    BOOL = 8

    @classmethod
    def of(cls, dtype):
        """The DataType of a NumPy dtype.

        Example:
            >>> import numpy as np
            >>> DataType.of(np.dtype('int64'))
            <DataType.INT64: 4>
        """
        return cls[str(dtype).upper()]


# The element sizes Paddle's get_num_bytes_of_data_type gives; it answers -1 for the others.
_SIZED = {DataType.FLOAT32: 4, DataType.INT64: 8, DataType.INT32: 4, DataType.UINT8: 1}


def get_num_bytes_of_data_type(dtype):
    """Bytes per element of a DataType, as Paddle answers: 4 for FLOAT32 and INT32, 8 for
    INT64, 1 for UINT8, and -1 for the types Paddle's function does not size (FLOAT64,
    FLOAT16, BFLOAT16, INT8, BOOL).

    Example:
        >>> get_num_bytes_of_data_type(DataType.INT64), get_num_bytes_of_data_type(DataType.BOOL)
        (8, -1)
    """
    if not isinstance(dtype, DataType):
        raise TypeError(f"get_num_bytes_of_data_type: expected an inference.DataType, got "
                        f"{type(dtype).__name__}")
    return _SIZED.get(dtype, -1)


def _model_files(path):
    """(program file, params file) for a prefix, a directory or a .pdmodel/.onnx path."""
    if os.path.isdir(path):
        found = sorted(f for f in os.listdir(path) if f.endswith((".pdmodel", ".onnx")))
        if len(found) != 1:
            raise ValueError(f"inference.Config: directory {path!r} must hold one .pdmodel or "
                             f".onnx file, found {found}")
        path = os.path.join(path, found[0])
    if path.endswith(".onnx"):
        return path, ""
    prefix = path[:-len(".pdmodel")] if path.endswith(".pdmodel") else path
    return prefix + ".pdmodel", prefix + ".pdiparams"


class Config:
    """What to load and how to run it: Config(prefix), Config(dir), Config(prog_file,
    params_file) or Config() then set_model(...)."""

    def __init__(self, model=None, params_file=None):
        self._prog = self._params = ""
        self._ort = False
        self._ir_optim = True
        self._memory_optim = False
        self._threads = 1  # Paddle Inference's default
        self._glog = True
        if model is not None:
            self.set_model(model, params_file)

    def set_model(self, model, params_file=None):
        """Set the model from a prefix, a directory, a file, or the two files."""
        model = os.fspath(model)
        if params_file is None:
            self._prog, self._params = _model_files(model)
        else:
            self._prog, self._params = model, os.fspath(params_file)

    def set_prog_file(self, path):
        self._prog = os.fspath(path)

    def set_params_file(self, path):
        self._params = os.fspath(path)

    def prog_file(self):
        return self._prog

    def params_file(self):
        return self._params

    def model_dir(self):
        return os.path.dirname(self._prog)

    def enable_onnxruntime(self):
        """Run the model with onnxruntime (a .pdmodel is converted to ONNX when loaded);
        needs pip install 'dygraph-framework[onnx]'."""
        self._ort = True

    def disable_onnxruntime(self):
        self._ort = False

    def onnxruntime_enabled(self):
        return self._ort or self._prog.endswith(".onnx")

    def enable_ort_optimization(self):
        """onnxruntime's graph optimizations (on unless switch_ir_optim(False))."""
        self._ir_optim = True

    def switch_ir_optim(self, x=True):
        """Graph optimizations: onnxruntime's level ALL (on) or none (off)."""
        self._ir_optim = bool(x)

    def ir_optim(self):
        return self._ir_optim

    def enable_memory_optim(self, x=True):
        """Accepted (Paddle's memory-reuse pass): the Executor already frees each
        intermediate after its last reader, and onnxruntime plans its own memory."""
        self._memory_optim = bool(x)

    def memory_optim_enabled(self):
        return self._memory_optim

    def set_cpu_math_library_num_threads(self, n):
        """Threads of onnxruntime's operators (the NumPy path uses the BLAS library's
        threads, set by OMP_NUM_THREADS / OPENBLAS_NUM_THREADS before start)."""
        if int(n) < 1:
            raise ValueError(f"inference.Config: the number of threads must be >= 1, got {n}")
        self._threads = int(n)

    def cpu_math_library_num_threads(self):
        return self._threads

    def disable_gpu(self):
        """Run on the CPU (the only place this predictor runs)."""

    def use_gpu(self):
        return False

    def gpu_device_id(self):
        return -1

    def enable_use_gpu(self, memory_pool_init_size_mb=100, device_id=0, precision_mode=None):
        warnings.warn("inference.Config.enable_use_gpu: this predictor runs on the CPU; the "
                      "setting is ignored", stacklevel=2)

    def enable_mkldnn(self):
        """Accepted for compatibility (oneDNN is Paddle's CPU library; NumPy and
        onnxruntime bring their own)."""

    def disable_mkldnn(self):
        """Accepted for compatibility."""

    def disable_glog_info(self):
        self._glog = False

    def glog_info_disabled(self):
        return not self._glog

    def switch_use_feed_fetch_ops(self, x=True):
        """Accepted for compatibility: inputs and outputs go through handles."""

    def summary(self):
        """A text table of the settings.

        Example:
            >>> print(Config('m').summary().splitlines()[0])
            model file: m.pdmodel
        """
        rows = [("model file", self._prog), ("params file", self._params),
                ("backend", "onnxruntime" if self.onnxruntime_enabled() else "executor"),
                ("ir_optim", self._ir_optim), ("memory_optim", self._memory_optim),
                ("cpu threads", self._threads)]
        return "\n".join(f"{k}: {v}" for k, v in rows)

    def __repr__(self):
        return f"Config({self._prog!r}, {self._params!r})"
