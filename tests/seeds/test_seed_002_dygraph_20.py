# ruff: noqa: B007, UP008, UP032 - the seeds' code is kept as written (1.x-era style)
"""Seed 002 (the 2.0 API, Chinese): every code example, run as written.

Only the import changes (`import dygraph as paddle`). Lines added to observe the run are
marked `# check:`; the long training loop runs fewer iterations (marked `# shortened:`).
"""

import numpy as np
import pytest

import dygraph as paddle
import dygraph.nn.functional as F
from tests.seeds.conftest import printed_values


def test_version(capsys):
    print(paddle.__version__)

    assert capsys.readouterr().out == paddle.__version__ + "\n"


def test_basic_usage(capsys):
    a = paddle.randn([4, 2])
    b = paddle.arange(1, 3, dtype='float32')

    print(a)
    print(b)

    c = a + b
    print(c)

    d = paddle.matmul(a, b)
    print(d)

    out = capsys.readouterr().out
    assert out.startswith("Tensor(shape=[4, 2], dtype=float32, place=")
    np.testing.assert_array_equal(b.numpy(), [1.0, 2.0])
    np.testing.assert_allclose(c.numpy(), a.numpy() + [1.0, 2.0])
    assert d.shape == [4]
    np.testing.assert_allclose(d.numpy(), a.numpy() @ [1.0, 2.0], rtol=1e-6)


def test_python_control_flow(capsys):
    a = paddle.to_tensor(np.array([1, 2, 3]))
    b = paddle.to_tensor(np.array([4, 5, 6]))

    for i in range(10):
        r = paddle.rand([1,])
        if r > 0.5:
            c = paddle.pow(a, i) + b
            print("{} +> {}".format(i, c.numpy()))
        else:
            c = paddle.pow(a, i) - b
            print("{} -> {}".format(i, c.numpy()))

    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 10
    for i, line in enumerate(lines):
        sign = 1 if line.split()[1] == "+>" else -1
        expected = np.array([1, 2, 3]) ** i + sign * np.array([4, 5, 6])
        assert line.split(maxsplit=2)[2] == str(expected)


class MyModel(paddle.nn.Layer):
    def __init__(self, input_size, hidden_size):
        super(MyModel, self).__init__()
        self.linear1 = paddle.nn.Linear(input_size, hidden_size)
        self.linear2 = paddle.nn.Linear(hidden_size, hidden_size)
        self.linear3 = paddle.nn.Linear(hidden_size, 1)

    def forward(self, inputs):
        x = self.linear1(inputs)
        x = F.relu(x)

        if paddle.rand([1,]) > 0.5:
            x = self.linear2(x)
            x = F.relu(x)

        x = self.linear3(x)

        return x


def test_control_flow_network(capsys):
    paddle.seed(2020)  # check: a reproducible run
    np.random.seed(2020)  # check:
    total_data, batch_size, input_size, hidden_size = 1000, 64, 128, 256

    x_data = np.random.randn(total_data, input_size).astype(np.float32)
    y_data = np.random.randn(total_data, 1).astype(np.float32)

    model = MyModel(input_size, hidden_size)

    loss_fn = paddle.nn.MSELoss(reduction='mean')
    optimizer = paddle.optimizer.SGD(learning_rate=0.01,
                                     parameters=model.parameters())

    losses = []  # check:
    for t in range(10 * (total_data // batch_size)):  # shortened: the seed runs 200 * ...
        idx = np.random.choice(total_data, batch_size, replace=False)
        x = paddle.to_tensor(x_data[idx,:])
        y = paddle.to_tensor(y_data[idx,:])
        y_pred = model(x)

        loss = loss_fn(y_pred, y)
        if t % 200 == 0:
            print(t, loss.numpy())
        losses.append(float(loss.numpy().item()))  # check:

        loss.backward()
        optimizer.step()
        optimizer.clear_grad()

    assert capsys.readouterr().out.startswith("0 ")
    # the model fits the (random) targets: the loss falls
    assert np.mean(losses[-20:]) < 0.9 * np.mean(losses[:20])


def test_weight_sharing(capsys):
    paddle.seed(2020)  # check: a reproducible run
    inputs = paddle.rand((256, 64))

    linear = paddle.nn.Linear(64, 8, bias_attr=False)
    loss_fn = paddle.nn.MSELoss()
    optimizer = paddle.optimizer.Adam(0.01, parameters=linear.parameters())

    for i in range(10):
        hidden = linear(inputs)
        # weight from input to hidden is shared with the linear mapping from hidden to output
        outputs = paddle.matmul(hidden, linear.weight, transpose_y=True)
        loss = loss_fn(outputs, inputs)
        loss.backward()
        print("step: {}, loss: {}".format(i, loss.numpy()))
        optimizer.step()
        optimizer.clear_grad()

    losses = printed_values(capsys.readouterr().out, "loss:")
    assert len(losses) == 10
    assert all(later < earlier for earlier, later in zip(losses, losses[1:]))
    assert losses[0] == pytest.approx(1 / 3, abs=0.03)  # E[x**2] of U[0, 1): as printed
    assert losses[-1] < 0.5 * losses[0]
