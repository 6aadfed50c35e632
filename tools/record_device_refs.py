"""Record what Paddle 3.3's CPU build answers for the paddle.device names DyGraph added
(streams, events, memory peaks, properties, device switching) into
tests/data/device_refs.json.

tests/device/test_device_cpu_parity.py replays the cases on DyGraph without Paddle. Each
case is a call and its outcome: the value returned, or the type of the exception raised.
Run it with a Python that has paddlepaddle (CPU build):

    /tmp/paddle-venv/bin/python tools/record_device_refs.py
"""

import json
import pathlib
import warnings

import paddle

warnings.filterwarnings("ignore")
OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "device_refs.json"

# Device arguments as JSON: a string, an int, null, or {"place": "cpu"} for CPUPlace().
DEVICES = [None, "cpu", {"place": "cpu"}, "gpu:0", 0]
ONE_DEVICE = ["max_memory_allocated", "max_memory_reserved", "reset_max_memory_allocated",
              "reset_max_memory_reserved", "reset_peak_memory_stats", "get_device_properties",
              "get_device_name", "get_device_capability", "current_stream"]


def device_arg(value):
    return paddle.CPUPlace() if isinstance(value, dict) else value


def outcome(call):
    try:
        value = call()
    except BaseException as exc:  # the exception's type is what is recorded
        return {"raises": type(exc).__name__}
    if value is None or isinstance(value, (bool, int, float, str)):
        return {"returns": value}
    return {"returns_type": type(value).__name__}


def enter(manager):
    with manager:
        return paddle.device.get_device()


def main():
    d = paddle.device
    cases = []
    for name in ONE_DEVICE:
        for dev in DEVICES:
            cases.append({"call": name, "device": dev,
                          **outcome(lambda n=name, v=dev: getattr(d, n)(device_arg(v)))})
    for name in ["is_bf16_supported", "is_compiled_with_distribute",
                 "is_current_stream_capturing", "ipc_collect"]:
        cases.append({"call": name, **outcome(getattr(d, name))})
    cases.append({"call": "is_bf16_supported", "including_emulation": False,
                  **outcome(lambda: d.is_bf16_supported(False))})
    for name in ["Stream", "Event"]:
        cases.append({"call": name, **outcome(getattr(d, name))})
    cases.append({"call": "Stream", "device": "cpu", **outcome(lambda: d.Stream("cpu"))})
    cases.append({"call": "set_stream", "stream": None, **outcome(lambda: d.set_stream(None))})
    cases.append({"call": "get_stream_from_external", "data_ptr": 0,
                  **outcome(lambda: d.get_stream_from_external(0))})
    for name in ["stream_guard", "StreamContext"]:
        cases.append({"call": f"with {name}(None)",
                      **outcome(lambda n=name: enter(getattr(d, n)(None)))})
    for name in ["device", "device_guard"]:
        for dev in ["cpu", {"place": "cpu"}, "gpu", "gpu:0", "cuda:0", 0, 1, None, "tpu"]:
            cases.append({"call": f"with {name}", "device": dev,
                          **outcome(lambda n=name, v=dev: enter(getattr(d, n)(device_arg(v))))})
    OUT.write_text(json.dumps({"paddle": paddle.__version__, "cases": cases}, indent=1) + "\n")
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
