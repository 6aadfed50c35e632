# ruff: noqa: B007, UP008, UP032 - the seeds' code is kept as written (1.x-era style)
"""Seed 000 (DyGraph 1.4, English): every code example, run as written.

Only the imports change (`import dygraph.fluid as fluid`, `import dygraph as paddle`, and the
bare names the 1.4 test file imported). Changes needed to run on today's Python/NumPy/Pillow
are marked `# seed fix:`; lines added to observe the run are marked `# check:`. The MNIST
readers give a few batches of the shipped sample (see conftest.py).
"""

import os

import numpy as np
import pytest

import dygraph as paddle
import dygraph.fluid as fluid
from dygraph.fluid import core
from dygraph.fluid.dygraph.base import to_variable
from dygraph.fluid.dygraph.nn import FC, Conv2D, Pool2D
from dygraph.fluid.optimizer import AdamOptimizer, SGDOptimizer
from tests.seeds.conftest import printed_values, write_digit_png
from tests.seeds.mnist_reference import PARAM_SHAPES, check_sgd_step, mean_loss

BATCH_SIZE = 64
seed = 90
epoch_num = 2


# -- "Installation and Basic Usage" ---------------------------------------------------------
def test_sums_and_gradient(capsys):
    with fluid.dygraph.guard():
        # write your executable dygraph code here
        pass

    x = np.ones([2, 2], np.float32)
    with fluid.dygraph.guard():
        inputs = []
        for _ in range(10):
            inputs.append(fluid.dygraph.base.to_variable(x))
        ret = fluid.layers.sums(inputs)
        print(ret.numpy())

        loss = fluid.layers.reduce_sum(ret)
        loss.backward()
        print(loss.gradient())

    np.testing.assert_array_equal(ret.numpy(), [[10.0, 10.0], [10.0, 10.0]])
    np.testing.assert_array_equal(loss.gradient(), [1.0])
    assert capsys.readouterr().out == "[[10. 10.]\n [10. 10.]]\n[1.]\n"


# -- the commented-out PyLayer example ------------------------------------------------------
class MyPyLayer(fluid.PyLayer):
    def __init__(self):
        super(MyPyLayer, self).__init__()

    @staticmethod
    def forward(inputs):
        return np.tanh(inputs[0])

    @staticmethod
    def backward(inputs):
        inp, out, dout = inputs
        # seed fix: the closing parenthesis was missing
        return np.array(dout) * (1 - np.square(np.array(out)))


def test_py_layer():
    np_inp = np.ones([2, 2], np.float32)
    with fluid.dygraph.guard():
        my_py_layer = MyPyLayer()
        var_inp = fluid.dygraph.base.to_variable(np_inp)
        outs = my_py_layer(var_inp)
        dy_out = np.sum(outs[0].numpy())
        outs[0].backward()
        dy_grad = var_inp.gradient()

    assert dy_out == pytest.approx(4 * np.tanh(1.0), rel=1e-6)
    np.testing.assert_allclose(dy_grad, np.full([2, 2], 1 - np.tanh(1.0) ** 2), rtol=1e-6)


# -- "Build a Network based on DyGraph" ------------------------------------------------------
class MyLayer(fluid.Layer):
    def __init__(self, name_scope):
        super(MyLayer, self).__init__(name_scope)

    def forward(self, inputs):
        x = fluid.layers.relu(inputs)
        self._x_for_debug = x
        x = fluid.layers.elementwise_mul(x, x)
        x = fluid.layers.reduce_sum(x)
        return [x]

    def build_once(self, input):
        pass


def test_my_layer():
    np_inp = np.array([1.0, 2.0, -1.0], dtype=np.float32)

    with fluid.dygraph.guard():
        var_inp = fluid.dygraph.base.to_variable(np_inp)
        l = MyLayer("my_layer")  # noqa: E741 - the seed's name
        x = l(var_inp)[0]
        dy_out = x.numpy()

        x.backward()
        dy_grad = l._x_for_debug.gradient()

    np.testing.assert_array_equal(dy_out, [5.0])
    np.testing.assert_array_equal(dy_grad, [2.0, 4.0, 0.0])
    assert l.full_name().startswith("my_layer_")


# -- "Train model by DyGraph": the 1.4 MNIST model ------------------------------------------
class SimpleImgConvPool(fluid.dygraph.Layer):
    def __init__(self,
                 name_scope,
                 num_channels,
                 num_filters,
                 filter_size,
                 pool_size,
                 pool_stride,
                 pool_padding=0,
                 pool_type='max',
                 global_pooling=False,
                 conv_stride=1,
                 conv_padding=0,
                 conv_dilation=1,
                 conv_groups=1,
                 act=None,
                 use_cudnn=False,
                 param_attr=None,
                 bias_attr=None):
        super(SimpleImgConvPool, self).__init__(name_scope)

        self._conv2d = Conv2D(
            self.full_name(),
            num_channels=num_channels,
            num_filters=num_filters,
            filter_size=filter_size,
            stride=conv_stride,
            padding=conv_padding,
            dilation=conv_dilation,
            groups=conv_groups,
            param_attr=None,
            bias_attr=None,
            use_cudnn=use_cudnn)

        self._pool2d = Pool2D(
            self.full_name(),
            pool_size=pool_size,
            pool_type=pool_type,
            pool_stride=pool_stride,
            pool_padding=pool_padding,
            global_pooling=global_pooling,
            use_cudnn=use_cudnn)

    def forward(self, inputs):
        x = self._conv2d(inputs)
        x = self._pool2d(x)
        return x


class MNIST(fluid.dygraph.Layer):
    def __init__(self, name_scope):
        super(MNIST, self).__init__(name_scope)

        self._simple_img_conv_pool_1 = SimpleImgConvPool(
            self.full_name(), 1, 20, 5, 2, 2, act="relu")

        self._simple_img_conv_pool_2 = SimpleImgConvPool(
            self.full_name(), 20, 50, 5, 2, 2, act="relu")

        pool_2_shape = 50 * 4 * 4
        SIZE = 10
        scale = (2.0 / (pool_2_shape**2 * SIZE))**0.5
        self._fc = FC(self.full_name(),
                      10,
                      param_attr=fluid.param_attr.ParamAttr(
                          initializer=fluid.initializer.NormalInitializer(
                              loc=0.0, scale=scale)),
                      act="softmax")

    def forward(self, inputs):
        x = self._simple_img_conv_pool_1(inputs)
        x = self._simple_img_conv_pool_2(x)
        x = self._fc(x)
        return x


def _mean_loss(model, data):
    """Mean cross entropy of `model` on a list of (image, label) samples."""
    img = to_variable(np.array([x[0].reshape(1, 28, 28) for x in data]).astype('float32'))
    label = to_variable(np.array([x[1] for x in data]).astype('int64').reshape(-1, 1))
    return float(fluid.layers.mean(fluid.layers.cross_entropy(model(img), label)).numpy()[0])


def test_untrained_model_output(small_mnist, capsys):
    small_mnist(2 * BATCH_SIZE)
    train_reader = paddle.batch(
        paddle.dataset.mnist.train(), batch_size=BATCH_SIZE, drop_last=True)

    with fluid.dygraph.guard():
        mnist = MNIST("mnist")
        id, data = list(enumerate(train_reader()))[0]
        dy_x_data = np.array(
            [x[0].reshape(1, 28, 28)
             for x in data]).astype('float32')
        img = to_variable(dy_x_data)
        print("cost is: {}".format(mnist(img).numpy()))
        cost = mnist(img).numpy()  # check:

    assert capsys.readouterr().out.startswith("cost is: [[0.")
    assert cost.shape == (BATCH_SIZE, 10)
    np.testing.assert_allclose(cost.sum(axis=1), 1.0, rtol=1e-5)
    # the FC's tiny initial weights make every class about equally likely, as printed
    np.testing.assert_allclose(cost, 0.1, atol=0.02)


def test_training_loop(small_mnist):
    small_mnist(12 * BATCH_SIZE)
    with fluid.dygraph.guard():
        fluid.default_startup_program().random_seed = seed
        fluid.default_main_program().random_seed = seed
        mnist = MNIST("mnist")
        sgd = SGDOptimizer(learning_rate=1e-3)
        train_reader = paddle.batch(
            paddle.dataset.mnist.train(), batch_size=BATCH_SIZE, drop_last=True)
        first = list(train_reader())[0]  # check:
        initial_loss = _mean_loss(mnist, first)  # check:

        for epoch in range(epoch_num):
            for batch_id, data in enumerate(train_reader()):
                dy_x_data = np.array(
                    [x[0].reshape(1, 28, 28)
                     for x in data]).astype('float32')
                y_data = np.array(
                    [x[1] for x in data]).astype('int64').reshape(BATCH_SIZE, 1)

                img = to_variable(dy_x_data)
                label = to_variable(y_data)
                label.stop_gradient = True

                cost = mnist(img)
                loss = fluid.layers.cross_entropy(cost, label)
                avg_loss = fluid.layers.mean(loss)

                dy_out = avg_loss.numpy()
                avg_loss.backward()
                sgd.minimize(avg_loss)
                mnist.clear_gradients()

        assert _mean_loss(mnist, first) < initial_loss - 0.02  # check:
        assert dy_out.shape == (1,)


def test_variables_and_optimizer(small_mnist, capsys):
    small_mnist(12 * BATCH_SIZE)
    with fluid.dygraph.guard():
        fluid.default_startup_program().random_seed = seed
        fluid.default_main_program().random_seed = seed

        mnist = MNIST("mnist")
        sgd = SGDOptimizer(learning_rate=1e-3)
        train_reader = paddle.batch(
            paddle.dataset.mnist.train(), batch_size= BATCH_SIZE, drop_last=True)

        dy_param_init_value = {}
        np.set_printoptions(precision=3, suppress=True)
        for epoch in range(epoch_num):
            for batch_id, data in enumerate(train_reader()):
                dy_x_data = np.array(
                    [x[0].reshape(1, 28, 28)
                     for x in data]).astype('float32')
                y_data = np.array(
                    [x[1] for x in data]).astype('int64').reshape(BATCH_SIZE, 1)

                img = to_variable(dy_x_data)
                label = to_variable(y_data)
                label.stop_gradient = True

                cost = mnist(img)
                loss = fluid.layers.cross_entropy(cost, label)
                avg_loss = fluid.layers.mean(loss)

                dy_out = avg_loss.numpy()

                if epoch == 0 and batch_id == 0:
                    for param in mnist.parameters():
                        dy_param_init_value[param.name] = param.numpy()
                    init_copy = {k: v.copy() for k, v in dy_param_init_value.items()}  # check:

                avg_loss.backward()
                sgd.minimize(avg_loss)
                mnist.clear_gradients()

                dy_param_value = {}
                for param in mnist.parameters():
                    dy_param_value[param.name] = param.numpy()

                if batch_id % 20 == 0:
                    # seed fix: Python 3 cannot apply '.7' to an array; the seed's Python 2
                    # formatted its str()
                    print("Loss at step {}: {:.7}".format(batch_id, str(avg_loss.numpy())))
        print("Final loss: {:.7}".format(str(avg_loss.numpy())))  # seed fix: as above
        print("_simple_img_conv_pool_1_conv2d W's mean is: {}".format(mnist._simple_img_conv_pool_1._conv2d._filter_param.numpy().mean()))  # noqa: E501
        print("_simple_img_conv_pool_1_conv2d Bias's mean is: {}".format(mnist._simple_img_conv_pool_1._conv2d._bias_param.numpy().mean()))  # noqa: E501
    np.set_printoptions(precision=8, suppress=False)  # check: restore numpy's defaults

    out = capsys.readouterr().out
    step_losses = printed_values(out, "Loss at step 0:")
    final = printed_values(out, "Final loss:")
    assert len(step_losses) == epoch_num and len(final) == 1
    assert step_losses[0] == pytest.approx(2.302, abs=0.01)  # ln(10): the untrained model
    assert final[0] < step_losses[0] - 0.02
    assert set(dy_param_init_value) == set(dy_param_value)
    changed = [name for name in dy_param_value
               if not np.array_equal(dy_param_value[name], init_copy[name])]
    assert len(changed) == len(dy_param_value) == 6 and dy_out.shape == (1,)
    assert "W's mean is: " in out and "Bias's mean is: " in out


# -- "Save the Model Parameters" ------------------------------------------------------------
def test_save_and_load_persistables(small_mnist, capsys):
    small_mnist(4 * BATCH_SIZE)
    with fluid.dygraph.guard():
        fluid.default_main_program().random_seed = seed
        mnist = MNIST("mnist")
        sgd = SGDOptimizer(learning_rate=1e-3)
        train_reader = paddle.batch(
            paddle.dataset.mnist.train(), batch_size=BATCH_SIZE, drop_last=True)
        dy_param_init_value = {}

        for epoch in range(epoch_num):
            for batch_id, data in enumerate(train_reader()):
                dy_x_data = np.array(
                    [x[0].reshape(1, 28, 28)
                     for x in data]).astype('float32')
                y_data = np.array(
                    [x[1] for x in data]).astype('int64').reshape(BATCH_SIZE, 1)

                img = to_variable(dy_x_data)
                label = to_variable(y_data)
                label.stop_gradient = True

                cost = mnist(img)
                loss = fluid.layers.cross_entropy(cost, label)
                avg_loss = fluid.layers.mean(loss)

                dy_out = avg_loss.numpy()

                avg_loss.backward()
                sgd.minimize(avg_loss)
                fluid.dygraph.save_persistables(mnist.state_dict(), "save_dir")
                mnist.clear_gradients()

                for param in mnist.parameters():
                    dy_param_init_value[param.name] = param.numpy()

                mnist.load_dict(fluid.dygraph.load_persistables(mnist.state_dict(), "save_dir"))
                restore = mnist.parameters()
        # check save and load
        success = True
        for value in restore:
            if (not np.allclose(value.numpy(), dy_param_init_value[value.name])) or (not np.isfinite(value.numpy().all())) or (np.isnan(value.numpy().any())):  # noqa: E501
                success = False
        print("model save and load success? {}".format(success))

        # check: the round trip is exact, not just close
        saved = fluid.dygraph.load_persistables(mnist.state_dict(), "save_dir")
        for key, param in mnist.state_dict().items():
            np.testing.assert_array_equal(saved[key].numpy(), param.numpy())
    assert capsys.readouterr().out == "model save and load success? True\n"
    assert dy_out.shape == (1,)


# -- "Model Evaluation" ---------------------------------------------------------------------
class MNISTWithAccuracy(MNIST):
    """The evaluation example calls `mnist(img, label)`: the model of that example returns
    the accuracy too, as 1.5's MNIST does (seed 001)."""

    def forward(self, inputs, label=None):
        x = super().forward(inputs)
        if label is not None:
            acc = fluid.layers.accuracy(input=x, label=label)
            return x, acc
        return x


class TestEvaluation:
    def _test_train(self, reader, model, batch_size):
        """The helper the example calls (the 1.4 test file's, as 1.5's test_mnist)."""
        acc_set = []
        avg_loss_set = []
        for batch_id, data in enumerate(reader()):
            dy_x_data = np.array([x[0].reshape(1, 28, 28)
                                  for x in data]).astype('float32')
            y_data = np.array(
                [x[1] for x in data]).astype('int64').reshape(batch_size, 1)

            img = to_variable(dy_x_data)
            label = to_variable(y_data)
            label.stop_gradient = True
            prediction, acc = model(img, label)
            loss = fluid.layers.cross_entropy(input=prediction, label=label)
            avg_loss = fluid.layers.mean(loss)
            acc_set.append(float(acc.numpy().item()))
            avg_loss_set.append(float(avg_loss.numpy().item()))

        acc_val_mean = np.array(acc_set).mean()
        avg_loss_val_mean = np.array(avg_loss_set).mean()
        return avg_loss_val_mean, acc_val_mean

    def test_train_save_and_infer(self, small_mnist, tmp_path, capsys):
        pytest.importorskip("PIL")
        from PIL import Image

        MNIST = MNISTWithAccuracy  # noqa: N806 - the model the example uses
        small_mnist(20 * BATCH_SIZE, 4 * BATCH_SIZE)
        __file__ = str(tmp_path / "test_mnist.py")  # noqa: F841 - the example's script
        digit = write_digit_png(tmp_path / "image" / "infer_3.png", 3)

        with fluid.dygraph.guard():
            fluid.default_startup_program().random_seed = seed
            fluid.default_main_program().random_seed = seed

            mnist = MNIST("mnist")
            adam = AdamOptimizer(learning_rate=0.001)
            train_reader = paddle.batch(
                paddle.dataset.mnist.train(), batch_size=BATCH_SIZE, drop_last=True)
            test_reader = paddle.batch(
                paddle.dataset.mnist.test(), batch_size=BATCH_SIZE, drop_last=True)
            for epoch in range(epoch_num):
                for batch_id, data in enumerate(train_reader()):
                    dy_x_data = np.array(
                        [x[0].reshape(1, 28, 28)
                         for x in data]).astype('float32')
                    y_data = np.array(
                        [x[1] for x in data]).astype('int64').reshape(BATCH_SIZE, 1)

                    img = to_variable(dy_x_data)
                    label = to_variable(y_data)
                    label.stop_gradient = True

                    cost, acc = mnist(img, label)

                    loss = fluid.layers.cross_entropy(cost, label)
                    avg_loss = fluid.layers.mean(loss)
                    avg_loss.backward()
                    adam.minimize(avg_loss)
                    # save checkpoint
                    mnist.clear_gradients()
                    if batch_id % 100 == 0:
                        print("Loss at epoch {} step {}: {:}".format(epoch, batch_id, avg_loss.numpy()))  # noqa: E501
                mnist.eval()
                test_cost, test_acc = self._test_train(test_reader, mnist, BATCH_SIZE)
                mnist.train()
                print("Loss at epoch {} , Test avg_loss is: {}, acc is: {}".format(epoch, test_cost, test_acc))  # noqa: E501

            fluid.dygraph.save_persistables(mnist.state_dict(), "save_dir")
            print("checkpoint saved")

        with fluid.dygraph.guard():
            fluid.default_startup_program().random_seed = seed
            fluid.default_main_program().random_seed = seed

            mnist_infer = MNIST("mnist")
            # load checkpoint
            mnist_infer.load_dict(
                fluid.dygraph.load_persistables(mnist.state_dict(), "save_dir"))
            print("checkpoint loaded")

            # start evaluate mode
            mnist_infer.eval()
            def load_image(file):
                im = Image.open(file).convert('L')
                # seed fix: Pillow 10 removed ANTIALIAS, its old name for LANCZOS
                im = im.resize((28, 28), getattr(Image, "ANTIALIAS", Image.LANCZOS))
                im = np.array(im).reshape(1, 1, 28, 28).astype(np.float32)
                im = im / 255.0 * 2.0 - 1.0
                return im

            cur_dir = os.path.dirname(os.path.realpath(__file__))
            tensor_img = load_image(cur_dir + '/image/infer_3.png')

            results = mnist_infer(to_variable(tensor_img))
            lab = np.argsort(results.numpy())
            print("Inference result of image/infer_3.png is: %d" % lab[0][0])

            # check: the loaded model is the trained one, and it reads the PNG as a 3 (the
            # seed prints lab[0][0], the least likely class; its 1.5 version fixed that)
            for key, param in mnist_infer.state_dict().items():
                np.testing.assert_array_equal(param.numpy(), mnist.state_dict()[key].numpy())
            np.testing.assert_allclose(tensor_img.reshape(-1), digit, atol=1e-6)
            assert lab[0][-1] == 3

        out = capsys.readouterr().out
        accuracies = printed_values(out, "acc is:")
        assert len(accuracies) == epoch_num and accuracies[-1] > 0.7
        losses = printed_values(out, "step 0:")
        assert losses[-1] < losses[0]
        assert "checkpoint saved\ncheckpoint loaded\n" in out


# -- "Build Compatible Model": the same model under the static-graph Executor -----------------
def test_build_compatible_model(small_mnist):
    small_mnist(2 * BATCH_SIZE)
    exe = fluid.Executor(fluid.CPUPlace(
    ) if not core.is_compiled_with_cuda() else fluid.CUDAPlace(0))

    mnist = MNIST("mnist")
    sgd = SGDOptimizer(learning_rate=1e-3)
    train_reader = paddle.batch(
        paddle.dataset.mnist.train(), batch_size= BATCH_SIZE, drop_last=True)

    img = fluid.layers.data(
        name='pixel', shape=[1, 28, 28], dtype='float32')
    label = fluid.layers.data(name='label', shape=[1], dtype='int64')
    cost = mnist(img)
    loss = fluid.layers.cross_entropy(cost, label)
    avg_loss = fluid.layers.mean(loss)
    sgd.minimize(avg_loss)

    # initialize params and fetch them
    static_param_init_value = {}
    static_param_name_list = []
    for param in mnist.parameters():
        static_param_name_list.append(param.name)

    out = exe.run(fluid.default_startup_program(),
                  fetch_list=static_param_name_list)

    for i in range(len(static_param_name_list)):
        static_param_init_value[static_param_name_list[i]] = out[i]

    steps = []  # check: each run's batch and fetches
    for epoch in range(epoch_num):
        for batch_id, data in enumerate(train_reader()):
            static_x_data = np.array(
                [x[0].reshape(1, 28, 28)
                 for x in data]).astype('float32')
            y_data = np.array(
                [x[1] for x in data]).astype('int64').reshape([BATCH_SIZE, 1])

            fetch_list = [avg_loss.name]
            fetch_list.extend(static_param_name_list)
            out = exe.run(
                fluid.default_main_program(),
                feed={"pixel": static_x_data,
                      "label": y_data},
                fetch_list=fetch_list)

            static_param_value = {}
            static_out = out[0]
            for i in range(1, len(out)):
                static_param_value[static_param_name_list[i - 1]] = out[
                    i]
            steps.append((static_x_data, y_data, static_out, out[1:]))  # check:
    assert np.isfinite(static_out).all()
    # check: the dygraph model built a static program of the seed's model: its parameters
    # have the model's shapes (the FC's weight drawn with the seed's tiny scale, the biases
    # zero), and its output is a [batch, 10] Variable
    init = [static_param_init_value[name] for name in static_param_name_list]
    assert len(set(static_param_name_list)) == 6
    assert [p.shape for p in init] == PARAM_SHAPES
    assert list(cost.shape) == [-1, 10]
    assert not init[1].any() and not init[3].any() and not init[5].any()
    assert np.std(init[4]) == pytest.approx((2.0 / (800 ** 2 * 10)) ** 0.5, rel=0.05)
    # check: every run's loss is the NumPy model's on that batch with the parameters before
    # the run, and every run takes an SGD step on that loss (1.4's conv-pool has no ReLU)
    assert len(steps) == epoch_num * 2
    before = init
    for images, labels, static_loss, after in steps:
        assert static_loss.shape == (1,)
        assert static_loss[0] == pytest.approx(mean_loss(before, images, labels, relu=False),
                                               rel=1e-5)
        check_sgd_step(before, after, 1e-3, images, labels, relu=False)
        before = after
