# ruff: noqa: B007, UP008, UP032 - the seeds' code is kept as written (1.x-era style)
"""Seed 001 (DyGraph 1.5, Chinese): every code example, run as written.

Only the imports change (`import dygraph.fluid as fluid`, `import dygraph as paddle`, and the
bare names the examples use). Changes needed to run on today's Python/NumPy/Pillow are
marked `# seed fix:`; lines added to observe the run are marked `# check:`. The MNIST readers
give a few batches of the shipped sample (see conftest.py).
"""

import os
import subprocess
import sys

import numpy as np
import pytest

import dygraph as paddle
import dygraph.fluid as fluid
from dygraph.fluid.dygraph import to_variable
from tests.seeds.conftest import printed_values, write_digit_png
from tests.seeds.mnist_reference import PARAM_SHAPES, check_sgd_step, mean_loss


# -- 设置和基本用法 (setup and basic usage) --------------------------------------------------
def test_sums_and_gradient(capsys):
    with fluid.dygraph.guard():
        # write your executable dygraph code here
        pass

    x = np.ones([2, 2], np.float32)
    with fluid.dygraph.guard():
        inputs = []
        for _ in range(10):
            inputs.append(fluid.dygraph.to_variable(x))
        ret = fluid.layers.sums(inputs)
        print(ret.numpy())

        loss = fluid.layers.reduce_sum(ret)
        loss.backward()
        print(loss.gradient())

    assert capsys.readouterr().out == "[[10. 10.]\n [10. 10.]]\n[1.]\n"


# -- 基于DyGraph构建网络 (building a network): the complete program --------------------------
class MyLayer(fluid.dygraph.Layer):
    def __init__(self, name_scope):
        super(MyLayer, self).__init__(name_scope)

    def forward(self, inputs):
        x = fluid.layers.relu(inputs)
        self._x_for_debug = x
        x = fluid.layers.elementwise_mul(x, x)
        x = fluid.layers.reduce_sum(x)
        return [x]


def test_my_layer():
    # the body of the example's `if __name__ == '__main__':`
    np_inp = np.array([1.0, 2.0, -1.0], dtype=np.float32)
    with fluid.dygraph.guard():
        var_inp = fluid.dygraph.to_variable(np_inp)
        my_layer = MyLayer("my_layer")
        x = my_layer(var_inp)[0]
        dy_out = x.numpy()
        x.backward()
        dy_grad = my_layer._x_for_debug.gradient()
        my_layer.clear_gradients() # 将参数梯度清零以保证下一轮训练的正确性  # noqa: E261

    np.testing.assert_array_equal(dy_out, [5.0])
    np.testing.assert_array_equal(dy_grad, [2.0, 4.0, 0.0])
    np.testing.assert_array_equal(var_inp.gradient(), [2.0, 4.0, 0.0])


# -- 使用DyGraph训练模型 (training): the 1.5 MNIST model -------------------------------------
class SimpleImgConvPool(fluid.dygraph.Layer):
    def __init__(self,
                 name_scope,
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

        self._conv2d = fluid.dygraph.Conv2D(
            self.full_name(),
            num_filters=num_filters,
            filter_size=filter_size,
            stride=conv_stride,
            padding=conv_padding,
            dilation=conv_dilation,
            groups=conv_groups,
            param_attr=None,
            bias_attr=None,
            act=act,
            use_cudnn=use_cudnn)

        self._pool2d = fluid.dygraph.Pool2D(
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
            self.full_name(), 20, 5, 2, 2, act="relu")

        self._simple_img_conv_pool_2 = SimpleImgConvPool(
            self.full_name(), 50, 5, 2, 2, act="relu")

        pool_2_shape = 50 * 4 * 4
        SIZE = 10
        scale = (2.0 / (pool_2_shape**2 * SIZE))**0.5
        self._fc = fluid.dygraph.FC(self.full_name(),
                                    10,
                                    param_attr=fluid.param_attr.ParamAttr(
                                        initializer=fluid.initializer.NormalInitializer(
                                            loc=0.0, scale=scale)),
                                    act="softmax")

    def forward(self, inputs, label=None):
        x = self._simple_img_conv_pool_1(inputs)
        x = self._simple_img_conv_pool_2(x)
        x = self._fc(x)
        if label is not None:
            acc = fluid.layers.accuracy(input=x, label=label)
            return x, acc
        else:
            return x


def _mean_loss(model, data):
    """Mean cross entropy of `model` on a list of (image, label) samples."""
    img = to_variable(np.array([x[0].reshape(1, 28, 28) for x in data]).astype('float32'))
    label = to_variable(np.array([x[1] for x in data]).astype('int64').reshape(-1, 1))
    return float(fluid.layers.mean(fluid.layers.cross_entropy(model(img), label)).numpy()[0])


def test_untrained_model_output(small_mnist, capsys):
    small_mnist(2 * 64)
    BATCH_SIZE = 64
    train_reader = paddle.batch(
        paddle.dataset.mnist.train(), batch_size=BATCH_SIZE, drop_last=True)

    with fluid.dygraph.guard():
        mnist = MNIST("mnist")
        id, data = list(enumerate(train_reader()))[0]
        dy_x_data = np.array(
            [x[0].reshape(1, 28, 28)
             for x in data]).astype('float32')
        img = fluid.dygraph.to_variable(dy_x_data)
        print("result is: {}".format(mnist(img).numpy()))
        result = mnist(img).numpy()  # check:

    assert capsys.readouterr().out.startswith("result is: [[0.")
    assert result.shape == (BATCH_SIZE, 10)
    np.testing.assert_allclose(result, 0.1, atol=0.02)
    # the 1.5 Conv2D read its input channels at the first call
    assert mnist._simple_img_conv_pool_1._conv2d._filter_param.shape == [20, 1, 5, 5]
    assert mnist._simple_img_conv_pool_2._conv2d._filter_param.shape == [50, 20, 5, 5]


def test_training_loop(small_mnist, capsys):
    small_mnist(10 * 32)
    with fluid.dygraph.guard():
        epoch_num = 5
        BATCH_SIZE = 64
        train_reader = paddle.batch(
            paddle.dataset.mnist.train(), batch_size=32, drop_last=True)
        mnist = MNIST("mnist")
        id, data = list(enumerate(train_reader()))[0]
        initial_loss = _mean_loss(mnist, data)  # check:
        adam = fluid.optimizer.AdamOptimizer(learning_rate=0.001)
        for epoch in range(epoch_num):
            for batch_id, data in enumerate(train_reader()):
                dy_x_data = np.array([x[0].reshape(1, 28, 28)
                                      for x in data]).astype('float32')
                y_data = np.array(
                    [x[1] for x in data]).astype('int64').reshape(-1, 1)

                img = fluid.dygraph.to_variable(dy_x_data)
                label = fluid.dygraph.to_variable(y_data)

                cost = mnist(img)

                loss = fluid.layers.cross_entropy(cost, label)
                avg_loss = fluid.layers.mean(loss)

                # seed fix: `batch_id is not 0` compares identity (a SyntaxWarning today)
                if batch_id % 100 == 0 and batch_id != 0:
                    print("epoch: {}, batch_id: {}, loss is: {}".format(epoch, batch_id, avg_loss.numpy()))  # noqa: E501
                avg_loss.backward()
                adam.minimize(avg_loss)
                mnist.clear_gradients()

        first = list(train_reader())[0]  # check:
        assert initial_loss == pytest.approx(np.log(10), abs=0.01)
        assert _mean_loss(mnist, first) < initial_loss / 2
    assert BATCH_SIZE == 64 and capsys.readouterr().out == ""


def test_variables_and_optimizer(small_mnist, capsys):
    small_mnist(8 * 64)
    with fluid.dygraph.guard():
        epoch_num = 5
        BATCH_SIZE = 64

        mnist = MNIST("mnist")
        adam = fluid.optimizer.AdamOptimizer(learning_rate=0.001)
        train_reader = paddle.batch(
            paddle.dataset.mnist.train(), batch_size= BATCH_SIZE, drop_last=True)

        np.set_printoptions(precision=3, suppress=True)
        for epoch in range(epoch_num):
            for batch_id, data in enumerate(train_reader()):
                dy_x_data = np.array(
                    [x[0].reshape(1, 28, 28)
                     for x in data]).astype('float32')
                y_data = np.array(
                    [x[1] for x in data]).astype('int64').reshape(BATCH_SIZE, 1)

                img = fluid.dygraph.to_variable(dy_x_data)
                label = fluid.dygraph.to_variable(y_data)
                label.stop_gradient = True

                cost = mnist(img)
                loss = fluid.layers.cross_entropy(cost, label)
                avg_loss = fluid.layers.mean(loss)

                dy_out = avg_loss.numpy()

                avg_loss.backward()
                adam.minimize(avg_loss)
                mnist.clear_gradients()

                dy_param_value = {}
                for param in mnist.parameters():
                    dy_param_value[param.name] = param.numpy()

                if batch_id % 20 == 0:
                    print("Loss at step {}: {}".format(batch_id, avg_loss.numpy()))
        print("Final loss: {}".format(avg_loss.numpy()))
        print("_simple_img_conv_pool_1_conv2d W's mean is: {}".format(mnist._simple_img_conv_pool_1._conv2d._filter_param.numpy().mean()))  # noqa: E501
        print("_simple_img_conv_pool_1_conv2d Bias's mean is: {}".format(mnist._simple_img_conv_pool_1._conv2d._bias_param.numpy().mean()))  # noqa: E501
    np.set_printoptions(precision=8, suppress=False)  # check: restore numpy's defaults

    out = capsys.readouterr().out
    epoch_start = printed_values(out, "Loss at step 0:")
    final = printed_values(out, "Final loss:")
    assert len(epoch_start) == epoch_num and epoch_start[0] == pytest.approx(2.302, abs=0.01)
    assert final[0] < epoch_start[0] / 2 and epoch_start[-1] < epoch_start[0] / 2
    assert len(dy_param_value) == 6 and dy_out.shape == (1,)


# -- 使用多卡训练模型 (multi-GPU training) --------------------------------------------------
def test_multi_gpu_training(tmp_path):
    """The seed's example (tests/seeds/seed_001_multi_gpu_train.py) started as the seed starts
    it, `python -m paddle.distributed.launch --selected_gpus=0,1 --log_dir ./mylog train.py`,
    on 2 CPU ranks: the launcher prints the seed's banner and each trainer writes its log."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          "seed_001_multi_gpu_train.py")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = subprocess.run([sys.executable, "-m", "dygraph.distributed.launch",
                          "--selected_gpus=0,1", "--log_dir", "./mylog", script],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    banner = run.stdout.splitlines()
    assert banner[0] == "-----------  Configuration Arguments -----------"
    for line in ("log_dir: ./mylog", "selected_gpus: 0,1", "started_port: 6170",
                 "training_script: " + script, "training_script_args: []"):
        assert line in banner, (line, banner)
    assert banner[-1] == ("trainers_endpoints: 127.0.0.1:6170,127.0.0.1:6171 , node_id: 0 , "
                          "current_node_ip: 127.0.0.1 , num_nodes: 1 , "
                          "node_ips: ['127.0.0.1'] , nranks: 2")
    assert sorted(os.listdir(tmp_path / "mylog")) == ["workerlog.0", "workerlog.1"]
    checksums = []
    for rank in (0, 1):
        log = (tmp_path / "mylog" / f"workerlog.{rank}").read_text()
        assert log.startswith(f"start data reader (trainers_num: 2, trainer_id: {rank})"), log
        losses = printed_values(log, "loss is:")
        # 4 of the 8 batches each; the loss is scaled by 1/2 (scale_loss), so it starts
        # at about ln(10) / 2
        assert len(losses) == 4 and losses[0] == pytest.approx(2.302 / 2, abs=0.05), log
        assert losses[-1] < losses[0]
        checksums.append(printed_values(log, "param checksum:"))
    assert checksums[0] == checksums[1] and len(checksums[0]) == 1  # the same parameters
    saved = fluid.dygraph.load_dygraph(str(tmp_path / "mnist_dp"))[0]  # rank 0's checkpoint
    assert len(saved) == 6


# -- 模型参数的保存 (saving the parameters) -------------------------------------------------
def test_save_and_load_with_optimizer(small_mnist, capsys):
    small_mnist(22 * 64)
    with fluid.dygraph.guard():
        epoch_num = 5
        BATCH_SIZE = 64

        mnist = MNIST("mnist")
        adam = fluid.optimizer.Adam(learning_rate=0.001)
        train_reader = paddle.batch(
            paddle.dataset.mnist.train(), batch_size= BATCH_SIZE, drop_last=True)

        np.set_printoptions(precision=3, suppress=True)
        dy_param_init_value={}
        for epoch in range(epoch_num):
            for batch_id, data in enumerate(train_reader()):
                dy_x_data = np.array(
                    [x[0].reshape(1, 28, 28)
                     for x in data]).astype('float32')
                y_data = np.array(
                    [x[1] for x in data]).astype('int64').reshape(BATCH_SIZE, 1)

                img = fluid.dygraph.to_variable(dy_x_data)
                label = fluid.dygraph.to_variable(y_data)
                label.stop_gradient = True

                cost = mnist(img)
                loss = fluid.layers.cross_entropy(cost, label)
                avg_loss = fluid.layers.mean(loss)

                dy_out = avg_loss.numpy()

                avg_loss.backward()
                adam.minimize(avg_loss)
                if batch_id == 20:
                    fluid.dygraph.save_persistables(mnist.state_dict(), "save_dir", adam)
                    saved_params = {k: v.numpy().copy() for k, v in mnist.state_dict().items()}  # check:  # noqa: E501
                    saved_adam = {k: v.numpy().copy() for k, v in adam.state_dict().items()}  # check:  # noqa: E501
                mnist.clear_gradients()

                if batch_id == 20:
                    for param in mnist.parameters():
                        dy_param_init_value[param.name] = param.numpy()
                    model, _ = fluid.dygraph.load_persistables("save_dir")
                    mnist.load_dict(model)
                    break
            if epoch == 0:
                break
        restore = mnist.parameters()
        # check save and load

        success = True
        for value in restore:
            if (not np.array_equal(value.numpy(), dy_param_init_value[value.name])) or (not np.isfinite(value.numpy().all())) or (np.isnan(value.numpy().any())):  # noqa: E501
                success = False
        print("model save and load success? {}".format(success))

        # check: what was saved comes back exactly, optimizer state included: train on, then
        # load the checkpoint into the model and the optimizer
        for k, v in mnist.state_dict().items():
            v.set_value(v.numpy() + 1.0)
        models, optimizers = fluid.dygraph.load_persistables("save_dir")
        mnist.load_dict(models)
        adam.load(optimizers)
        for k, v in mnist.state_dict().items():
            np.testing.assert_array_equal(v.numpy(), saved_params[k])
        restored_adam = adam.state_dict()
        assert set(restored_adam) == set(saved_adam) and len(saved_adam) == 4 * 6
        for k, v in restored_adam.items():
            np.testing.assert_array_equal(v.numpy(), saved_adam[k])
    np.set_printoptions(precision=8, suppress=False)  # check: restore numpy's defaults
    assert capsys.readouterr().out == "model save and load success? True\n"
    assert epoch == 0 and batch_id == 20 and dy_out.shape == (1,)


def test_save_on_rank_zero(small_mnist):
    small_mnist(64)
    with fluid.dygraph.guard():
        mnist = MNIST("mnist")
        mnist(to_variable(np.zeros([1, 1, 28, 28], np.float32)))  # check: build the FC

        if fluid.dygraph.parallel.Env().local_rank == 0:
            fluid.dygraph.save_persistables(mnist.state_dict(), "save_dir")

        models, _ = fluid.dygraph.load_persistables("save_dir")
    assert sorted(models) == sorted(mnist.state_dict())


# -- 模型评估 (evaluation and inference) ----------------------------------------------------
def test_mnist(reader, model, batch_size):
    acc_set = []
    avg_loss_set = []
    for batch_id, data in enumerate(reader()):
        dy_x_data = np.array([x[0].reshape(1, 28, 28)
                              for x in data]).astype('float32')
        y_data = np.array(
            [x[1] for x in data]).astype('int64').reshape(batch_size, 1)

        img = fluid.dygraph.to_variable(dy_x_data)
        label = fluid.dygraph.to_variable(y_data)
        label.stop_gradient = True
        prediction, acc = model(img, label)
        loss = fluid.layers.cross_entropy(input=prediction, label=label)
        avg_loss = fluid.layers.mean(loss)
        # seed fix: float() of a one-element array is an error in NumPy 2
        acc_set.append(float(acc.numpy().item()))
        avg_loss_set.append(float(avg_loss.numpy().item()))

        # get test acc and loss
    acc_val_mean = np.array(acc_set).mean()
    avg_loss_val_mean = np.array(avg_loss_set).mean()

    return avg_loss_val_mean, acc_val_mean


test_mnist.__test__ = False  # the example's helper, not a test


def inference_mnist():
    from PIL import Image

    with fluid.dygraph.guard():
        mnist_infer = MNIST("mnist")
        # load checkpoint
        model_dict, _ = fluid.dygraph.load_persistables("save_dir")
        mnist_infer.load_dict(model_dict)
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

        results = mnist_infer(fluid.dygraph.to_variable(tensor_img))
        lab = np.argsort(results.numpy())
        print("Inference result of image/infer_3.png is: %d" % lab[0][-1])


def test_evaluate_save_and_infer(small_mnist, tmp_path, monkeypatch, capsys):
    pytest.importorskip("PIL")
    small_mnist(40 * 64, 8 * 64)
    # the example reads image/infer_3.png next to its script
    monkeypatch.setitem(globals(), "__file__", str(tmp_path / "train.py"))
    write_digit_png(tmp_path / "image" / "infer_3.png", 3)

    with fluid.dygraph.guard():
        epoch_num = 1
        BATCH_SIZE = 64
        mnist = MNIST("mnist")
        adam = fluid.optimizer.AdamOptimizer(learning_rate=0.001)
        test_reader = paddle.batch(
            paddle.dataset.mnist.test(), batch_size=BATCH_SIZE, drop_last=True)

        train_reader = paddle.batch(
            paddle.dataset.mnist.train(),
            batch_size=BATCH_SIZE,
            drop_last=True)

        for epoch in range(epoch_num):
            for batch_id, data in enumerate(train_reader()):
                dy_x_data = np.array([x[0].reshape(1, 28, 28)
                                      for x in data]).astype('float32')
                y_data = np.array(
                    [x[1] for x in data]).astype('int64').reshape(-1, 1)

                img = fluid.dygraph.to_variable(dy_x_data)
                label = fluid.dygraph.to_variable(y_data)
                label.stop_gradient = True

                cost, acc = mnist(img, label)

                loss = fluid.layers.cross_entropy(cost, label)
                avg_loss = fluid.layers.mean(loss)


                avg_loss.backward()

                adam.minimize(avg_loss)
                # save checkpoint
                mnist.clear_gradients()
                if batch_id % 100 == 0:
                    print("Loss at epoch {} step {}: {:}".format(
                        epoch, batch_id, avg_loss.numpy()))

            mnist.eval()
            test_cost, test_acc = test_mnist(test_reader, mnist, BATCH_SIZE)
            mnist.train()
            print("Loss at epoch {} , Test avg_loss is: {}, acc is: {}".format(
                epoch, test_cost, test_acc))

        fluid.dygraph.save_persistables(mnist.state_dict(), "save_dir")
        print("checkpoint saved")

        inference_mnist()

    out = capsys.readouterr().out
    assert printed_values(out, "step 0:")[0] == pytest.approx(2.302, abs=0.01)
    assert printed_values(out, "acc is:")[0] > 0.8
    assert printed_values(out, "Test avg_loss is:")[0] < 0.7
    assert out.endswith(
        "checkpoint saved\n"
        "No optimizer loaded. If you didn't save optimizer, please ignore this. The program "
        "can still work with new optimizer. \n"
        "checkpoint loaded\n"
        "Inference result of image/infer_3.png is: 3\n")


# -- 编写兼容的模型 (the same model under the static-graph Executor) -------------------------
def test_build_compatible_model(small_mnist, capsys):
    small_mnist(2 * 64)
    epoch_num = 1
    BATCH_SIZE = 64
    exe = fluid.Executor(fluid.CPUPlace())

    mnist = MNIST("mnist")
    sgd = fluid.optimizer.SGDOptimizer(learning_rate=1e-3)
    train_reader = paddle.batch(
        paddle.dataset.mnist.train(), batch_size=BATCH_SIZE, drop_last=True)
    img = fluid.layers.data(
        name='pixel', shape=[1, 28, 28], dtype='float32')
    label = fluid.layers.data(name='label', shape=[1], dtype='int64')
    cost = mnist(img)
    loss = fluid.layers.cross_entropy(cost, label)
    avg_loss = fluid.layers.mean(loss)
    sgd.minimize(avg_loss)

    out = exe.run(fluid.default_startup_program())

    def parameters():  # check: copies of the parameters in the scope the runs update
        return [np.asarray(fluid.global_scope().find_var(p.name).get_tensor()).copy()
                for p in mnist.parameters()]

    init = parameters()  # check:
    steps = []  # check: each run's batch, loss and parameters after it
    for epoch in range(epoch_num):
        for batch_id, data in enumerate(train_reader()):
            static_x_data = np.array(
                [x[0].reshape(1, 28, 28)
                 for x in data]).astype('float32')
            y_data = np.array(
                [x[1] for x in data]).astype('int64').reshape([BATCH_SIZE, 1])

            fetch_list = [avg_loss.name]
            out = exe.run(
                fluid.default_main_program(),
                feed={"pixel": static_x_data,
                      "label": y_data},
                fetch_list=fetch_list)

            static_out = out[0]
            steps.append((static_x_data, y_data, static_out, parameters()))  # check:

            # seed fix: `batch_id is not 0`
            if batch_id % 100 == 0 and batch_id != 0:
                print("epoch: {}, batch_id: {}, loss: {}".format(epoch, batch_id, static_out))
    assert np.isfinite(static_out).all()
    # check: the dygraph model built a static program of the seed's model: its parameters
    # have the model's shapes (Conv2D infers one input channel from the data layer; the
    # FC's weight is drawn with the seed's tiny scale, the biases are zero), and its output
    # is a [batch, 10] Variable
    assert len({p.name for p in mnist.parameters()}) == 6
    assert [p.shape for p in init] == PARAM_SHAPES
    assert list(cost.shape) == [-1, 10]
    assert not init[1].any() and not init[3].any() and not init[5].any()
    assert np.std(init[4]) == pytest.approx((2.0 / (800 ** 2 * 10)) ** 0.5, rel=0.05)
    # check: every run's loss is the NumPy model's on that batch with the parameters before
    # the run, and every run takes an SGD step on that loss (1.5's conv-pool has a ReLU)
    assert len(steps) == 2
    before = init
    for images, labels, static_loss, after in steps:
        assert static_loss.shape == (1,)
        assert static_loss[0] == pytest.approx(mean_loss(before, images, labels, relu=True),
                                               rel=1e-5)
        check_sgd_step(before, after, 1e-3, images, labels, relu=True)
        before = after
    assert capsys.readouterr().out == ""  # check: two batches print nothing
