"""WandbCallback: without wandb, an ImportError naming the package; with it, Model.fit and
evaluate tracked by a real wandb run in offline mode (nothing leaves the machine)."""

import sys

import numpy as np
import pytest

import dygraph
from dygraph.callbacks import Callback, WandbCallback
from dygraph.hapi import InputSpec, Model
from dygraph.io import Dataset


class Blobs(Dataset):
    """Two Gaussian blobs in 4-D with int64 labels."""

    def __init__(self, n=32):
        rng = np.random.default_rng(0)
        self.y = rng.integers(0, 2, n)
        self.x = (rng.standard_normal((n, 4)) + 2.0 * self.y[:, None]).astype(np.float32)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], np.array([self.y[i]], np.int64)


class SummaryProbe(Callback):
    """Reads the run's summary (the last value logged under each key) after the
    WandbCallback has logged, before the run is finished."""

    def __init__(self, tracker):
        super().__init__()
        self.tracker, self.seen = tracker, []

    def on_epoch_end(self, epoch, logs=None):
        summary = self.tracker.run.summary
        self.seen.append(("train", summary["train/step"], summary["train/loss"],
                          logs["loss"][0], summary["train/acc"]))

    def on_eval_end(self, logs=None):
        summary = self.tracker.run.summary
        self.seen.append(("eval", summary["epoch"], summary["eval/loss"], logs["loss"][0],
                          summary["eval/acc"]))


def test_without_wandb_the_error_names_the_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "wandb", None)  # as if wandb were not installed
    with pytest.raises(ImportError, match="pip install wandb"):
        WandbCallback()


def test_fit_and_evaluate_are_tracked_offline(tmp_path, monkeypatch):
    pytest.importorskip("wandb")
    for name in ("WANDB_DIR", "WANDB_CONFIG_DIR", "WANDB_CACHE_DIR", "WANDB_DATA_DIR"):
        monkeypatch.setenv(name, str(tmp_path))
    monkeypatch.setenv("WANDB_SILENT", "true")
    dygraph.seed(0)
    net = dygraph.nn.Sequential(dygraph.nn.Linear(4, 8), dygraph.nn.ReLU(),
                                dygraph.nn.Linear(8, 2))
    model = Model(net, inputs=[InputSpec([None, 4], "float32", "x")],
                  labels=[InputSpec([None, 1], "int64", "label")])
    model.prepare(dygraph.optimizer.Adam(0.05, parameters=net.parameters()),
                  dygraph.nn.CrossEntropyLoss(), dygraph.metric.Accuracy())
    tracker = WandbCallback(project="dygraph-test", dir=str(tmp_path), mode="offline")
    probe = SummaryProbe(tracker)
    model.fit(Blobs(), Blobs(16), batch_size=8, epochs=2, verbose=0,
              callbacks=[tracker, probe])
    train = [s for s in probe.seen if s[0] == "train"]
    evals = [s for s in probe.seen if s[0] == "eval"]
    # 4 steps an epoch; the summary holds the last step's loss as the logs had it
    assert [s[1] for s in train] == [4, 8]
    assert all(s[2] == pytest.approx(s[3]) and 0 <= s[4] <= 1 for s in train)
    assert [s[1] for s in evals] == [0, 1]
    assert all(s[2] == pytest.approx(s[3]) for s in evals)
    assert tracker._run is None  # the run was finished at the end of training
    runs = list((tmp_path / "wandb").glob("offline-run-*"))
    assert len(runs) == 1 and list(runs[0].glob("*.wandb"))

    lone = WandbCallback(dir=str(tmp_path), mode="offline")
    model.evaluate(Blobs(16), batch_size=8, verbose=0, callbacks=[lone])
    assert lone._run is None and len(list((tmp_path / "wandb").glob("offline-run-*"))) == 2
