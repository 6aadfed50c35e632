"""Callbacks of `Model.fit`, `evaluate` and `predict` (Paddle's paddle.callbacks).

A callback gets every hook Paddle calls: on_train_begin/end, on_eval_begin/end,
on_predict_begin/end, on_epoch_begin/end, on_train_batch_begin/end, on_eval_batch_begin/end,
on_predict_batch_begin/end; `self.model` is the Model and `self.params` the run's settings
(epochs, steps, verbose, metrics, save_dir, ...). A DyGraph callback may instead override
on_begin(mode)/on_end(mode), which the default on_{mode}_begin/end call.

Example:
    >>> class Count(Callback):
    ...     def __init__(self): self.batches = 0
    ...     def on_train_batch_end(self, step, logs=None): self.batches += 1
    >>> Count().batches
    0
"""

import csv
import numbers
import os
import warnings

import numpy as np

from dygraph.hapi.progressbar import ProgressBar

__all__ = ["Callback", "CallbackList", "ProgBarLogger", "ModelCheckpoint", "EarlyStopping",
           "LRScheduler", "ReduceLROnPlateau", "VisualDL", "CSVLogger", "config_callbacks"]


class Callback:
    """Base class: override the hooks you need (all default to doing nothing)."""

    def __init__(self):
        self.model, self.params = None, {}

    def set_params(self, params):
        """The run's settings: epochs, steps, verbose, metrics, save_dir, batch_size..."""
        self.params = params

    def set_model(self, model):
        """The Model being trained."""
        self.model = model

    def on_begin(self, mode, logs=None):
        """Start of fit ('train'), evaluate ('eval') or predict ('predict'): called by the
        default on_train_begin, on_eval_begin and on_predict_begin."""

    def on_end(self, mode, logs=None):
        """End of fit, evaluate or predict: called by the default on_{mode}_end."""

    # Paddle's hooks: CallbackList calls these (as Paddle's does), so a callback written
    # for Paddle that overrides on_train_begin is reached; by default they go to on_begin
    # and on_end, which DyGraph's own callbacks override.
    def on_train_begin(self, logs=None):
        """Start of fit."""
        self.on_begin("train", logs)

    def on_train_end(self, logs=None):
        """End of fit."""
        self.on_end("train", logs)

    def on_eval_begin(self, logs=None):
        """Start of an evaluation (evaluate, or fit's eval_data)."""
        self.on_begin("eval", logs)

    def on_eval_end(self, logs=None):
        """End of an evaluation; `logs` holds the loss and the metrics."""
        self.on_end("eval", logs)

    def on_predict_begin(self, logs=None):
        """Start of predict."""
        self.on_begin("predict", logs)

    def on_predict_end(self, logs=None):
        """End of predict."""
        self.on_end("predict", logs)

    def on_epoch_begin(self, epoch, logs=None):
        """Start of a training epoch."""

    def on_epoch_end(self, epoch, logs=None):
        """End of a training epoch; `logs` holds the last step's loss and the metrics."""

    def on_train_batch_begin(self, step, logs=None):
        """Before a training step."""

    def on_train_batch_end(self, step, logs=None):
        """After a training step."""

    def on_eval_batch_begin(self, step, logs=None):
        """Before an evaluation step."""

    def on_eval_batch_end(self, step, logs=None):
        """After an evaluation step."""

    def on_predict_batch_begin(self, step, logs=None):
        """Before a prediction step."""

    def on_predict_batch_end(self, step, logs=None):
        """After a prediction step."""


class CallbackList:
    """Calls each hook on every callback, in order.

    Example:
        >>> CallbackList([Callback()]).on_begin('train')
    """

    _MODES = ("train", "eval", "predict")

    def __init__(self, callbacks=None):
        self.callbacks = list(callbacks or [])
        self.params, self.model = {}, None

    def append(self, callback):
        self.callbacks.append(callback)

    def __iter__(self):
        return iter(self.callbacks)

    def set_params(self, params):
        self.params = params
        for cb in self.callbacks:
            cb.set_params(params)

    def set_model(self, model):
        self.model = model
        for cb in self.callbacks:
            cb.set_model(model)

    def _check_mode(self, mode):
        if mode not in self._MODES:
            raise ValueError(f"CallbackList: mode should be 'train', 'eval' or 'predict', "
                             f"got {mode!r}")

    def on_begin(self, mode, logs=None):
        """Call on_{mode}_begin of every callback in order (Paddle's dispatch; an error in
        one propagates, as in Paddle, and the callbacks after it are not called)."""
        self._check_mode(mode)
        for cb in self.callbacks:
            getattr(cb, f"on_{mode}_begin")(logs)

    def on_end(self, mode, logs=None):
        """Call on_{mode}_end of every callback in order."""
        self._check_mode(mode)
        for cb in self.callbacks:
            getattr(cb, f"on_{mode}_end")(logs)

    def on_batch_begin(self, mode, step=None, logs=None):
        self._check_mode(mode)
        getattr(self, f"on_{mode}_batch_begin")(step, logs)

    def on_batch_end(self, mode, step=None, logs=None):
        self._check_mode(mode)
        getattr(self, f"on_{mode}_batch_end")(step, logs)

    def __getattr__(self, name):
        if not name.startswith("on_"):
            raise AttributeError(name)

        def call(*args, **kwargs):
            for cb in self.callbacks:
                getattr(cb, name)(*args, **kwargs)

        return call


def _log_items(logs, names):
    return [(k, logs[k]) for k in names if k in logs]


class ProgBarLogger(Callback):
    """Paddle's progress output: verbose=1 a bar redrawn in place, verbose=2 one line per
    `log_freq` steps, 0 nothing; an epoch header and the eval sample count.

    Example:
        >>> ProgBarLogger(log_freq=5, verbose=2).log_freq
        5
    """

    def __init__(self, log_freq=1, verbose=2):
        super().__init__()
        self.log_freq, self.verbose = log_freq, verbose

    def _names(self):
        return ["loss"] + list(self.params.get("metrics", []))

    def on_begin(self, mode, logs=None):
        if mode == "train" and self.verbose:
            print("The loss value printed in the log is the current step, and the metric "
                  "is the average value of previous steps.")
        if mode == "eval":
            self.eval_steps = self.params.get("eval_steps")
            self.bar = ProgressBar(self.eval_steps, verbose=self.verbose)
            if self.verbose:
                print("Eval begin...")
        if mode == "predict":
            self.bar = ProgressBar(self.params.get("predict_steps"), verbose=self.verbose)
            if self.verbose:
                print("Predict begin...")

    def on_epoch_begin(self, epoch, logs=None):
        self.steps = self.params.get("steps")
        self.bar = ProgressBar(self.steps, verbose=self.verbose)
        if self.verbose:
            print(f"Epoch {epoch + 1}/{self.params.get('epochs')}")

    def _batch_end(self, step, logs, total):
        if not self.verbose:
            return
        step += 1
        if step % self.log_freq == 0 or (total and step == total):
            self.bar.update(step, _log_items(logs or {}, self._names()))

    def on_train_batch_end(self, step, logs=None):
        self._batch_end(step, logs, self.steps)

    def on_eval_batch_end(self, step, logs=None):
        self._batch_end(step, logs, self.eval_steps)

    def on_predict_batch_end(self, step, logs=None):
        if self.verbose:
            self.bar.update(step + 1, [])

    def on_end(self, mode, logs=None):
        if mode == "eval" and self.verbose:
            print(f"Eval samples: {(logs or {}).get('samples', 0)}")
        if mode == "predict" and self.verbose:
            print(f"Predict samples: {(logs or {}).get('samples', 0)}")


class ModelCheckpoint(Callback):
    """Save the model (and optimizer) every `save_freq` epochs as `{save_dir}/{epoch}` and
    at the end as `{save_dir}/final` (.pdparams and .pdopt files).

    Example:
        >>> ModelCheckpoint(save_freq=2, save_dir='ckpt').save_freq
        2
    """

    def __init__(self, save_freq=1, save_dir=None):
        super().__init__()
        self.save_freq, self.save_dir = save_freq, save_dir

    def on_epoch_end(self, epoch, logs=None):
        if self.save_dir and (epoch + 1) % self.save_freq == 0:
            self.model.save(os.path.join(self.save_dir, str(epoch)))

    def on_end(self, mode, logs=None):
        if mode == "train" and self.save_dir:
            self.model.save(os.path.join(self.save_dir, "final"))


def _scalar(value):
    value = np.asarray(value, dtype=np.float64).reshape(-1)
    return float(value[0]) if value.size else float("nan")


class EarlyStopping(Callback):
    """Stop training when `monitor` (an eval log: 'loss', 'acc', ...) has not improved by
    more than `min_delta` for `patience` evaluations. `mode` 'min', 'max' or 'auto' (max
    for names with 'acc'); `baseline` a value to beat; `save_best_model` saves the best
    model as `{save_dir}/best_model`.

    Example:
        >>> EarlyStopping(monitor='acc', patience=2).mode
        'max'
    """

    def __init__(self, monitor="loss", mode="auto", patience=0, verbose=1, min_delta=0,
                 baseline=None, save_best_model=True):
        super().__init__()
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"EarlyStopping: mode must be 'auto', 'min' or 'max', got "
                             f"{mode!r}")
        if mode == "auto":
            mode = "max" if "acc" in monitor else "min"
        self.monitor, self.mode, self.patience, self.verbose = monitor, mode, patience, verbose
        self.min_delta = abs(min_delta) * (1 if mode == "max" else -1)
        self.baseline, self.save_best_model = baseline, save_best_model
        self.wait_epoch, self.stopped_epoch = 0, 0
        self.best_value = None

    def _better(self, value, reference):
        if self.mode == "max":
            return value - self.min_delta > reference
        return value - self.min_delta < reference

    def on_begin(self, mode, logs=None):
        if mode == "train":
            self.wait_epoch, self.stopped_epoch = 0, 0
            worst = -np.inf if self.mode == "max" else np.inf
            self.best_value = self.baseline if self.baseline is not None else worst

    def on_end(self, mode, logs=None):
        if mode != "eval" or not logs or self.monitor not in logs:
            if mode == "eval" and logs is not None and self.monitor not in logs:
                warnings.warn(f"EarlyStopping: monitor {self.monitor!r} is not in the eval "
                              f"logs ({sorted(logs)}); nothing to compare", stacklevel=2)
            return
        value = _scalar(logs[self.monitor])
        if self._better(value, self.best_value):
            self.best_value, self.wait_epoch = value, 0
            save_dir = self.params.get("save_dir")
            if self.save_best_model and save_dir:
                self.model.save(os.path.join(save_dir, "best_model"))
            return
        self.wait_epoch += 1
        if self.wait_epoch > self.patience:
            self.model.stop_training = True
            if self.verbose:
                print(f"Epoch {self.stopped_epoch + 1}: Early stopping.")
        self.stopped_epoch += 1


class LRScheduler(Callback):
    """Step the optimizer's LRScheduler after every step (`by_step`) or epoch (`by_epoch`).

    Example:
        >>> LRScheduler(by_step=False, by_epoch=True).by_epoch
        True
    """

    def __init__(self, by_step=True, by_epoch=False):
        super().__init__()
        if by_step and by_epoch:
            raise ValueError("LRScheduler: by_step and by_epoch cannot both be True")
        self.by_step, self.by_epoch = by_step, by_epoch

    def _step(self):
        from dygraph.optimizer.lr.base import LRScheduler as Scheduler

        optimizer = getattr(self.model, "_optimizer", None)
        schedule = getattr(optimizer, "_learning_rate", None)
        if isinstance(schedule, Scheduler):
            schedule.step()

    def on_train_batch_end(self, step, logs=None):
        if self.by_step:
            self._step()

    def on_epoch_end(self, epoch, logs=None):
        if self.by_epoch:
            self._step()


class ReduceLROnPlateau(Callback):
    """Multiply the learning rate by `factor` when `monitor` stops improving for `patience`
    evaluations (then wait `cooldown` evaluations), never below `min_lr`.

    Example:
        >>> ReduceLROnPlateau(factor=0.5).factor
        0.5
    """

    def __init__(self, monitor="loss", factor=0.1, patience=10, verbose=1, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0):
        super().__init__()
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau: factor must be < 1.0, got {factor}")
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"ReduceLROnPlateau: mode must be 'auto', 'min' or 'max', got "
                             f"{mode!r}")
        self.monitor, self.factor, self.patience, self.verbose = monitor, factor, patience, verbose
        self.mode = ("max" if "acc" in monitor else "min") if mode == "auto" else mode
        self.min_delta, self.cooldown, self.min_lr = min_delta, cooldown, min_lr
        self.best = np.inf if self.mode == "min" else -np.inf
        self.wait = self.cooldown_counter = 0

    def on_end(self, mode, logs=None):
        if mode != "eval" or not logs or self.monitor not in logs:
            return
        value = _scalar(logs[self.monitor])
        improved = (value < self.best - self.min_delta if self.mode == "min"
                    else value > self.best + self.min_delta)
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if improved:
            self.best, self.wait = value, 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                optimizer = self.model._optimizer
                old = optimizer.get_lr()
                new = max(old * self.factor, self.min_lr)
                if new < old:
                    optimizer.set_lr(new)
                    if self.verbose:
                        print(f"ReduceLROnPlateau: learning rate reduced to {new:.4e}.")
                self.cooldown_counter, self.wait = self.cooldown, 0


class VisualDL(Callback):
    """Write the train and eval logs to VisualDL (needs `pip install visualdl`).

    Example:
        >>> try:
        ...     VisualDL('logs')
        ... except ImportError as e:
        ...     'visualdl' in str(e)
        True
    """

    def __init__(self, log_dir):
        super().__init__()
        try:
            import visualdl
        except ImportError:
            raise ImportError("the VisualDL callback needs the visualdl package: "
                              "pip install visualdl") from None
        self.writer = visualdl.LogWriter(log_dir)
        self.steps = {"train": 0, "eval": 0}

    def _write(self, mode, logs):
        for key, value in (logs or {}).items():
            if key in ("step", "batch_size", "samples"):
                continue
            self.writer.add_scalar(f"{mode}/{key}", _scalar(value), self.steps[mode])

    def on_train_batch_end(self, step, logs=None):
        self.steps["train"] += 1
        self._write("train", logs)

    def on_end(self, mode, logs=None):
        if mode == "eval":
            self.steps["eval"] += 1
            self._write("eval", logs)


class CSVLogger(Callback):
    """Append one CSV row per epoch (train logs, and eval logs prefixed 'eval_') to `path`:
    a plain-file record for people without VisualDL (a DyGraph addition).

    Example:
        >>> CSVLogger('log.csv').path
        'log.csv'
    """

    def __init__(self, path):
        super().__init__()
        self.path = path
        self._row, self._fields = {}, None

    def on_epoch_end(self, epoch, logs=None):
        self._row = {"epoch": epoch}
        self._row.update({k: _scalar(v) for k, v in (logs or {}).items()
                          if isinstance(v, (numbers.Number, list, tuple, np.ndarray))
                          and k not in ("step", "batch_size")})

    def on_end(self, mode, logs=None):
        if mode == "eval" and self._row:
            self._row.update({f"eval_{k}": _scalar(v) for k, v in (logs or {}).items()
                              if k not in ("step", "batch_size", "samples")})
        if mode in ("eval", "train") and self._row:
            self._flush()

    def on_epoch_begin(self, epoch, logs=None):
        if self._row:
            self._flush()

    def _flush(self):
        row, self._row = self._row, {}
        if self._fields is None:
            self._fields = list(row)
            with open(self.path, "w", newline="") as f:
                csv.DictWriter(f, self._fields).writeheader()
        with open(self.path, "a", newline="") as f:
            csv.DictWriter(f, self._fields, extrasaction="ignore").writerow(row)


def config_callbacks(callbacks=None, model=None, epochs=None, steps=None, log_freq=2,
                     verbose=2, save_freq=1, save_dir=None, metrics=None, mode="train",
                     **params):
    """The CallbackList of a run: a ProgBarLogger first (when `verbose`), the user's
    callbacks, then (when training with a save_dir) a ModelCheckpoint and an LRScheduler
    unless the user gave them; hooks run in that order.

    Example:
        >>> cbks = config_callbacks(epochs=1, steps=3, verbose=2)
        >>> [type(c).__name__ for c in cbks.callbacks]
        ['ProgBarLogger', 'LRScheduler']
    """
    cbks = list(callbacks or [])
    # as Paddle 3.3: no ProgBarLogger when verbose=0 (it would print nothing), so it can
    # neither fail nor run before the user's callbacks there
    if verbose and not any(isinstance(c, ProgBarLogger) for c in cbks):
        cbks = [ProgBarLogger(log_freq, verbose=verbose)] + cbks
    if mode == "train" and not any(isinstance(c, ModelCheckpoint) for c in cbks) and save_dir:
        cbks.append(ModelCheckpoint(save_freq, save_dir))
    if not any(isinstance(c, LRScheduler) for c in cbks) and mode == "train":
        cbks.append(LRScheduler())
    result = CallbackList(cbks)
    result.set_model(model)
    result.set_params({"epochs": epochs, "steps": steps, "verbose": verbose,
                       "metrics": metrics or [], "save_dir": save_dir, **params})
    return result
