"""dygraph.onnx (Paddle's paddle.onnx): export a Layer to ONNX.

`export(layer, path, input_spec)` captures the layer as a static program and maps its ops
to ONNX nodes (dygraph/onnx/map_*.py); the onnx package is needed (pip install
'dygraph-framework[onnx]') and imported only when exporting.

Example:
    >>> import os, tempfile
    >>> import dygraph
    >>> from dygraph.static import InputSpec
    >>> path = os.path.join(tempfile.mkdtemp(), 'mlp')
    >>> net = dygraph.nn.Sequential(dygraph.nn.Linear(4, 8), dygraph.nn.ReLU())
    >>> dygraph.onnx.export(net, path, [InputSpec([None, 4], 'float32', 'x')])
    >>> os.path.exists(path + '.onnx')
    True
"""

from dygraph.onnx.export import export

__all__ = ["export"]
