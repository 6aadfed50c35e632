"""dygraph.inference (Paddle's paddle.inference): run a saved model through a predictor.

`Config` names the model (a .pdmodel/.pdiparams prefix, the two files, or an .onnx file)
and the switches; `create_predictor(config)` returns a Predictor with input and output
handles. The model runs on DyGraph's Executor, or on onnxruntime after
`config.enable_onnxruntime()` (pip install 'dygraph-framework[onnx]').

Example:
    >>> config = Config('model')
    >>> config.disable_gpu(); config.switch_ir_optim(True)
    >>> config.prog_file()
    'model.pdmodel'
"""

from dygraph.inference.config import (
    Config,
    DataType,
    PlaceType,
    PrecisionType,
    get_num_bytes_of_data_type,
)
from dygraph.inference.mixed_precision import convert_to_mixed_precision
from dygraph.inference.predictor import Predictor, PredictorPool, Tensor, create_predictor

__all__ = ["Config", "create_predictor", "Predictor", "PredictorPool", "Tensor",
           "PrecisionType", "PlaceType", "DataType", "get_version",
           "get_num_bytes_of_data_type", "get_trt_compile_version", "get_trt_runtime_version",
           "convert_to_mixed_precision"]


def get_version():
    """The DyGraph version string.

    Example:
        >>> get_version().startswith('version: ')
        True
    """
    from dygraph import __version__

    return f"version: {__version__}"


def get_trt_compile_version():
    """The TensorRT version this build was compiled with: (0, 0, 0), since DyGraph has no
    TensorRT (as Paddle's CPU build answers).

    Example:
        >>> get_trt_compile_version()
        (0, 0, 0)
    """
    return (0, 0, 0)


def get_trt_runtime_version():
    """The TensorRT version found at run time: (0, 0, 0), since DyGraph uses none (as
    Paddle's CPU build answers).

    Example:
        >>> get_trt_runtime_version()
        (0, 0, 0)
    """
    return (0, 0, 0)
