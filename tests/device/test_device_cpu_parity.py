"""paddle.device's streams, events, memory peaks, properties and device switching on a
machine without a GPU, against what Paddle 3.3's CPU build answered
(tests/data/device_refs.json, written by tools/record_device_refs.py)."""

import json
import pathlib

import pytest

import dygraph
from dygraph import device as d

pytestmark = pytest.mark.skipif(d.is_available(), reason="the recorded answers are a "
                                "CPU-only build's; with a GPU these calls succeed")

CASES = json.loads((pathlib.Path(__file__).resolve().parent.parent / "data"
                    / "device_refs.json").read_text())["cases"]

# Where DyGraph answers otherwise, on purpose. Paddle's CPU build meets these calls with
# NameError or AttributeError from inside its own code (a helper its CPU build lacks, a
# None it dereferences); DyGraph raises the error that names the problem: a GPU is needed
# (ValueError, as for the memory peaks), the CPU has no streams (TypeError, as Paddle's
# current_stream says), or the argument is not a Stream.
DIFFERENT = {
    ("get_device_properties", "NameError"): "ValueError",
    ("get_device_name", "NameError"): "ValueError",
    ("get_device_capability", "NameError"): "ValueError",
    ("Stream", "NameError"): "TypeError",
    ("Event", "NameError"): "TypeError",
    ("set_stream", "AttributeError"): "TypeError",
    ("get_stream_from_external", "AttributeError"): "TypeError",
}


def _device(value):
    return dygraph.CPUPlace() if isinstance(value, dict) else value


def _enter(manager):
    with manager:
        return d.get_device()


def _call(case):
    name, dev = case["call"], _device(case.get("device"))
    if name.startswith("with "):
        kind = name[5:].split("(")[0]
        arg = None if name.endswith("(None)") else dev
        return lambda: _enter(getattr(d, kind)(arg))
    if name == "set_stream":
        return lambda: d.set_stream(case["stream"])
    if name == "get_stream_from_external":
        return lambda: d.get_stream_from_external(case["data_ptr"])
    if name == "is_bf16_supported" and "including_emulation" in case:
        return lambda: d.is_bf16_supported(case["including_emulation"])
    if "device" in case:
        return lambda: getattr(d, name)(dev)
    return getattr(d, name)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['call']}-{c.get('device')}")
def test_matches_paddles_cpu_build(case):
    if case == {"call": "is_bf16_supported", "including_emulation": False, "returns": True}:
        # Paddle's CPU kernels compute bfloat16 natively (oneDNN); NumPy has no bfloat16,
        # so DyGraph's only bfloat16 is emulated.
        assert d.is_bf16_supported(False) is False
        return
    if "raises" in case:
        expected = DIFFERENT.get((case["call"], case["raises"]), case["raises"])
        with pytest.raises(Exception) as info:  # noqa: B017 - the type is checked below
            _call(case)()
        assert type(info.value).__name__ == expected, info.value
    else:
        assert _call(case)() == case["returns"]


def test_device_switches_and_restores():
    assert d.get_device() == "cpu"
    with d.device(0):
        assert dygraph.ones([1]).place == dygraph.CPUPlace()
    with d.device_guard("cpu"), d.device(None):
        assert d.get_device() == "cpu"
    assert d.get_device() == "cpu"


def test_errors_name_the_function_and_the_fix():
    with pytest.raises(ValueError, match="max_memory_reserved needs a GPU.*CuPy"):
        d.max_memory_reserved()
    with pytest.raises(ValueError, match="get_device_name needs a GPU"):
        d.get_device_name()
    with pytest.raises(TypeError, match="Stream: device should be gpu"):
        d.Stream()
    with pytest.raises(TypeError, match="a device is a Place, an int or a string"):
        d.device(1.5)


def test_cuda_namespace_shares_the_functions():
    assert d.cuda.max_memory_allocated is d.max_memory_allocated
    assert d.cuda.Stream is d.Stream and d.StreamContext is d.stream_guard
