"""Small differences from Paddle 3.3 found in reports; every expectation below was checked
against Paddle 3.3 (paddlepaddle 3.3, CPU) before DyGraph was changed to match."""

import numpy as np
import pytest

import dygraph as paddle
from dygraph import nn

_HOUSING = np.random.default_rng(0).random((10, 14))


def _housing_file(tmp_path):
    path = tmp_path / "housing.data"
    np.savetxt(path, _HOUSING)
    return str(path)


# -- text.datasets.UCIHousing ----------------------------------------------------------------
def test_uci_housing_follows_the_default_dtype_at_construction(tmp_path):
    # Checked against Paddle 3.3: dtype is get_default_dtype() (a name) when the dataset is
    # built; float64 -> both arrays float64; a later set_default_dtype leaves it unchanged.
    from dygraph.text.datasets import UCIHousing

    path = _housing_file(tmp_path)
    ds32 = UCIHousing(path, download=False)
    assert ds32.dtype == "float32"
    assert [a.dtype for a in ds32[0]] == [np.float32, np.float32]
    assert ds32[0][1].shape == (1,)
    paddle.set_default_dtype("float64")
    try:
        ds64 = UCIHousing(path, download=False)
    finally:
        paddle.set_default_dtype("float32")
    assert ds64.dtype == "float64"
    assert [a.dtype for a in ds64[0]] == [np.float64, np.float64]
    assert ds64[0][0].dtype == np.float64  # still float64 after the default went back


# -- nn.Sequential.insert ----------------------------------------------------------------------
def test_sequential_insert_takes_index_then_module():
    # Checked against Paddle 3.3: insert(index, module) (keyword `module`, not `sublayer`);
    # a non-Layer, as with the arguments swapped, is an AssertionError; out of range is an
    # IndexError; negative indices count from the end.
    def names(seq):
        return [type(layer).__name__ for layer in seq]

    def make():
        return nn.Sequential(nn.ReLU(), nn.Tanh())

    assert names(make().insert(1, nn.Sigmoid())) == ["ReLU", "Sigmoid", "Tanh"]
    assert names(make().insert(index=0, module=nn.Sigmoid())) == ["Sigmoid", "ReLU", "Tanh"]
    assert names(make().insert(-1, nn.Sigmoid())) == ["ReLU", "Sigmoid", "Tanh"]
    assert names(make().insert(2, nn.Sigmoid())) == ["ReLU", "Tanh", "Sigmoid"]
    with pytest.raises(AssertionError):
        make().insert(nn.Sigmoid(), 1)
    with pytest.raises(TypeError):  # DyGraph's kind for a wrong type, too
        make().insert(0, 5)
    with pytest.raises(IndexError):
        make().insert(3, nn.Sigmoid())
    with pytest.raises(IndexError):
        make().insert(-3, nn.Sigmoid())


# -- optimizer.lr.CosineAnnealingWarmRestarts --------------------------------------------------
@pytest.mark.parametrize("kwargs", [{"T_0": 2.0}, {"T_0": 2.5}, {"T_0": 2, "T_mult": 2.0}])
def test_cosine_warm_restarts_refuses_a_float_period_with_value_error(kwargs):
    # Checked against Paddle 3.3: a float T_0 (even 2.0) or T_mult is refused with ValueError
    # ("Expected positive integer T_0"); it is not accepted.
    with pytest.raises(ValueError):
        paddle.optimizer.lr.CosineAnnealingWarmRestarts(1.0, **kwargs)


def test_cosine_warm_restarts_int_period_still_runs():
    s = paddle.optimizer.lr.CosineAnnealingWarmRestarts(1.0, T_0=2)
    rates = []
    for _ in range(4):
        rates.append(round(s(), 3))
        s.step()
    assert rates == [1.0, 0.5, 1.0, 0.5]


# -- io.WeightedRandomSampler ------------------------------------------------------------------
@pytest.mark.parametrize("weights", [
    [0.1, -0.2, 0.5],            # negative
    [0.0, 0.0],                  # none positive
    [0.1, float("inf")],         # INF
    [0.1, float("nan")],         # NaN
])
def test_weighted_sampler_bad_weights_are_assertion_errors(weights):
    # Checked against Paddle 3.3: bad weights fail Paddle's asserts (AssertionError, when
    # iterated); DyGraph raises at construction, an AssertionError that is also a ValueError.
    with pytest.raises(AssertionError):
        list(paddle.io.WeightedRandomSampler(weights, 2))
    with pytest.raises(ValueError):
        paddle.io.WeightedRandomSampler(weights, 2)


def test_weighted_sampler_non_numeric_weights_are_type_errors():
    # Checked against Paddle 3.3: None fails its assert (AssertionError); strings fail the
    # comparison with a TypeError (numpy's UFuncTypeError). Ours is both kinds.
    with pytest.raises(AssertionError):
        paddle.io.WeightedRandomSampler(None, 2)
    with pytest.raises(TypeError):
        paddle.io.WeightedRandomSampler(["a", "b"], 2)


@pytest.mark.parametrize("num_samples", [0, -1, 2.0])
def test_weighted_sampler_num_samples_must_be_a_positive_int(num_samples):
    # Checked against Paddle 3.3: ValueError("num_samples should be a positive integer").
    with pytest.raises(ValueError, match="num_samples should be a positive integer"):
        paddle.io.WeightedRandomSampler([0.1, 0.2], num_samples)


def test_weighted_sampler_without_replacement_needs_enough_positive_weights():
    # Checked against Paddle 3.3: replacement=False with num_samples above the number of
    # positive weights is an AssertionError (a zero weight does not count).
    with pytest.raises(AssertionError):
        paddle.io.WeightedRandomSampler([0.1, 0.2, 0.3], 5, replacement=False)
    with pytest.raises(AssertionError):
        paddle.io.WeightedRandomSampler([0.1, 0.0, 0.3], 3, replacement=False)
    picks = list(paddle.io.WeightedRandomSampler([0.1, 0.0, 0.3], 2, replacement=False))
    assert sorted(picks) == [0, 2]
    with pytest.raises(ValueError, match="replacement should be a boolean"):
        paddle.io.WeightedRandomSampler([0.1, 0.2], 2, replacement=1)


# -- save of Layers ----------------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: nn.Linear(2, 2),
    lambda: (nn.Linear(2, 2), nn.Linear(2, 2)),
    lambda: [nn.Linear(2, 2)],
    lambda: {"a": [nn.Linear(2, 2)]},
])
def test_save_of_layers_is_a_value_error(tmp_path, make):
    # Checked against Paddle 3.3: paddle.save of a Layer, alone or inside a tuple, list or
    # dict, raises ValueError ("do not support saving `paddle.nn.Layer` object").
    with pytest.raises(ValueError, match="Layer"):
        paddle.save(make(), str(tmp_path / "x.pdparams"))
    with pytest.raises(TypeError):  # DyGraph's earlier kind still catches it
        paddle.save(make(), str(tmp_path / "x.pdparams"))


# -- optimizer.lr.ReduceOnPlateau --------------------------------------------------------------
@pytest.mark.parametrize("kwargs, what", [({"mode": "foo"}, "mode"),
                                          ({"threshold_mode": "foo"}, "threshold_mode")])
def test_reduce_on_plateau_unknown_mode_is_a_value_error(kwargs, what):
    # Checked against Paddle 3.3 (paddle.optimizer.lr.ReduceOnPlateau): mode='foo' raises
    # ValueError ("mode: foo is unknown!") at construction; no warning and no fallback.
    # threshold_mode='foo' likewise. Upper case is accepted ('MAX' means 'max').
    with pytest.raises(ValueError, match=what):
        paddle.optimizer.lr.ReduceOnPlateau(1.0, **kwargs)
    s = paddle.optimizer.lr.ReduceOnPlateau(1.0, mode="MAX", patience=0)
    rates = []
    for metric in [1.0, 2.0, 3.0, 0.5]:
        s.step(metric)
        rates.append(s())
    assert s.mode == "max" and rates == pytest.approx([1.0, 1.0, 1.0, 0.1])


# -- vision.datasets.MNIST ---------------------------------------------------------------------
def _mnist_files(tmp_path, n=100):
    import gzip
    import struct

    images = (np.arange(n * 28 * 28) % 256).astype(np.uint8)
    labels = (np.arange(n) % 10).astype(np.uint8)
    image_path, label_path = tmp_path / "img.gz", tmp_path / "lab.gz"
    with gzip.open(image_path, "wb") as f:
        f.write(struct.pack(">IIII", 2051, n, 28, 28) + images.tobytes())
    with gzip.open(label_path, "wb") as f:
        f.write(struct.pack(">II", 2049, n) + labels.tobytes())
    return str(image_path), str(label_path)


def test_mnist_image_types_follow_backend_and_default_dtype(tmp_path):
    # Checked against Paddle 3.3: the default backend ('pil') gives a PIL image in mode 'L'
    # (uint8 when read with np.asarray); 'cv2' gives a 28x28 ndarray of the default dtype
    # (float32; float64 when set_default_dtype('float64') came before the dataset), the
    # transform itself receiving float32; the label is int64 of shape [1].
    pytest.importorskip("PIL")
    from dygraph.vision.datasets import MNIST

    image_path, label_path = _mnist_files(tmp_path)
    image, label = MNIST(image_path, label_path, download=False)[1]
    assert type(image).__name__ == "Image" and image.mode == "L" and image.size == (28, 28)
    assert np.asarray(image).dtype == np.uint8
    assert label.dtype == np.int64 and label.tolist() == [1]
    image, _ = MNIST(image_path, label_path, download=False, backend="cv2")[1]
    assert isinstance(image, np.ndarray) and image.dtype == np.float32
    assert image.shape == (28, 28) and image.max() == 255.0
    seen = []
    paddle.set_default_dtype("float64")
    try:
        ds = MNIST(image_path, label_path, download=False, backend="cv2",
                   transform=lambda x: seen.append(x.dtype) or x)
    finally:
        paddle.set_default_dtype("float32")
    assert ds.dtype == "float64" and ds[0][0].dtype == np.float64 and seen == [np.float32]


# -- hapi callbacks: Paddle's hooks and order --------------------------------------------------
def _tiny_model():
    from dygraph.io import TensorDataset

    net = nn.Linear(4, 2)
    model = paddle.Model(net)
    model.prepare(paddle.optimizer.SGD(0.1, parameters=net.parameters()),
                  nn.CrossEntropyLoss())
    data = TensorDataset([paddle.randn([8, 4]), paddle.randint(0, 2, [8, 1])])
    return model, data


def test_user_on_train_begin_is_called_and_follows_the_progress_bar():
    # Checked against Paddle 3.3: CallbackList calls on_train_begin / on_train_end (and
    # on_eval_*, on_predict_*) of every callback, ProgBarLogger first; when it raises in
    # on_train_begin the error propagates and later callbacks are not called; with verbose=0
    # there is no ProgBarLogger, so the user's hooks all run.
    from dygraph.hapi.callbacks import config_callbacks

    calls = []

    class Record(paddle.callbacks.Callback):
        def on_train_begin(self, logs=None):
            calls.append("user.train_begin")

        def on_train_end(self, logs=None):
            calls.append("user.train_end")

        def on_eval_end(self, logs=None):
            calls.append("user.eval_end")

    class FailingBar(paddle.callbacks.ProgBarLogger):
        def on_train_begin(self, logs=None):
            calls.append("bar.train_begin")
            raise RuntimeError("bar failed")

    model, data = _tiny_model()
    model.fit(data, data, batch_size=4, epochs=1, verbose=0, callbacks=[Record()])
    assert calls == ["user.train_begin", "user.eval_end", "user.train_end"]
    for callbacks, expected in (([Record(), FailingBar()], ["user.train_begin",
                                                            "bar.train_begin"]),
                                ([FailingBar(), Record()], ["bar.train_begin"])):
        calls.clear()
        with pytest.raises(RuntimeError, match="bar failed"):
            model.fit(data, batch_size=4, epochs=1, verbose=2, callbacks=callbacks)
        assert calls == expected
    # (Paddle also lists a ModelCheckpoint that does nothing without save_dir; DyGraph adds
    # one only with a save_dir)
    names = [type(c).__name__ for c in config_callbacks([Record()], verbose=0).callbacks]
    assert names == ["Record", "LRScheduler"]
    names = [type(c).__name__ for c in config_callbacks([Record()], verbose=2).callbacks]
    assert names == ["ProgBarLogger", "Record", "LRScheduler"]


def test_dygraph_style_on_begin_callbacks_still_work():
    # DyGraph's own hook form (on_begin(mode) / on_end(mode)) is reached through the
    # default on_{mode}_begin / on_{mode}_end.
    seen = []

    class Old(paddle.callbacks.Callback):
        def on_begin(self, mode, logs=None):
            seen.append(("begin", mode))

        def on_end(self, mode, logs=None):
            seen.append(("end", mode))

    model, data = _tiny_model()
    model.fit(data, batch_size=4, epochs=1, verbose=0, callbacks=[Old()])
    model.predict(data, batch_size=4, verbose=0, callbacks=[Old()])
    assert seen == [("begin", "train"), ("end", "train"), ("begin", "predict"),
                    ("end", "predict")]


# -- hapi Model.load into a rebuilt network ----------------------------------------------------
def _conv_model():
    net = nn.Sequential(nn.Conv2D(1, 2, 3), nn.Flatten(), nn.Linear(8, 2))
    model = paddle.Model(net)
    opt = paddle.optimizer.Adam(0.1, parameters=net.parameters())
    model.prepare(opt, nn.CrossEntropyLoss())
    return model, net


def test_model_load_does_not_map_optimizer_state_onto_renamed_parameters(tmp_path):
    # Checked against Paddle 3.3: after Model.save, a rebuilt network gets new unique names
    # ('conv2d_1.w_0' for 'conv2d_0.w_0'); Model.load restores the parameters (by structured
    # name) but does not map the Adam accumulators onto the new names: the next train_batch
    # fails ("AssertionError: Optimizer set error, conv2d_1.w_0_moment1_0 should in state
    # dict"). DyGraph refuses at load, with an AssertionError that is also a ValueError;
    # reset_optimizer=True loads the parameters alone in both.
    x = np.random.default_rng(0).random((4, 1, 4, 4)).astype("float32")
    y = np.array([[0], [1], [0], [1]], dtype="int64")
    model, net = _conv_model()
    model.train_batch([x], [y])
    model.save(str(tmp_path / "ck"))
    rebuilt, net2 = _conv_model()
    assert [p.name for p in net2.parameters()] != [p.name for p in net.parameters()]
    with pytest.raises(AssertionError, match="reset_optimizer"):
        rebuilt.load(str(tmp_path / "ck"))
    with pytest.raises(ValueError):
        rebuilt.load(str(tmp_path / "ck"))
    rebuilt.load(str(tmp_path / "ck"), reset_optimizer=True)
    for a, b in zip(net.parameters(), net2.parameters()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    rebuilt.train_batch([x], [y])
