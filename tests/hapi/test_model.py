"""paddle.Model: fit, evaluate, predict, checkpoints and resume, callbacks, summary."""

import csv
import os
import pathlib

import numpy as np
import pytest

import dygraph
from dygraph.callbacks import (
    Callback,
    CSVLogger,
    EarlyStopping,
    LRScheduler,
    ModelCheckpoint,
    ReduceLROnPlateau,
)
from dygraph.hapi import InputSpec, Model
from dygraph.io import Dataset
from dygraph.utils import unique_name


class Blobs(Dataset):
    """Two Gaussian blobs in 4-D, labels [1] int64: linearly separable."""

    def __init__(self, n=64, seed=0):
        rng = np.random.default_rng(seed)
        self.y = rng.integers(0, 2, n)
        self.x = (rng.standard_normal((n, 4)) + 2.0 * self.y[:, None]).astype(np.float32)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], np.array([self.y[i]], np.int64)


def _model(lr=0.1, seed=0, metrics=True):
    dygraph.seed(seed)
    # Fresh parameter names, as a new process would give: optimizer state is keyed by them.
    with unique_name.guard():
        net = dygraph.nn.Sequential(dygraph.nn.Linear(4, 8), dygraph.nn.ReLU(),
                                    dygraph.nn.Linear(8, 2))
    model = Model(net, inputs=[InputSpec([None, 4], "float32", "x")],
                  labels=[InputSpec([None, 1], "int64", "label")])
    model.prepare(dygraph.optimizer.Adam(lr, parameters=net.parameters()),
                  dygraph.nn.CrossEntropyLoss(),
                  dygraph.metric.Accuracy() if metrics else None)
    return model


def test_fit_evaluate_predict():
    model = _model()
    model.fit(Blobs(), epochs=5, batch_size=16, verbose=0)
    result = model.evaluate(Blobs(seed=1), batch_size=16, verbose=0)
    assert set(result) == {"loss", "acc"}
    assert isinstance(result["loss"], list) and result["acc"] > 0.9
    outputs = model.predict(Blobs(n=10), batch_size=4, verbose=0)
    assert len(outputs) == 1 and [o.shape for o in outputs[0]] == [(4, 2), (4, 2), (2, 2)]
    stacked = model.predict(Blobs(n=10), batch_size=4, stack_outputs=True, verbose=0)
    assert stacked[0].shape == (10, 2)


def test_train_and_eval_batch_return_losses_and_metrics():
    model = _model()
    x, y = np.ones((3, 4), np.float32), np.array([[1], [0], [1]])
    losses, metrics = model.train_batch([x], [y])
    assert losses[0].shape == () and len(metrics) == 1
    assert len(model.eval_batch([x], [y])[0]) == 1
    assert model.predict_batch([x])[0].shape == (3, 2)


def test_fit_accepts_a_dataloader_and_stops_after_num_iters():
    seen = []

    class Steps(Callback):
        def on_train_batch_end(self, step, logs=None):
            seen.append(step)

    model = _model()
    loader = dygraph.io.DataLoader(Blobs(), batch_size=8)
    model.fit(loader, epochs=3, verbose=0, num_iters=5, callbacks=[Steps()])
    assert seen == [0, 1, 2, 3, 4, 5, 6, 7, 0, 1][:5]


def test_save_dir_writes_each_epoch_and_final(tmp_path):
    model = _model()
    model.fit(Blobs(), epochs=2, batch_size=16, verbose=0, save_dir=str(tmp_path))
    names = sorted(os.listdir(tmp_path))
    assert names == ["0.pdopt", "0.pdparams", "1.pdopt", "1.pdparams", "final.pdopt",
                     "final.pdparams"]


def test_resume_from_a_saved_epoch_is_bit_identical(tmp_path):
    full = _model()
    full.fit(Blobs(), epochs=2, batch_size=16, verbose=0, shuffle=False,
             save_dir=str(tmp_path))
    resumed = _model(seed=7)  # other initial weights: everything comes from the files
    resumed.load(str(tmp_path / "0"))
    resumed.fit(Blobs(), epochs=1, batch_size=16, verbose=0, shuffle=False)
    for a, b in zip(full.parameters(), resumed.parameters()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_load_checks_shapes_unless_skip_mismatch(tmp_path):
    model = _model()
    model.save(str(tmp_path / "m"))
    other = Model(dygraph.nn.Sequential(dygraph.nn.Linear(4, 8), dygraph.nn.ReLU(),
                                        dygraph.nn.Linear(8, 3)))
    with pytest.raises(ValueError, match="shape"):
        other.load(str(tmp_path / "m"))
    with pytest.warns(UserWarning, match="skipped"):
        other.load(str(tmp_path / "m"), skip_mismatch=True)
    np.testing.assert_array_equal(other.network[0].weight.numpy(),
                                  model.network[0].weight.numpy())


def test_inference_save_writes_a_model_jit_load_runs(tmp_path):
    with pytest.raises(ValueError, match="inputs="):
        Model(dygraph.nn.Linear(4, 2)).save(str(tmp_path / "m"), training=False)
    dygraph.seed(0)
    net = dygraph.nn.Sequential(dygraph.nn.Linear(4, 8), dygraph.nn.Dropout(0.5),
                                dygraph.nn.ReLU(), dygraph.nn.Linear(8, 2))
    model = Model(net, inputs=[InputSpec([None, 4], "float32", "x")])
    model.save(str(tmp_path / "m"), training=False)
    assert net.training  # the network is back in its mode
    assert (tmp_path / "m.pdmodel").exists() and (tmp_path / "m.pdiparams").exists()
    loaded = dygraph.jit.load(str(tmp_path / "m"))
    loaded.eval()
    net.eval()
    x = dygraph.to_tensor(Blobs(n=5).x)
    np.testing.assert_allclose(loaded(x).numpy(), net(x).numpy(), rtol=1e-6, atol=1e-6)


def test_inference_save_without_inputs_takes_the_shapes_fit_saw(tmp_path):
    """As Paddle's Model: built without `inputs`, save(training=False) after fit traces
    from the first batch's shapes and dtypes, and the saved model takes any batch size."""
    dygraph.seed(0)
    net = dygraph.nn.Sequential(dygraph.nn.Linear(4, 8), dygraph.nn.ReLU(),
                                dygraph.nn.Linear(8, 2))
    model = Model(net)
    model.prepare(dygraph.optimizer.SGD(0.1, parameters=net.parameters()),
                  dygraph.nn.CrossEntropyLoss())
    model.fit(Blobs(n=16), epochs=1, batch_size=8, verbose=0)
    model.save(str(tmp_path / "m"), training=False)
    loaded = dygraph.jit.load(str(tmp_path / "m"))
    loaded.eval()
    model.network.eval()
    for n in (1, 3):
        x = dygraph.to_tensor(Blobs(n=n).x)
        np.testing.assert_allclose(loaded(x).numpy(), model.network(x).numpy(), rtol=1e-6,
                                   atol=1e-6)


def test_progress_lines_follow_paddle(capsys):
    model = _model()
    model.fit(Blobs(n=32), epochs=1, batch_size=8, verbose=2, log_freq=2)
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "Epoch 1/1"
    assert lines[2].startswith("step 2/4 - loss: ") and " - acc: " in lines[2]
    assert lines[2].endswith("ms/step") and lines[3].startswith("step 4/4")


def test_early_stopping_stops_and_saves_the_best_model(tmp_path):
    model = _model(lr=0.0)  # the loss never improves
    stopper = EarlyStopping(monitor="loss", patience=1, verbose=0)
    epochs = []

    class Epochs(Callback):
        def on_epoch_end(self, epoch, logs=None):
            epochs.append(epoch)

    model.fit(Blobs(), Blobs(seed=1), epochs=10, batch_size=16, verbose=0,
              save_dir=str(tmp_path), callbacks=[stopper, Epochs()])
    assert epochs == [0, 1, 2]
    assert (tmp_path / "best_model.pdparams").exists()
    assert EarlyStopping(monitor="acc").mode == "max"


def test_lr_scheduler_callback_steps_per_batch_or_epoch():
    for by_step, expected in ((True, 8), (False, 2)):
        dygraph.seed(0)
        net = dygraph.nn.Linear(4, 2)
        schedule = dygraph.optimizer.lr.StepDecay(1.0, step_size=1, gamma=0.5)
        model = Model(net, [InputSpec([None, 4])], [InputSpec([None, 1], "int64")])
        model.prepare(dygraph.optimizer.SGD(schedule, parameters=net.parameters()),
                      dygraph.nn.CrossEntropyLoss())
        model.fit(Blobs(n=32), epochs=2, batch_size=8, verbose=0,
                  callbacks=[LRScheduler(by_step=by_step, by_epoch=not by_step)])
        assert schedule.last_epoch == expected


def test_reduce_lr_on_plateau_and_csv_logger(tmp_path):
    model = _model(lr=0.0)
    path = tmp_path / "log.csv"
    model.fit(Blobs(), Blobs(seed=1), epochs=3, batch_size=16, verbose=0,
              callbacks=[ReduceLROnPlateau(patience=1, factor=0.5, verbose=0),
                         CSVLogger(str(path))])
    assert model._optimizer.get_lr() == 0.0  # halving zero stays zero: nothing to reduce
    rows = list(csv.DictReader(open(path)))
    assert [r["epoch"] for r in rows] == ["0", "1", "2"]
    assert {"loss", "acc", "eval_loss", "eval_acc"} <= set(rows[0])

    model = _model(lr=0.01)
    plateau = ReduceLROnPlateau(monitor="acc", mode="max", patience=0, factor=0.5,
                                min_delta=2.0, verbose=0)  # no improvement after the first
    model.fit(Blobs(), Blobs(seed=1), epochs=3, batch_size=16, verbose=0, callbacks=[plateau])
    assert model._optimizer.get_lr() == pytest.approx(0.0025)


def test_hooks_run_in_paddles_order():
    calls = []

    class Record(Callback):
        def __getattribute__(self, name):
            if name.startswith("on_"):
                def hook(*args, **kwargs):
                    calls.append((name,) + tuple(a for a in args if isinstance(a, str)))
                return hook
            return super().__getattribute__(name)

    model = _model()
    model.fit(Blobs(n=16), Blobs(n=8), epochs=1, batch_size=8, verbose=0,
              callbacks=[Record()])
    # Paddle 3.3's hook names and order (checked): on_{mode}_begin/end, not on_begin(mode)
    assert calls == [("on_train_begin",), ("on_epoch_begin",),
                     ("on_train_batch_begin",), ("on_train_batch_end",),
                     ("on_train_batch_begin",), ("on_train_batch_end",),
                     ("on_epoch_end",), ("on_eval_begin",), ("on_eval_batch_begin",),
                     ("on_eval_batch_end",), ("on_eval_end",), ("on_train_end",)]


def test_model_checkpoint_is_not_doubled(tmp_path):
    model = _model()
    model.fit(Blobs(n=16), epochs=1, batch_size=8, verbose=0, save_dir=str(tmp_path),
              callbacks=[ModelCheckpoint(save_freq=1, save_dir=str(tmp_path / "own"))])
    assert (tmp_path / "own" / "final.pdparams").exists()
    assert not (tmp_path / "final.pdparams").exists()


# The table PaddlePaddle 3.3 prints for paddle.vision.models.LeNet(), verbatim (its rows
# end in spaces, so it lives in a data file).
LENET_TABLE = (pathlib.Path(__file__).parent / "lenet_summary.txt").read_text()


def test_summary_prints_paddles_lenet_table(capsys):
    info = dygraph.summary(dygraph.vision.models.LeNet(), (1, 1, 28, 28))
    assert capsys.readouterr().out.startswith(LENET_TABLE)
    assert info == {"total_params": 61610, "trainable_params": 61610}
    model = Model(dygraph.vision.models.LeNet(), inputs=[InputSpec([None, 1, 28, 28])])
    assert model.summary()["total_params"] == 61610


def test_flops_counts_multiply_adds():
    net = dygraph.nn.Sequential(dygraph.nn.Conv2D(1, 2, 3), dygraph.nn.ReLU(),
                                dygraph.nn.Flatten(), dygraph.nn.Linear(8, 3))
    # conv: 2*2*2 outputs x (1*3*3 taps + bias); linear: 3 outputs x (8 + bias).
    assert dygraph.flops(net, [1, 1, 4, 4]) == 8 * 10 + 3 * 9
    assert dygraph.flops(net, [1, 1, 4, 4],
                         custom_ops={dygraph.nn.ReLU: lambda *a: 100}) == 8 * 10 + 27 + 100
