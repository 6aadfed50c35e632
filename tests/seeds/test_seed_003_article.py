# ruff: noqa: B007, UP008, UP032 - the seeds' code is kept as written (1.x-era style)
"""Seed 003 (an article on DyGraph, Chinese): every code example, run as written.

The article's code lost spaces and characters when it was published (`import paddle.fluid
asfluid`, `for x indata`, `if label is notNone`, `aram_attr=None`, a missing colon after
`class SimpleImgConvPool(fluid.dygraph.Layer)`); it is restored here, and those lines are
marked `# seed fix:`. Only the imports change otherwise (`import dygraph.fluid as fluid`,
`import dygraph as paddle`); lines added to observe the run are marked `# check:`.
"""

import numpy as np
import pytest

import dygraph as paddle
import dygraph.fluid as fluid
from dygraph.fluid import core
from dygraph.fluid.dygraph import to_variable
from tests.seeds.conftest import printed_values


# -- 3. 飞桨动态图与静态图的直观对比 (dynamic vs static graph) -------------------------------
def test_dynamic_graph_if_else():
    inp1 = np.random.rand(4, 3, 3)
    inp2 = np.random.rand(4, 3, 3)
    # dynamic graph
    with fluid.dygraph.guard():
        if np.sum(inp1) < np.sum(inp2):
            x = fluid.layers.elementwise_add(inp1, inp2)
        else:
            x = fluid.layers.elementwise_sub(inp1, inp2)
        dygraph_result = x.numpy()

    expected = inp1 + inp2 if np.sum(inp1) < np.sum(inp2) else inp1 - inp2
    np.testing.assert_allclose(dygraph_result, expected)


def test_static_graph_if_else():
    inp1 = np.random.rand(4, 3, 3)
    inp2 = np.random.rand(4, 3, 3)
    # static graph
    with fluid.program_guard(fluid.Program(), fluid.Program()):  # seed fix: the article's
        # `new_program_scope()` is a helper of Paddle's tests that it does not define
        inp_data1 = fluid.layers.data(name='inp1', shape=[3, 3], dtype=np.float32)
        inp_data2 = fluid.layers.data(name='inp2', shape=[3, 3], dtype=np.float32)

        a = fluid.layers.expand(fluid.layers.reshape(fluid.layers.reduce_sum(inp_data1), [1, 1]), [4, 1])  # noqa: E501
        b = fluid.layers.expand(fluid.layers.reshape(fluid.layers.reduce_sum(inp_data2), [1, 1]), [4, 1])  # noqa: E501
        cond = fluid.layers.less_than(x=a, y=b)

        ie = fluid.layers.IfElse(cond)
        with ie.true_block():
            d1 = ie.input(inp_data1)
            d2 = ie.input(inp_data2)
            d3 = fluid.layers.elementwise_add(d1, d2)
            ie.output(d3)

        with ie.false_block():
            d1 = ie.input(inp_data1)
            d2 = ie.input(inp_data2)
            d3 = fluid.layers.elementwise_sub(d1, d2)
            ie.output(d3)
        out = ie()

        exe = fluid.Executor(fluid.CPUPlace() if not core.is_compiled_with_cuda() else fluid.CUDAPlace(0))  # noqa: E501
        static_result = exe.run(fluid.default_main_program(), feed={'inp1': inp1, 'inp2': inp2}, fetch_list=out)[0]  # noqa: E501
    assert static_result.shape == (4, 3, 3)


# -- 4. 飞桨动态图的基本用法 (basic usage) ----------------------------------------------------
def test_sums_and_gradient(capsys):
    with fluid.dygraph.guard():
        pass

    x = np.ones([10, 2, 2], np.float32)

    with fluid.dygraph.guard():
        inputs = []
        seq_len = x.shape[0]
        for i in range(seq_len):
            inputs.append(fluid.dygraph.to_variable(x[i]))
        ret = fluid.layers.sums(inputs)
        print(ret.numpy())

        loss = fluid.layers.reduce_sum(ret)
        loss.backward()
        print(loss.gradient())

    assert capsys.readouterr().out == "[[10. 10.]\n [10. 10.]]\n[1.]\n"


# -- 5. 飞桨动态图的项目实战 (the MNIST walk-through) ------------------------------------------
class SimpleImgConvPool(fluid.dygraph.Layer):  # seed fix: the colon
    def __init__(self, name_scope, num_filters, filter_size, pool_size, pool_stride, pool_padding=0, pool_type='max', global_pooling=False, conv_stride=1, conv_padding=0, conv_dilation=1, conv_groups=1, act=None, use_cudnn=False, param_attr=None, bias_attr=None):  # noqa: E501
        super(SimpleImgConvPool, self).__init__(name_scope)
        self._conv2d = fluid.dygraph.Conv2D(self.full_name(), num_filters=num_filters, filter_size=filter_size, stride=conv_stride, padding=conv_padding, dilation=conv_dilation, groups=conv_groups, param_attr=None, bias_attr=None, act=act, use_cudnn=use_cudnn)  # noqa: E501 - seed fix: aram_attr
        self._pool2d = fluid.dygraph.Pool2D(self.full_name(), pool_size=pool_size, pool_type=pool_type, pool_stride=pool_stride, pool_padding=pool_padding, global_pooling=global_pooling, use_cudnn=use_cudnn)  # noqa: E501

    def forward(self, inputs):
        x = self._conv2d(inputs)
        x = self._pool2d(x)
        return x


class MNIST(fluid.dygraph.Layer):
    def __init__(self, name_scope):
        super(MNIST, self).__init__(name_scope)
        self._simple_img_conv_pool_1 = SimpleImgConvPool(self.full_name(), 20, 5, 2, 2, act="relu")  # noqa: E501
        self._simple_img_conv_pool_2 = SimpleImgConvPool(self.full_name(), 50, 5, 2, 2, act="relu")  # noqa: E501
        pool_2_shape = 50 * 4 * 4
        SIZE = 10
        scale = (2.0 / (pool_2_shape**2 * SIZE))**0.5
        self._fc = fluid.dygraph.FC(self.full_name(), 10, param_attr=fluid.param_attr.ParamAttr(initializer=fluid.initializer.NormalInitializer(loc=0.0, scale=scale)), act="softmax")  # noqa: E501

    def forward(self, inputs, label=None):
        x = self._simple_img_conv_pool_1(inputs)
        x = self._simple_img_conv_pool_2(x)
        x = self._fc(x)
        if label is not None:  # seed fix: `is notNone`
            acc = fluid.layers.accuracy(input=x, label=label)
            return x, acc
        else:
            return x


def test_mnist(reader, model, batch_size):
    acc_set = []
    avg_loss_set = []
    for batch_id, data in enumerate(reader()):
        dy_x_data = np.array([x[0].reshape(1, 28, 28) for x in data]).astype('float32')  # seed fix: `indata`  # noqa: E501
        y_data = np.array([x[1] for x in data]).astype('int64').reshape(batch_size, 1)
        img = to_variable(dy_x_data)
        label = to_variable(y_data)
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


test_mnist.__test__ = False  # the article's helper, not a test


def test_optimizer_definition():
    adam = fluid.optimizer.AdamOptimizer(learning_rate=0.001)

    assert adam.current_step_lr() == 0.001


def test_train_and_evaluate(small_mnist, capsys):
    small_mnist(8 * 64, 4 * 64)
    with fluid.dygraph.guard():
        epoch_num = 5
        BATCH_SIZE = 64

        mnist = MNIST("mnist")
        adam = fluid.optimizer.AdamOptimizer(learning_rate=0.001)
        train_reader = paddle.batch(paddle.dataset.mnist.train(), batch_size= BATCH_SIZE, drop_last=True)  # noqa: E501

        np.set_printoptions(precision=3, suppress=True)
        for epoch in range(epoch_num):  # seed fix: `inrange`
            for batch_id, data in enumerate(train_reader()):  # seed fix: `inenumerate`
                dy_x_data = np.array(
                    [x[0].reshape(1, 28, 28)
                     for x in data]).astype('float32')  # seed fix: `indata`
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
                for param in mnist.parameters():  # seed fix: `inmnist`
                    dy_param_value[param.name] = param.numpy()
                if batch_id % 20 == 0:
                    print("Loss at step {}: {}".format(batch_id, avg_loss.numpy()))

        # 5.5 预测: evaluate in eval() mode, then switch back
        test_reader = paddle.batch(paddle.dataset.mnist.test(), batch_size=BATCH_SIZE, drop_last=True)  # noqa: E501  # check:
        mnist.eval()
        test_cost, test_acc = test_mnist(test_reader, mnist, BATCH_SIZE)
        mnist.train()
    np.set_printoptions(precision=8, suppress=False)  # check: restore numpy's defaults

    epoch_start = printed_values(capsys.readouterr().out, "Loss at step 0:")
    assert len(epoch_start) == epoch_num and epoch_start[0] == pytest.approx(2.302, abs=0.01)
    assert epoch_start[-1] < epoch_start[0] / 2
    assert test_acc > 0.7 and test_cost < 1.0
    assert len(dy_param_value) == 6 and dy_out.shape == (1,)
