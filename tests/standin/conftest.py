"""Fixtures of the tests on the CuPy stand-in (tools/cupy_standin/): `standin_gpu` makes
the stand-in DyGraph's CuPy and the GPU the current device for a test, and yields the
stand-in module (`standin_gpu_cudnn` with cuDNN's stand-in too); `no_host_copies(cp)`
refuses every copy from the host inside its block."""

import contextlib

import pytest

import dygraph
from tools import cupy_standin


@pytest.fixture
def standin_gpu():
    with cupy_standin.installed() as module:
        dygraph.set_device("gpu:0")
        try:
            yield module
        finally:
            dygraph.set_device("cpu")


@pytest.fixture
def standin_gpu_cudnn():
    with cupy_standin.installed(cudnn=True) as module:
        dygraph.set_device("gpu:0")
        try:
            yield module
        finally:
            dygraph.set_device("cpu")


@contextlib.contextmanager
def no_host_copies(cp):
    """Inside the block a copy from the host raises (through the pinned allocator)."""
    def refuse(size):
        raise AssertionError("a copy from the host")

    cp.cuda.set_pinned_memory_allocator(refuse)
    try:
        yield
    finally:
        cp.cuda.set_pinned_memory_allocator(None)
