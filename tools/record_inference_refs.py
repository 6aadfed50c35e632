"""Record what Paddle 3.3 answers for the paddle.inference names DyGraph added
(get_num_bytes_of_data_type, the TensorRT versions, PredictorPool's checks and
convert_to_mixed_precision's backend check) into tests/data/inference_refs.json.

tests/inference/ replays them on DyGraph without Paddle. Run it with a Python that has
paddlepaddle (CPU build):

    /tmp/paddle-venv/bin/python tools/record_inference_refs.py
"""

import json
import pathlib
import tempfile
import warnings

import paddle
from paddle import inference

warnings.filterwarnings("ignore")
OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "inference_refs.json"


def raised(call):
    try:
        call()
    except BaseException as exc:  # the exception's type is what is recorded
        return type(exc).__name__
    return None


def main():
    paddle.disable_static()
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 3), paddle.nn.ReLU())
    prefix = str(pathlib.Path(tempfile.mkdtemp()) / "m")
    paddle.jit.save(net, prefix, input_spec=[paddle.static.InputSpec([None, 4], "float32")])
    config = inference.Config(prefix + ".json", prefix + ".pdiparams")
    pool = inference.PredictorPool(config, 2)
    refs = {
        "paddle": paddle.__version__,
        "num_bytes": {name: inference.get_num_bytes_of_data_type(member)
                      for name, member in inference.DataType.__members__.items()},
        "num_bytes_of_int_raises": raised(lambda: inference.get_num_bytes_of_data_type(5)),
        "trt_compile_version": list(inference.get_trt_compile_version()),
        "trt_runtime_version": list(inference.get_trt_runtime_version()),
        "pool_same_object": pool.retrieve(1) is pool.retrieve(1),
        "pool_distinct_objects": pool.retrieve(0) is not pool.retrieve(1),
        "pool_raises": {
            "size 0": raised(lambda: inference.PredictorPool(config, 0)),
            "size -1": raised(lambda: inference.PredictorPool(config, -1)),
            "retrieve 2 of 2": raised(lambda: pool.retrieve(2)),
            "retrieve -1": raised(lambda: pool.retrieve(-1)),
        },
        "convert_on_cpu_backend_raises": raised(lambda: inference.convert_to_mixed_precision(
            prefix + ".json", prefix + ".pdiparams", prefix + "_h.json", prefix + "_h.pdiparams",
            inference.PrecisionType.Half, inference.PlaceType.CPU)),
    }
    OUT.write_text(json.dumps(refs, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
