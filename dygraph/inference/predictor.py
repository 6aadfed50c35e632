"""The inference predictor (Paddle's paddle.inference.create_predictor): input and output
handles around one of two backends.

- The Executor backend loads the saved program (static.load_inference_model) into a scope
  of its own and plans it once: a run is the plan's flat loop of op forwards on NumPy
  arrays, freeing each intermediate after its last reader.
- The onnxruntime backend (config.enable_onnxruntime(), or an .onnx model) converts the
  loaded program to ONNX in memory (dygraph.onnx) and runs an InferenceSession.

Both name inputs and outputs by the program's variables.

Example:
    >>> import os, tempfile
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph import static
    >>> dygraph.enable_static()
    >>> main, startup = static.Program(), static.Program()
    >>> with static.program_guard(main, startup):
    ...     x = static.data('x', [None, 2])
    ...     y = dygraph.nn.Linear(2, 1)(x)
    >>> dygraph.disable_static()
    >>> exe = static.Executor(); _ = exe.run(startup)
    >>> prefix = os.path.join(tempfile.mkdtemp(), 'model')
    >>> static.save_inference_model(prefix, [x], [y], exe, program=main)
    >>> from dygraph.inference import Config, create_predictor
    >>> predictor = create_predictor(Config(prefix))
    >>> handle = predictor.get_input_handle('x')
    >>> handle.copy_from_cpu(np.ones((3, 2), np.float32))
    >>> predictor.run()
    True
    >>> predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu().shape
    (3, 1)
"""

import numpy as np

from dygraph.inference.config import Config, DataType, PlaceType

__all__ = ["Predictor", "Tensor", "create_predictor", "PredictorPool"]


class Tensor:
    """A predictor's input or output handle (Paddle's paddle.inference.Tensor)."""

    def __init__(self, predictor, name, is_input):
        self._predictor, self.name, self._is_input = predictor, name, is_input
        self._shape = None

    def _store(self):
        return self._predictor._inputs if self._is_input else self._predictor._outputs

    def copy_from_cpu(self, data):
        """Set this input to a copy of `data` (an array or a Tensor)."""
        self._check_input("copy_from_cpu")
        array = np.array(getattr(data, "_data", data), copy=True)
        if self._shape is not None and array.size == int(np.prod(self._shape)):
            array = array.reshape(self._shape)
        self._store()[self.name] = array

    def share_external_data(self, data):
        """Set this input to `data` without copying (it must not change until run)."""
        self._check_input("share_external_data")
        self._store()[self.name] = np.asarray(getattr(data, "_data", data))

    def reshape(self, shape):
        """Declare the shape of the data copy_from_cpu brings next."""
        self._check_input("reshape")
        self._shape = [int(d) for d in shape]
        current = self._store().get(self.name)
        if current is not None and current.size == int(np.prod(self._shape)):
            self._store()[self.name] = current.reshape(self._shape)

    def copy_to_cpu(self):
        """A NumPy copy of the value (outputs: of the last run)."""
        value = self._store().get(self.name)
        if value is None:
            what = "set it with copy_from_cpu" if self._is_input else "call run() first"
            raise RuntimeError(f"inference tensor {self.name!r} has no value yet; {what}")
        return np.array(value, copy=True)

    def shape(self):
        value = self._store().get(self.name)
        if value is not None:
            return list(value.shape)
        if self._shape is not None:
            return list(self._shape)
        return list(self._predictor._backend.declared_shape(self.name))

    def type(self):
        value = self._store().get(self.name)
        dtype = value.dtype if value is not None else self._predictor._backend.dtype(self.name)
        return DataType.of(dtype)

    def place(self):
        return PlaceType.CPU

    def _check_input(self, what):
        if not self._is_input:
            raise RuntimeError(f"inference tensor {self.name!r} is an output; {what} applies "
                               "to inputs")


class Predictor:
    """Runs one model; get one from create_predictor(config)."""

    def __init__(self, config):
        if not isinstance(config, Config):
            raise TypeError(f"create_predictor: expected an inference.Config, got "
                            f"{type(config).__name__}")
        self._config = config
        if config.onnxruntime_enabled():
            from dygraph.inference.backends import OrtBackend

            self._backend = OrtBackend(config)
        else:
            from dygraph.inference.backends import ExecutorBackend

            self._backend = ExecutorBackend(config)
        self._inputs, self._outputs = {}, {}
        self._feed_names = set(self._backend.feeds)

    def get_input_names(self):
        return list(self._backend.feeds)

    def get_output_names(self):
        return list(self._backend.fetches)

    def get_input_handle(self, name):
        return Tensor(self, self._known(name, self._backend.feeds, "input"), True)

    def get_output_handle(self, name):
        return Tensor(self, self._known(name, self._backend.fetches, "output"), False)

    @staticmethod
    def _known(name, names, what):
        if name not in names:
            raise ValueError(f"predictor: no {what} named {name!r}; the {what}s are {names}")
        return name

    def run(self, inputs=None):
        """Run on the input handles' values (returns True; read the output handles), or
        on `inputs`, a list of arrays or Tensors in get_input_names() order (returns the
        outputs as a list of Tensors)."""
        if inputs is None:
            if not self._inputs.keys() >= self._feed_names:
                missing = [n for n in self._backend.feeds if n not in self._inputs]
                raise RuntimeError(f"predictor.run: input {missing[0]!r} has no value; set "
                                   "it with get_input_handle(name).copy_from_cpu(array)")
            self._outputs = dict(zip(self._backend.fetches, self._backend.run(self._inputs)))
            return True
        if len(inputs) != len(self._backend.feeds):
            raise ValueError(f"predictor.run: expected {len(self._backend.feeds)} inputs "
                             f"({self._backend.feeds}), got {len(inputs)}")
        feed = {n: np.asarray(getattr(v, "_data", v)) for n, v in
                zip(self._backend.feeds, inputs)}
        from dygraph.tensor.tensor import to_tensor

        return [to_tensor(a) for a in self._backend.run(feed)]

    def clone(self):
        """A predictor of the same model with its own inputs, outputs and run state."""
        return Predictor(self._config)

    def clear_intermediate_tensor(self):
        """Drop the last run's outputs (intermediates are freed during each run)."""
        self._outputs = {}

    def try_shrink_memory(self):
        """Free the cached outputs; returns 0 (no memory pool is held)."""
        self._outputs = {}
        return 0


def create_predictor(config):
    """A Predictor for `config` (see the module docstring for an example)."""
    return Predictor(config)


def _count(value, what):
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TypeError(f"PredictorPool: {what} must be a non-negative int, got {value!r}")
    return value


class PredictorPool:
    """`size` predictors of one model, each with its own inputs, outputs and run state
    (for one thread each); `retrieve(i)` returns the i-th, the same object every time.

    Example:
        >>> PredictorPool(Config('model'), 0)
        Traceback (most recent call last):
        ...
        ValueError: PredictorPool: the pool size should be at least 1, got 0
    """

    def __init__(self, config, size):
        if _count(size, "size") < 1:
            raise ValueError(f"PredictorPool: the pool size should be at least 1, got {size}")
        first = create_predictor(config)
        self._predictors = [first] + [first.clone() for _ in range(size - 1)]

    def retrieve(self, idx):
        """The predictor number `idx` (0 to size - 1)."""
        if _count(idx, "idx") >= len(self._predictors):
            raise ValueError(f"PredictorPool: there are {len(self._predictors)} predictors "
                             f"in the pool, so idx must be below that, got {idx}")
        return self._predictors[idx]
