"""`WandbCallback`: the train and eval logs of `Model.fit` and `evaluate`, tracked by
Weights & Biases (the `wandb` package: pip install 'dygraph-framework[wandb]').

Training logs go under 'train/' against the step count 'train/step'; evaluation logs
under 'eval/' against 'epoch'. Only the process of rank 0 writes. `mode='offline'` keeps
the run on disk (sync it later with `wandb sync`), `mode='disabled'` writes nothing.

Example:
    >>> try:
    ...     WandbCallback(mode='disabled').on_train_end()
    ...     ok = True
    ... except ImportError as e:  # without wandb: the error names the package
    ...     ok = 'pip install wandb' in str(e)
    >>> ok
    True
"""

import numbers
import warnings

from dygraph.hapi.callbacks import Callback

__all__ = ["WandbCallback"]


def _import_wandb():
    try:
        import wandb
    except ImportError:
        raise ImportError("the WandbCallback needs the wandb package, which is not "
                          "installed: pip install wandb (or pip install "
                          "'dygraph-framework[wandb]')") from None
    return wandb


def _is_writer():
    from dygraph.distributed.parallel_env import ParallelEnv

    return ParallelEnv().local_rank == 0


class WandbCallback(Callback):
    """Track training in Weights & Biases: `project`, `entity`, `name`, `dir`, `mode`
    ('online', 'offline' or 'disabled') and `job_type`, with any other keyword, go to
    `wandb.init`. A run already in progress is reused, with a warning."""

    def __init__(self, project=None, entity=None, name=None, dir=None, mode=None,
                 job_type=None, **kwargs):
        super().__init__()
        self.wandb = _import_wandb()
        self.wandb_args = {"project": project, "name": name, "entity": entity, "dir": dir,
                           "mode": mode, "job_type": job_type, **kwargs}
        self._run = None
        self.train_step, self.epoch = 0, 0
        self.train_metrics, self.eval_metrics = ["loss"], ["loss"]
        _ = self.run  # start (or join) the run now, as Paddle does

    @property
    def run(self):
        """The wandb run this callback logs to (None in processes other than rank 0)."""
        if self._run is None and _is_writer():
            if self.wandb.run is not None:
                warnings.warn("There is a wandb run already in progress and newly created "
                              "instances of `WandbCallback` will reuse this run. If this is "
                              "not desired, call `wandb.finish()` before instantiating "
                              "`WandbCallback`.", stacklevel=2)
                self._run = self.wandb.run
            else:
                self._run = self.wandb.init(**self.wandb_args)
        return self._run

    def _names(self, given):
        # The loss is always logged (Paddle's metric names start with it; DyGraph's
        # params list the metrics alone).
        names = list(given or [])
        return names if "loss" in names else ["loss"] + names

    def on_train_begin(self, logs=None):
        self.train_metrics = self._names(self.params.get("metrics"))
        self._is_fit = True
        self.train_step = 0
        if _is_writer():
            self.run.define_metric("train/step")
            self.run.define_metric("train/*", step_metric="train/step")
            self.run.define_metric("epoch")
            self.run.define_metric("eval/*", step_metric="epoch")

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_end(self, step, logs=None):
        self.train_step += 1
        self._log(logs or {}, "train")

    def on_eval_begin(self, logs=None):
        logs = logs or {}
        self.eval_metrics = self._names(logs.get("metrics", self.params.get("metrics")))

    def on_eval_end(self, logs=None):
        self._log(logs or {}, "eval")
        if not getattr(self, "_is_fit", False) and _is_writer():
            self.run.finish()  # a lone evaluate() ends its run
            self._run = None

    def on_train_end(self, logs=None):
        if _is_writer():
            self.run.finish()
            self._run = None

    def _log(self, logs, mode):
        if not _is_writer():
            return
        names = self.train_metrics if mode == "train" else self.eval_metrics
        record = ({"train/step": self.train_step} if mode == "train"
                  else {"epoch": self.epoch})
        for name in names:
            value = logs.get(name)
            if isinstance(value, (list, tuple)) and value:
                value = value[0]
            if isinstance(value, numbers.Number):
                record[f"{mode}/{name}"] = value
        self.run.log(record)
