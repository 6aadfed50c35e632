"""Run under mpirun with 2 ranks: DataParallel training in which rank 1 goes wrong at step 3,
as argv[1] says: 'kill' (SIGKILL itself), 'raise' (an exception), 'stuck' (stops answering
while alive), 'unused' (leaves a parameter without gradient, which rank 0 uses). argv[2],
when given, is only a tag on the command line by which the test finds the ranks' processes."""

import os
import signal
import sys
import time

import dygraph as paddle
import dygraph.distributed as dist


class TwoHeads(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = paddle.nn.Linear(4, 4)
        self.b = paddle.nn.Linear(4, 1)

    def forward(self, x, skip_b=False):
        h = self.a(x)
        return h.sum(1, keepdim=True) if skip_b else self.b(h)


def main():
    mode = sys.argv[1]
    dist.init_parallel_env()
    rank = dist.get_rank()
    model = paddle.DataParallel(TwoHeads())
    opt = paddle.optimizer.SGD(learning_rate=0.01, parameters=model.parameters())
    for step in range(1000):
        failing = rank == 1 and step == 3
        if failing and mode == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        if failing and mode == "raise":
            raise ValueError("bad batch on purpose")
        if failing and mode == "stuck":
            time.sleep(600)
        loss = model(paddle.ones([2, 4]), skip_b=failing and mode == "unused").mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        print(f"rank {rank} step {step}", flush=True)


if __name__ == "__main__":
    main()
