"""Grad recording is per thread: threads that train, infer under no_grad or load data do
not change what another thread records, and give the same numbers as one thread alone.
"""

import queue
import threading

import numpy as np

import dygraph
import dygraph.nn.functional as F
from dygraph.io import DataLoader, Dataset


def _model(seed):
    dygraph.seed(seed)
    return dygraph.nn.Sequential(dygraph.nn.Linear(8, 16), dygraph.nn.Tanh(),
                                 dygraph.nn.Linear(16, 1))


def _data(seed):
    rng = np.random.default_rng(seed)
    return (dygraph.to_tensor(rng.standard_normal((32, 8)).astype(np.float32)),
            dygraph.to_tensor(rng.standard_normal((32, 1)).astype(np.float32)))


def _train(model, x, y, steps, losses):
    """Plain training; `optimizer.step()` runs under its own no_grad each step."""
    opt = dygraph.optimizer.Adam(0.01, parameters=model.parameters())
    for _ in range(steps):
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(loss.numpy())
    return losses


def _run_threads(*targets):
    errors = []

    def guarded(fn):
        def run():
            try:
                fn()
            except BaseException as exc:  # noqa: BLE001 - reported to the test below
                errors.append(exc)
        return run

    threads = [threading.Thread(target=guarded(fn)) for fn in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors


def test_two_threads_training_their_own_models_match_single_thread_runs():
    models, data = [_model(1), _model(2)], [_data(1), _data(2)]
    alone = [_train(_model(s), *_data(s), 200, []) for s in (1, 2)]
    together = [[], []]
    _run_threads(*(lambda i=i: _train(models[i], *data[i], 200, together[i])
                   for i in range(2)))
    for a, b in zip(alone, together):
        np.testing.assert_array_equal(np.array(a), np.array(b))


def test_inference_under_no_grad_beside_training():
    model, (x, y) = _model(3), _data(3)
    alone = _train(_model(3), x, y, 300, [])
    other, stop = _model(4), threading.Event()

    def infer():
        while not stop.is_set():
            with dygraph.no_grad():  # held for most of this thread's time
                for _ in range(20):
                    other(x)

    losses = []

    def train():
        try:
            _train(model, x, y, 300, losses)
        finally:
            stop.set()

    _run_threads(train, infer)
    np.testing.assert_array_equal(np.array(alone), np.array(losses))


class _Squares(Dataset):
    """Builds each sample with DyGraph ops under no_grad, as transforms do."""

    def __len__(self):
        return 64

    def __getitem__(self, i):
        with dygraph.no_grad():
            v = dygraph.full([8], float(i) / 64) * 2.0
        return v.numpy(), np.array([float(i) / 64], np.float32)


def test_training_beside_a_data_loading_thread():
    # The loader is iterated in a producer thread (the workers of a thread-based input
    # pipeline); each sample is built under no_grad there.
    batches = queue.Queue(maxsize=4)

    def produce():
        for _ in range(5):
            for batch in DataLoader(_Squares(), batch_size=16):
                batches.put(batch)
        batches.put(None)

    def run(model, source, losses):
        opt = dygraph.optimizer.SGD(0.1, parameters=model.parameters())
        for x, y in source:
            loss = F.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(loss.numpy())

    alone = []
    run(_model(5), (b for _ in range(5) for b in DataLoader(_Squares(), batch_size=16)), alone)
    together = []
    model = _model(5)
    _run_threads(produce, lambda: run(model, iter(batches.get, None), together))
    np.testing.assert_array_equal(np.array(alone), np.array(together))


def test_grad_mode_switches_do_not_leak_across_threads():
    seen = {}
    inside, release = threading.Event(), threading.Event()

    def hold_no_grad():
        with dygraph.no_grad():
            inside.set()
            release.wait(10)

    t = threading.Thread(target=hold_no_grad)
    t.start()
    inside.wait(10)
    seen["main"] = dygraph.is_grad_enabled()
    release.set()
    t.join()
    assert seen["main"] is True
