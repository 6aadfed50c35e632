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

from dygraph.inference.config import Config, DataType, PlaceType, PrecisionType
from dygraph.inference.predictor import Predictor, Tensor, create_predictor

__all__ = ["Config", "create_predictor", "Predictor", "Tensor", "PrecisionType",
           "PlaceType", "DataType", "get_version"]


def get_version():
    """The DyGraph version string.

    Example:
        >>> get_version().startswith('version: ')
        True
    """
    from dygraph import __version__

    return f"version: {__version__}"
