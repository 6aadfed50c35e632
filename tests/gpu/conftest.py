import pytest

import dygraph


@pytest.fixture
def on_gpu():
    """New tensors (to_tensor, zeros, a layer's parameters) go to the GPU in the test."""
    dygraph.set_device("gpu:0")
    try:
        yield
    finally:
        dygraph.set_device("cpu")
