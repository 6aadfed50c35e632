"""Streams, events, memory peaks and properties on a GPU (CuPy); skipped without one.
The peak tracker itself is also checked on the CPU."""

import importlib.util

import numpy as np
import pytest

import dygraph
from dygraph import device as d
from dygraph.backend.gpu_memory import PeakTracker

HAS_GPU = importlib.util.find_spec("cupy") is not None and dygraph.is_compiled_with_cuda()
gpu = pytest.mark.skipif(not HAS_GPU, reason="needs CuPy and a CUDA GPU")


def test_peak_tracker_keeps_the_largest_counts_per_device():
    t = PeakTracker()
    t.note(0, 100, 400)
    t.note(0, 50, 500)
    t.note(1, 7, 8)
    assert t.peaks(0) == (100, 500) and t.peaks(1) == (7, 8) and t.peaks(2) == (0, 0)
    t.reset(0, used=30, reserved=None)
    assert t.peaks(0) == (30, 500)


@gpu
def test_peaks_rise_with_a_tensor_and_reset_to_the_current_use():
    d.reset_peak_memory_stats(0)
    base = d.max_memory_allocated(0)
    x = dygraph.zeros([1024, 1024], dtype="float32").cuda()
    assert d.max_memory_allocated("gpu:0") >= base + 1024 * 1024 * 4
    assert d.max_memory_reserved(0) >= d.max_memory_allocated(0)
    peak = d.max_memory_allocated(0)
    del x
    assert d.max_memory_allocated(0) == peak  # a peak stays after the memory is freed
    d.reset_max_memory_allocated(0)
    assert d.max_memory_allocated(0) < peak


@gpu
def test_ops_in_a_stream_guard_run_on_that_stream():
    s = d.Stream("gpu:0", priority=1)
    with d.stream_guard(s):
        assert d.current_stream() == s
        x = dygraph.ones([256, 256]).cuda()
        y = (x @ x).sum()
        done = s.record_event()
    assert d.current_stream() != s
    done.synchronize()
    assert s.query() and done.query()
    np.testing.assert_allclose(y.item(), 256.0 ** 3)


@gpu
def test_events_time_and_streams_wait():
    start, end = d.Event(enable_timing=True), d.Event(enable_timing=True)
    other = d.Stream()
    start.record()
    x = dygraph.ones([512, 512]).cuda()
    _ = x @ x
    end.record()
    other.wait_stream(d.current_stream())
    other.wait_event(end)
    end.synchronize()
    other.synchronize()
    assert start.elapsed_time(end) >= 0
    previous = d.set_stream(other)
    assert d.current_stream() == other
    d.set_stream(previous)
    assert d.current_stream() == previous


@gpu
def test_external_stream_and_properties():
    import cupy

    raw = cupy.cuda.Stream(non_blocking=True)
    wrapped = d.get_stream_from_external(raw.ptr, "gpu:0")
    assert wrapped.cuda_stream == raw.ptr and wrapped.__cuda_stream__() == (0, raw.ptr)
    props = d.get_device_properties(0)
    assert props.total_memory > 0 and props.multi_processor_count > 0
    assert d.get_device_name() == props.name
    assert d.get_device_capability("gpu:0") == (props.major, props.minor)
    assert d.is_current_stream_capturing() is False
    d.ipc_collect()
