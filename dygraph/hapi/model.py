"""`Model`: the high-level training API (Paddle's paddle.Model): prepare, fit, evaluate,
predict, save and load around a Layer, built on the Layer, optimizer, DataLoader and
checkpoint code below it.

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph.io import TensorDataset
    >>> data = TensorDataset([dygraph.randn([16, 4]), dygraph.randint(0, 2, [16, 1])])
    >>> net = dygraph.nn.Linear(4, 2)
    >>> model = Model(net)
    >>> model.prepare(dygraph.optimizer.SGD(0.1, parameters=net.parameters()),
    ...               dygraph.nn.CrossEntropyLoss(), dygraph.metric.Accuracy())
    >>> model.fit(data, batch_size=8, epochs=1, verbose=0)
    >>> sorted(model.evaluate(data, batch_size=8, verbose=0))
    ['acc', 'loss']
"""

import inspect
import os

import numpy as np

from dygraph.framework.errors import AssertedValueError
from dygraph.hapi.callbacks import config_callbacks
from dygraph.io import DataLoader, Dataset
from dygraph.io.checkpoint import load, save
from dygraph.metric import Metric
from dygraph.static.input_spec import InputSpec
from dygraph.tensor.tensor import Tensor, to_tensor

__all__ = ["Model"]


def _as_list(value):
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _to_tensor(value):
    return value if isinstance(value, Tensor) else to_tensor(np.asarray(value))


def _numpy(value):
    return value.numpy() if isinstance(value, Tensor) else np.asarray(value)


class Model:
    """Wraps `network` (a Layer) for training and inference.

    `inputs`/`labels`: InputSpec lists (or single specs) naming how many entries of each
    batch are inputs to the network; without them, the network's forward takes as many as
    its positional parameters and the rest of a batch are labels.
    """

    def __init__(self, network, inputs=None, labels=None):
        self.network = network
        self._inputs = self._specs(inputs, "inputs")
        self._seen = None  # the input specs of the first batch run (see _forward)
        self._labels = self._specs(labels, "labels")
        self._optimizer = self._loss = None
        self._metrics = []
        self._amp = self._scaler = None
        self.stop_training = False

    @staticmethod
    def _specs(specs, what):
        specs = _as_list(specs) if specs is not None else None
        if specs is not None and not all(isinstance(s, InputSpec) for s in specs):
            raise TypeError(f"Model: {what} must be InputSpec objects, got "
                            f"{[type(s).__name__ for s in specs]}")
        return specs

    # -- configuration ---------------------------------------------------------------------
    def prepare(self, optimizer=None, loss=None, metrics=None, amp_configs=None):
        """Set the optimizer, the loss (a Layer or callable: (*outputs, *labels) -> loss)
        and the metrics (Metric objects) used by fit and evaluate."""
        if loss is not None and not callable(loss):
            raise TypeError(f"Model.prepare: loss must be a Layer or a callable, got "
                            f"{type(loss).__name__}")
        metrics = _as_list(metrics)
        for m in metrics:
            if not isinstance(m, Metric):
                raise TypeError(f"Model.prepare: metrics must be dygraph.metric.Metric "
                                f"objects, got {type(m).__name__}")
        self._optimizer, self._loss, self._metrics = optimizer, loss, metrics
        self._setup_amp(amp_configs)

    def _setup_amp(self, amp_configs):
        """amp_configs: None, a level ('O0', 'O1', 'O2') or a dict of auto_cast arguments
        (level, dtype, custom_white_list, custom_black_list) and GradScaler arguments.
        float16 training uses a GradScaler; bfloat16 needs none (its range is float32's)."""
        from dygraph.amp import GradScaler, decorate

        self._amp, self._scaler = None, None
        if amp_configs is None:
            return
        config = {"level": amp_configs} if isinstance(amp_configs, str) else dict(amp_configs)
        level = config.pop("level", "O1")
        if level == "O0":
            return
        cast_keys = ("dtype", "custom_white_list", "custom_black_list")
        self._amp = {"level": level, **{k: config.pop(k) for k in cast_keys if k in config}}
        dtype = self._amp.setdefault("dtype", "float16")
        if level == "O2":
            decorate(self.network, self._optimizer, level="O2", dtype=dtype)
        if dtype == "float16":
            self._scaler = GradScaler(**config)
        elif config:
            raise ValueError(f"Model.prepare: amp_configs keys {sorted(config)} are "
                             "GradScaler settings, which bfloat16 does not use")

    def _autocast(self):
        import contextlib

        from dygraph.amp import auto_cast

        return auto_cast(**self._amp) if self._amp else contextlib.nullcontext()

    def parameters(self, *args, **kwargs):
        """The network's parameters."""
        return self.network.parameters(*args, **kwargs)

    def _metric_names(self):
        names = []
        for m in self._metrics:
            names += _as_list(m.name())
        return names

    def _n_inputs(self, batch_len):
        if self._inputs is not None:
            return len(self._inputs)
        params = inspect.signature(self.network.forward).parameters.values()
        if any(p.kind is p.VAR_POSITIONAL for p in params):
            return batch_len - (len(self._labels) if self._labels is not None else 1)
        return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                   and p.default is p.empty for p in params)

    def _split(self, batch):
        batch = _as_list(batch)
        n = min(self._n_inputs(len(batch)), len(batch))
        return batch[:n], batch[n:]

    # -- one batch -------------------------------------------------------------------------
    def _forward(self, inputs):
        tensors = [_to_tensor(x) for x in _as_list(inputs)]
        if self._seen is None:
            # What save(training=False) traces from when the Model was built without
            # `inputs`, as Paddle's Model does: the first batch's shapes and dtypes, any
            # batch size.
            self._seen = [InputSpec([None] + list(t.shape[1:]), t.dtype, f"input_{i}")
                          for i, t in enumerate(tensors)]
        outputs = self.network(*tensors)
        return _as_list(outputs)

    def _losses(self, outputs, labels):
        if self._loss is None:
            raise RuntimeError("Model: no loss; call prepare(optimizer, loss, ...) first")
        return _as_list(self._loss(*(outputs + [_to_tensor(y) for y in labels])))

    def _update_metrics(self, outputs, labels):
        results = []
        for m in self._metrics:
            computed = m.compute(*(outputs + [_to_tensor(y) for y in labels]))
            results.append(m.update(*_as_list(computed)))
        return results

    def train_batch(self, inputs, labels=None, update=True):
        """One training step: forward, loss, backward and (with `update`) the optimizer
        step. Returns the losses (NumPy), and the metrics' batch results when there are
        metrics."""
        if self._optimizer is None:
            raise RuntimeError("Model.train_batch: no optimizer; call prepare() first")
        self.network.train()
        with self._autocast():
            outputs = self._forward(inputs)
            losses = self._losses(outputs, _as_list(labels))
        total = losses[0] if len(losses) == 1 else sum(losses[1:], losses[0])
        if self._scaler is not None:
            self._scaler.scale(total).backward()
        else:
            total.backward()
        if update:
            if self._scaler is not None:
                self._scaler.minimize(self._optimizer)
            else:
                self._optimizer.step()
            self._optimizer.clear_grad()
        metrics = self._update_metrics(outputs, _as_list(labels))
        values = [_numpy(v) for v in losses]
        return (values, metrics) if self._metrics else values

    def eval_batch(self, inputs, labels=None):
        """One evaluation step without gradients: losses and metric results."""
        from dygraph.autograd.grad_mode import no_grad

        self.network.eval()
        with no_grad(), self._autocast():
            outputs = self._forward(inputs)
            losses = self._losses(outputs, _as_list(labels)) if self._loss else []
            metrics = self._update_metrics(outputs, _as_list(labels))
        values = [_numpy(v) for v in losses]
        return (values, metrics) if self._metrics else values

    def predict_batch(self, inputs):
        """The network's outputs for one batch, as NumPy arrays."""
        from dygraph.autograd.grad_mode import no_grad

        self.network.eval()
        with no_grad(), self._autocast():
            return [_numpy(o) for o in self._forward(inputs)]

    # -- loops -----------------------------------------------------------------------------
    def _loader(self, data, batch_size, shuffle, drop_last, num_workers):
        if data is None or isinstance(data, DataLoader):
            return data
        if isinstance(data, Dataset) or hasattr(data, "__getitem__"):
            return DataLoader(data, batch_size=batch_size, shuffle=shuffle,
                              drop_last=drop_last, num_workers=num_workers)
        raise TypeError(f"Model: data must be a Dataset or a DataLoader, got "
                        f"{type(data).__name__}")

    @staticmethod
    def _len(loader):
        try:
            return len(loader)
        except TypeError:
            return None

    def _run(self, loader, cbks, mode, accumulate=1, budget=None):
        """One pass over `loader`; returns the logs of the last step (and samples)."""
        for m in self._metrics:
            m.reset()
        logs, samples, steps = {}, 0, self._len(loader)
        for step, batch in enumerate(loader):
            if budget is not None and budget[0] <= 0:
                break
            inputs, labels = self._split(batch)
            getattr(cbks, f"on_{mode}_batch_begin")(step, logs)
            if mode == "train":
                last = steps is not None and step + 1 == steps
                result = self.train_batch(inputs, labels,
                                          update=(step + 1) % accumulate == 0 or last)
            else:
                result = self.eval_batch(inputs, labels)
            losses = result[0] if self._metrics else result
            batch_size = int(np.shape(_numpy(inputs[0]))[0]) if inputs else 0
            samples += batch_size
            logs = {"loss": [float(np.asarray(v).reshape(-1)[0]) for v in losses]}
            for m in self._metrics:
                value = m.accumulate()
                for name, v in zip(_as_list(m.name()), _as_list(value)):
                    logs[name] = v
            logs.update(step=step, batch_size=batch_size)
            getattr(cbks, f"on_{mode}_batch_end")(step, logs)
            if budget is not None:
                budget[0] -= 1
        logs["samples"] = samples
        return logs

    def fit(self, train_data=None, eval_data=None, batch_size=1, epochs=1, eval_freq=1,
            log_freq=10, save_dir=None, save_freq=1, verbose=2, drop_last=False,
            shuffle=True, num_workers=0, callbacks=None, accumulate_grad_batches=1,
            num_iters=None):
        """Train for `epochs` over `train_data` (a Dataset or a DataLoader), evaluating on
        `eval_data` every `eval_freq` epochs; with `save_dir`, save `{epoch}` every
        `save_freq` epochs and `final` at the end; `num_iters` caps the steps."""
        if train_data is None:
            raise ValueError("Model.fit: train_data is required")
        train_loader = self._loader(train_data, batch_size, shuffle, drop_last, num_workers)
        eval_loader = self._loader(eval_data, batch_size, False, False, num_workers)
        steps = self._len(train_loader)
        cbks = config_callbacks(callbacks, model=self, epochs=epochs, steps=steps,
                                log_freq=log_freq, verbose=verbose, save_freq=save_freq,
                                save_dir=save_dir, metrics=self._metric_names(),
                                batch_size=batch_size)
        budget = [num_iters] if num_iters is not None else None
        self.stop_training = False
        cbks.on_begin("train")
        logs = {}
        for epoch in range(epochs):
            cbks.on_epoch_begin(epoch)
            logs = self._run(train_loader, cbks, "train", max(1, accumulate_grad_batches),
                             budget)
            cbks.on_epoch_end(epoch, logs)
            if eval_loader is not None and (epoch + 1) % eval_freq == 0:
                self._evaluate(eval_loader, cbks)
            if self.stop_training or (budget is not None and budget[0] <= 0):
                break
        cbks.on_end("train", logs)

    def _evaluate(self, loader, cbks):
        cbks.set_params({**cbks.params, "eval_steps": self._len(loader)})
        cbks.on_begin("eval")
        logs = self._run(loader, cbks, "eval")
        cbks.on_end("eval", logs)
        return logs

    def evaluate(self, eval_data, batch_size=1, log_freq=10, verbose=2, num_workers=0,
                 callbacks=None, num_samples=None):
        """Loss (of the last batch, as Paddle) and metrics over `eval_data`:
        {'loss': [...], 'acc': ...}."""
        loader = self._loader(eval_data, batch_size, False, False, num_workers)
        cbks = config_callbacks(callbacks, model=self, log_freq=log_freq, verbose=verbose,
                                metrics=self._metric_names(), mode="eval")
        logs = self._evaluate(loader, cbks)
        return {k: v for k, v in logs.items() if k not in ("step", "batch_size", "samples")}

    def predict(self, test_data, batch_size=1, num_workers=0, stack_outputs=False,
                verbose=1, callbacks=None):
        """The network's outputs over `test_data`: one list per output of per-batch arrays,
        or of one stacked array each with `stack_outputs`. Labels in a batch are ignored."""
        loader = self._loader(test_data, batch_size, False, False, num_workers)
        cbks = config_callbacks(callbacks, model=self, verbose=verbose, mode="predict",
                                predict_steps=self._len(loader))
        cbks.on_begin("predict")
        outputs, samples = [], 0
        for step, batch in enumerate(loader):
            inputs, _ = self._split(batch)
            cbks.on_predict_batch_begin(step)
            result = self.predict_batch(inputs)
            outputs.append(result)
            samples += len(result[0]) if result and np.ndim(result[0]) else 0
            cbks.on_predict_batch_end(step, {"batch_size": len(result[0]) if result else 0})
        cbks.on_end("predict", {"samples": samples})
        per_output = [list(parts) for parts in zip(*outputs)]
        if stack_outputs:
            return [np.vstack(parts) for parts in per_output]
        return per_output

    # -- saving ----------------------------------------------------------------------------
    def save(self, path, training=True):
        """Save `path.pdparams` (the network) and `path.pdopt` (the optimizer, when there
        is one). `training=False` writes the inference model instead (`path.pdmodel` and
        `path.pdiparams`, through dygraph.jit.save, in eval mode), traced from the Model's
        `inputs` InputSpecs, or, for a Model built without them, from the shapes and
        dtypes of the first batch it ran (any batch size); dygraph.jit.load reads it back."""
        if not training:
            specs = self._inputs or self._seen
            if not specs:
                raise ValueError("Model.save(training=False) traces the network from the "
                                 "Model's inputs: build it as Model(network, inputs="
                                 "[InputSpec(shape, dtype, name)]), or run a batch first "
                                 "(fit, evaluate, predict or *_batch)")
            from dygraph.jit import save as jit_save

            was_training = self.network.training
            self.network.eval()
            try:
                jit_save(self.network, path, input_spec=specs)
            finally:
                if was_training:
                    self.network.train()
            return
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        save(self.network.state_dict(), path + ".pdparams")
        if self._optimizer is not None:
            save(self._optimizer.state_dict(), path + ".pdopt")

    def load(self, path, skip_mismatch=False, reset_optimizer=False):
        """Load what `save` wrote. With `skip_mismatch`, parameters whose shape differs (or
        that are missing) are skipped with a warning instead of an error; with
        `reset_optimizer` the optimizer state is not restored."""
        import warnings

        params_path = path if path.endswith(".pdparams") else path + ".pdparams"
        state = load(params_path)
        own = self.network.state_dict()
        matched = {}
        for key, value in own.items():
            if key not in state:
                if not skip_mismatch:
                    raise ValueError(f"Model.load: {params_path!r} has no entry {key!r}")
                warnings.warn(f"Model.load: {key!r} is missing from {params_path!r}; "
                              "skipped", stacklevel=2)
                continue
            if list(state[key].shape) != list(value.shape):
                if not skip_mismatch:
                    raise ValueError(f"Model.load: {key!r} has shape {list(state[key].shape)}"
                                     f" in {params_path!r} but {list(value.shape)} in the "
                                     "network")
                warnings.warn(f"Model.load: {key!r} shape differs; skipped", stacklevel=2)
                continue
            matched[key] = state[key]
        self.network.set_state_dict(matched)
        opt_path = params_path[:-len(".pdparams")] + ".pdopt"
        if self._optimizer is not None and not reset_optimizer and os.path.exists(opt_path):
            try:
                self._optimizer.set_state_dict(load(opt_path))
            except ValueError as exc:
                # The optimizer state is keyed by parameter names. Paddle 3.3 does not map
                # it onto a rebuilt network whose parameters got new unique names either:
                # it fails its assert at the next step (AssertionError). DyGraph fails here,
                # with an error that is both kinds.
                raise AssertedValueError(
                    f"Model.load: the optimizer state in {opt_path!r} does not fit this "
                    f"optimizer ({exc}); load with reset_optimizer=True to restore only the "
                    "parameters") from exc

    def summary(self, input_size=None, dtype=None):
        """The layer table of the network (see dygraph.summary); input sizes default to
        the InputSpecs given to the Model."""
        from dygraph.hapi.summary import summary

        if input_size is None and self._inputs:
            input_size = [tuple(1 if d == -1 else d for d in s.shape) for s in self._inputs]
            if len(input_size) == 1:
                input_size = input_size[0]
        return summary(self.network, input_size, dtypes=dtype)
