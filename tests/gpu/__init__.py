"""GPU tests: they run on CUDAPlace(0) through CuPy and skip without CuPy or a CUDA GPU."""

import importlib.util

import pytest

import dygraph

HAS_GPU = importlib.util.find_spec("cupy") is not None and dygraph.is_compiled_with_cuda()
requires_gpu = pytest.mark.skipif(not HAS_GPU, reason="needs CuPy and a CUDA GPU")
