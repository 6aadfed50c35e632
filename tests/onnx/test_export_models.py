"""ONNX export of the vision models and an LSTM classifier: one export with a dynamic
batch, run in onnxruntime at two batch sizes, equals eager DyGraph (float32, 1e-4)."""

import numpy as np
import pytest

import dygraph
from dygraph import nn
from dygraph.static import InputSpec
from dygraph.vision import models
from tests.onnx.helpers import calibrate_batch_norm, check_export, images, session


def test_lenet(tmp_path):
    dygraph.seed(1)
    check_export(tmp_path, models.LeNet(), [None, 1, 28, 28], images((1, 28, 28)))


def test_seeds_mnist_net(tmp_path):
    dygraph.seed(2)
    check_export(tmp_path, models.MNISTNet(), [None, 1, 28, 28], images((1, 28, 28)))


def test_resnet18(tmp_path):
    dygraph.seed(3)
    net = models.resnet18(num_classes=10)
    calibrate_batch_norm(net, images((3, 32, 32), seed=10)(8))
    check_export(tmp_path, net, [None, 3, 32, 32], images((3, 32, 32)), batches=(1, 2))


def test_vgg11(tmp_path):
    dygraph.seed(4)
    # vgg11's features and adaptive pool (1x1 -> 7x7 here: uneven bins), and its
    # classifier's structure with narrower hidden layers (the full one is 500 MB).
    net = models.vgg11(num_classes=0)
    net.num_classes = 10
    net.classifier = nn.Sequential(nn.Linear(512 * 7 * 7, 64), nn.ReLU(), nn.Dropout(),
                                   nn.Linear(64, 64), nn.ReLU(), nn.Dropout(),
                                   nn.Linear(64, 10))
    check_export(tmp_path, net, [None, 3, 32, 32], images((3, 32, 32)), batches=(1, 2))


def test_mobilenet_v2(tmp_path):
    dygraph.seed(5)
    net = models.mobilenet_v2(num_classes=10)
    calibrate_batch_norm(net, images((3, 32, 32), seed=10)(8))
    out = net(dygraph.to_tensor(images((3, 32, 32))(2))).numpy()
    assert np.abs(out).max() > 1e-2  # calibrated: the comparison below means something
    check_export(tmp_path, net, [None, 3, 32, 32], images((3, 32, 32)), batches=(1, 2))


class SequenceClassifier(nn.Layer):
    """Embedding, a 2-layer recurrent net and a linear head on the last step."""

    def __init__(self, kind="LSTM", direction="forward"):
        super().__init__()
        self.embedding = nn.Embedding(50, 16, padding_idx=0)
        self.rnn = getattr(nn, kind)(16, 24, num_layers=2, direction=direction)
        width = 48 if direction != "forward" else 24
        self.head = nn.Linear(width, 4)

    def forward(self, ids):
        out, _ = self.rnn(self.embedding(ids))
        return self.head(out[:, -1])


def _ids(batch):
    ids = np.random.default_rng(batch).integers(0, 50, (batch, 7))
    ids[:, 0] = 0  # the padding id
    return ids


def test_two_layer_lstm_classifier(tmp_path):
    dygraph.seed(6)
    check_export(tmp_path, SequenceClassifier("LSTM"), [None, 7], _ids, name="ids")


def test_gru_and_simple_rnn_bidirectional(tmp_path):
    dygraph.seed(7)
    check_export(tmp_path / "gru", SequenceClassifier("GRU", "bidirect"), [None, 7], _ids,
                 name="ids")
    check_export(tmp_path / "rnn", SequenceClassifier("SimpleRNN"), [None, 7], _ids,
                 name="ids")


class TimeMajorRNN(nn.Layer):
    """A bidirectional time-major LSTM or GRU with one of its biases, on a batch-first
    input; returns the last step and the final states batch-first."""

    def __init__(self, kind, **bias):
        super().__init__()
        self.rnn = getattr(nn, kind)(5, 6, direction="bidirect", time_major=True, **bias)

    def forward(self, x):
        out, states = self.rnn(x.transpose([1, 0, 2]))
        states = states if isinstance(states, tuple) else (states,)
        return (out[-1],) + tuple(s.transpose([1, 0, 2]) for s in states)


@pytest.mark.parametrize("kind, bias", [("LSTM", {"bias_hh_attr": False}),
                                        ("GRU", {"bias_ih_attr": False}),
                                        ("GRU", {"bias_hh_attr": False})],
                         ids=["lstm", "gru_hidden_bias", "gru_input_bias"])
def test_time_major_layers_with_one_bias_and_final_states(tmp_path, kind, bias):
    # One ONNX LSTM/GRU node per layer op: the input transposed or not, B from the biases.
    dygraph.seed(10)
    check_export(tmp_path, TimeMajorRNN(kind, **bias), [None, 4, 5], images((4, 5)))


def test_bidirectional_lstm(tmp_path):
    dygraph.seed(11)
    check_export(tmp_path, SequenceClassifier("LSTM", "bidirect"), [None, 7], _ids,
                 name="ids")


def test_free_sequence_length(tmp_path):
    dygraph.seed(8)
    net = SequenceClassifier("LSTM")
    path = check_export(tmp_path, net, [None, None], _ids, name="ids")
    ids = np.random.default_rng(0).integers(0, 50, (2, 11))
    got = session(path).run(None, {"ids": ids})[0]
    np.testing.assert_allclose(got, net(dygraph.to_tensor(ids)).numpy(), atol=1e-5)


@pytest.mark.parametrize("build", [
    lambda: models.squeezenet1_1(num_classes=4),
    lambda: models.mobilenet_v1(scale=0.25, num_classes=4),
    lambda: models.mobilenet_v3_small(scale=0.5, num_classes=4),
    lambda: models.ShuffleNetV2(0.33, act="swish", num_classes=4),
], ids=["squeezenet1_1", "mobilenet_v1", "mobilenet_v3_small", "shufflenet_v2_swish"])
def test_more_of_the_zoo(tmp_path, build):
    # Fire modules (concat), depthwise blocks, squeeze-excitation with hardswish and
    # hardsigmoid, channel shuffle (reshape/transpose) and swish.
    dygraph.seed(9)
    net = build()
    calibrate_batch_norm(net, images((3, 32, 32), seed=10)(8))
    check_export(tmp_path, net, [None, 3, 32, 32], images((3, 32, 32)), batches=(1, 2))


class StepByStep(nn.Layer):
    """LSTM and GRU cells called in a Python loop (the fused cell-step ops), two inputs."""

    def __init__(self):
        super().__init__()
        self.lstm, self.gru = nn.LSTMCell(5, 6), nn.GRUCell(5, 6)

    def forward(self, x, h0):
        h, c, g = h0, h0 * 0.5, h0
        for t in range(x.shape[1]):
            _, (h, c) = self.lstm(x[:, t], (h, c))
            g, _ = self.gru(x[:, t], g)
        return h + c, g


def test_cells_stepped_in_python_with_two_inputs(tmp_path):
    dygraph.seed(10)
    net = StepByStep()
    net.eval()
    path = str(tmp_path / "cells")
    dygraph.onnx.export(net, path, [InputSpec([None, 3, 5], "float32", "x"),
                                    InputSpec([None, 6], "float32", "h0")])
    sess = session(path + ".onnx")
    assert [i.shape[0] for i in sess.get_inputs()] == ["x_batch", "h0_batch"]
    for batch in (1, 4):
        x, h0 = images((3, 5))(batch), images((6,), seed=3)(batch)
        got = sess.run(None, {"x": x, "h0": h0})
        want = net(dygraph.to_tensor(x), dygraph.to_tensor(h0))
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b.numpy(), atol=1e-5)
