# ruff: noqa: UP032 - the seed's code is kept as written (1.x-era style)
"""Seed 001's multi-GPU training example (使用多卡训练模型) as a training script, started by
`python -m dygraph.distributed.launch --selected_gpus=0,1 --log_dir ./mylog
seed_001_multi_gpu_train.py` (see test_seed_001_dygraph_15.test_multi_gpu_training).

The MNIST reader gives the first 8 batches of 64 of the shipped sample (4 per trainer);
changes to the seed's code are marked `# seed fix:`, added lines `# check:`.
"""

import warnings

import numpy as np

import dygraph as paddle
import dygraph.dataset.mnist as mnist_dataset
import dygraph.fluid as fluid
from dygraph.fluid.dygraph import to_variable
from dygraph.fluid.optimizer import AdamOptimizer
from dygraph.reader import firstn
from tests.seeds.test_seed_001_dygraph_15 import MNIST

warnings.simplefilter("ignore")  # "no full MNIST, using the shipped sample"
_full_train = mnist_dataset.train
mnist_dataset.train = lambda: firstn(_full_train(), 8 * 64)
epoch_num = 1
BATCH_SIZE = 64

# seed fix: a GPU per rank where the machine has one for each, CPUPlace otherwise (one
# process per CPU rank): the seed asks for GPUs 0 and 1, and the machine may have fewer.
env = fluid.dygraph.parallel.Env()
place = (fluid.CUDAPlace(env.dev_id) if fluid.core.get_cuda_device_count() >= env.nranks
         else fluid.CPUPlace())
with fluid.dygraph.guard(place):

    strategy = fluid.dygraph.parallel.prepare_context()
    mnist = MNIST("mnist")
    adam = AdamOptimizer(learning_rate=0.001)
    mnist = fluid.dygraph.parallel.DataParallel(mnist, strategy)

    train_reader = paddle.batch(
        paddle.dataset.mnist.train(), batch_size=BATCH_SIZE, drop_last=True)
    train_reader = fluid.contrib.reader.distributed_batch_reader(
            train_reader)

    for epoch in range(epoch_num):
        for batch_id, data in enumerate(train_reader()):
            dy_x_data = np.array([x[0].reshape(1, 28, 28)
                                  for x in data]).astype('float32')
            y_data = np.array(
                [x[1] for x in data]).astype('int64').reshape(-1, 1)

            img = to_variable(dy_x_data)
            label = to_variable(y_data)
            label.stop_gradient = True

            cost, acc = mnist(img, label)

            loss = fluid.layers.cross_entropy(cost, label)
            avg_loss = fluid.layers.mean(loss)

            avg_loss = mnist.scale_loss(avg_loss)
            avg_loss.backward()
            mnist.apply_collective_grads()

            adam.minimize(avg_loss)
            mnist.clear_gradients()
            # seed fix: `batch_id is not 0`; check: every step, not every 100th
            if batch_id % 1 == 0:
                print("epoch: {}, batch_id: {}, loss is: {}".format(epoch, batch_id, avg_loss.numpy()))  # noqa: E501
    # check: the trainers end with the same parameters; rank 0 saves them (the seed's
    # `Env().local_rank == 0` checkpointing)
    print("param checksum: {:.10f}".format(sum(float(np.abs(p.numpy()).sum())
                                               for p in mnist.parameters())))
    if fluid.dygraph.parallel.Env().local_rank == 0:
        fluid.dygraph.save_dygraph(mnist.state_dict(), "mnist_dp")
