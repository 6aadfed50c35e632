"""Gradient copies on a GPU made together at the end of a backward pass
(dygraph/tensor/deferred_grads.py), on the CuPy stand-in: the same gradients and training
as the CPU, where each copy is made at once; one concatenate where the optimizer's flat
buffer holds the gradients; and the cases where a gradient is read, added to or left out
in the middle of a pass."""

import numpy as np
import pytest

import dygraph
from dygraph import nn
from dygraph.tensor import deferred_grads
from tools import cupy_standin

PLACES = ("cpu", "gpu:0")


class _Net(nn.Layer):
    """Twelve parameters (six linear layers), the first layer's weight used twice."""

    def __init__(self):
        super().__init__()
        self.layers = nn.LayerList([nn.Linear(6, 6) for _ in range(6)])

    def forward(self, x):
        first = self.layers[0]
        x = first(x) + dygraph.matmul(x, first.weight)
        for layer in self.layers[1:]:
            x = dygraph.tanh(layer(x))
        return x.sum()


def _train(place, steps=3, hook=None, accumulate=False):
    dygraph.set_device(place)
    dygraph.seed(0)
    net = _Net()
    opt = dygraph.optimizer.Adam(0.05, parameters=net.parameters())
    x = dygraph.to_tensor(np.linspace(-1, 1, 24).reshape(4, 6).astype(np.float32))
    seen = []
    for _ in range(steps):
        out = net(x)
        if hook is not None:
            hook(net, seen)
        out.backward()
        if accumulate:
            net(x * 0.5).backward()
        opt.step()
        opt.clear_grad()
    return [p.numpy() for p in net.parameters()], seen


@pytest.fixture
def standin():
    with cupy_standin.installed():
        try:
            yield
        finally:
            dygraph.set_device("cpu")


def _same(a, b):
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6)


def test_training_equals_the_cpu_and_the_copies_are_one_concatenate(standin):
    cpu, _ = _train("cpu")
    concatenates = cupy_standin.calls_by_name["concatenate"]
    copies = cupy_standin.calls_by_name["__setitem__"]
    gpu, _ = _train("gpu:0")
    _same(gpu, cpu)
    # The first step's copies go one by one (the optimizer's flat buffer is made in its
    # first step; it gathers with a concatenate then); the next two: one concatenate each.
    assert cupy_standin.calls_by_name["concatenate"] - concatenates >= 3
    assert cupy_standin.calls_by_name["__setitem__"] - copies <= 12 + 2 * 2
    assert deferred_grads.PENDING == {}


def test_a_second_backward_adds_to_the_gradients(standin):
    _same(_train("gpu:0", accumulate=True)[0], _train("cpu", accumulate=True)[0])


def test_a_hook_reading_gradients_mid_pass_sees_the_copied_values(standin):
    def hook(net, seen):
        last = net.layers[-1]
        # Runs during the pass, after the last layer's gradients have been delivered.
        handle = []

        def read(g):
            seen.append(last.weight.grad.numpy().copy())
            handle[0].remove()

        handle.append(net.layers[2].weight.register_hook(read))

    cpu = _train("cpu", hook=hook)[1]
    gpu = _train("gpu:0", hook=hook)[1]
    assert len(gpu) == len(cpu) == 3
    _same(gpu, cpu)


def test_a_pass_that_fails_still_makes_its_copies(standin):
    results = []
    for place in PLACES:
        dygraph.set_device(place)
        dygraph.seed(0)
        net = _Net()
        x = dygraph.to_tensor(np.ones((4, 6), np.float32))
        net(x).backward()
        for p in net.parameters():
            p.clear_grad()

        def fail(g):
            raise RuntimeError("stop")

        net.layers[0].bias.register_hook(fail)
        with pytest.raises(RuntimeError, match="stop"):
            net(x).backward()
        assert deferred_grads.PENDING == {}
        results.append([p.grad.numpy() for p in net.parameters()])
    _same(results[1], results[0])


def test_gradients_left_out_of_a_pass_read_zeros(standin):
    results = []
    for place in PLACES:
        dygraph.set_device(place)
        dygraph.seed(0)
        net = _Net()
        opt = dygraph.optimizer.Adam(0.05, parameters=net.parameters())
        x = dygraph.to_tensor(np.ones((4, 6), np.float32))
        for _ in range(2):
            net(x).backward()
            opt.step()
            opt.clear_grad()
        # Only the last two layers: four of the twelve gradients, two ranges of the buffer.
        h = dygraph.to_tensor(np.ones((4, 6), np.float32))
        net.layers[5](net.layers[4](h)).sum().backward()
        results.append([p.grad.numpy() for p in net.parameters()])
    _same(results[1], results[0])
    assert not np.any(results[1][0]) and np.any(results[1][-1])


def _tiled_slots(shapes, before=0, after=0):
    """(a GPU buffer of -1s, gradient tensors of `shapes` whose data are views tiling it end
    to end from element `before`, `after` elements left over)."""
    dygraph.set_device("gpu:0")
    sizes = [int(np.prod(s)) for s in shapes]
    buffer = dygraph.full([before + sum(sizes) + after], -1.0)._data
    slots = [dygraph.to_tensor(np.zeros(s, np.float32)) for s in shapes]
    for slot, start, size, shape in zip(slots, before + np.cumsum([0] + sizes), sizes, shapes):
        slot._data = buffer[start:start + size].reshape(shape)
    return buffer, slots


def _flushed(slots, grads):
    """Defer the copy of each device array of `grads` into its slot, flush: {call name:
    count} of the calls the flush made."""
    for slot, g in zip(slots, grads):
        deferred_grads.defer(slot, g)
    before = dict(cupy_standin.calls_by_name)
    deferred_grads.flush()
    return {k: v - before.get(k, 0) for k, v in cupy_standin.calls_by_name.items()
            if v - before.get(k, 0)}


def test_the_flush_gives_concatenate_1d_gradients_as_they_are(standin):
    """More gradients than FLAT_COPIES tiling one buffer, half 1-D and half 2-D: one
    concatenate, and a flat view made of the 2-D ones only (a view is a call on a GPU)."""
    half = deferred_grads.FLAT_COPIES // 2 + 1
    shapes = [(3,), (2, 3)] * half
    _, slots = _tiled_slots(shapes)
    rng = np.random.default_rng(0)
    grads = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    made = _flushed(slots, [dygraph.to_tensor(g)._data for g in grads])
    assert made.get("concatenate") == 1 and made.get("__setitem__", 0) == 0
    assert made.get("reshape") == 1 + half  # the buffer's flat view, the 2-D gradients
    for slot, g in zip(slots, grads):
        np.testing.assert_array_equal(slot.numpy(), g)


class _SmallNet(nn.Layer):
    """Four parameters: few enough for flat_copies' kernel (deferred_grads.FLAT_COPIES)."""

    def __init__(self):
        super().__init__()
        self.first, self.second = nn.Linear(6, 5), nn.Linear(5, 1)

    def forward(self, x):
        return self.second(dygraph.tanh(self.first(x))).sum()


def test_a_few_gradients_go_into_the_flat_buffer_in_one_kernel(standin):
    """Adam's flat buffer takes a small net's four gradients with one kernel of ours where
    CuPy would copy each with a kernel of its own, and no view; training equals the
    CPU's."""
    results = []
    for place in PLACES:
        dygraph.set_device(place)
        dygraph.seed(0)
        net = _SmallNet()
        opt = dygraph.optimizer.Adam(0.05, parameters=net.parameters())
        x = dygraph.to_tensor(np.linspace(-1, 1, 24).reshape(4, 6).astype(np.float32))
        for step in range(3):
            before = dict(cupy_standin.calls_by_name)
            net(x).backward()
            made = {n: c - before.get(n, 0) for n, c in cupy_standin.calls_by_name.items()}
            if place != "cpu" and step:  # the flat buffer is made in the first step
                assert made.get("copy_into_flat_8") == 1 and not made.get("__setitem__")
            opt.step()
            opt.clear_grad()
        results.append([p.numpy() for p in net.parameters()])
    _same(results[1], results[0])


def test_a_flush_of_a_few_gradients_is_one_call(standin):
    """Six gradients tiling a range inside a buffer (strided ones among them): one kernel
    call, no view of the buffer, each value in place and the rest of the buffer kept."""
    shapes = [(3,), (2, 3), (4,), (3, 2), (1,), (2, 2)]
    buffer, slots = _tiled_slots(shapes, before=2, after=3)
    rng = np.random.default_rng(1)
    grads = [rng.standard_normal(s[::-1]).astype(np.float32).T for s in shapes]  # strided
    made = _flushed(slots, [dygraph.to_tensor(np.ascontiguousarray(g.T))._data.T
                            if g.ndim == 2 else dygraph.to_tensor(g)._data for g in grads])
    assert made == {"copy_into_flat_8": 1}
    for slot, g in zip(slots, grads):
        np.testing.assert_array_equal(slot.numpy(), g)
    host = buffer.get()
    assert (host[:2] == -1).all() and (host[-3:] == -1).all()
