"""The docstring examples of the fluid modules built on the 2.x API run as written."""

import doctest
import importlib

import pytest

MODULES = [
    "dygraph.fluid.clip",
    "dygraph.fluid.contrib.reader",
    "dygraph.fluid.dygraph.checkpoint",
    "dygraph.fluid.dygraph.container",
    "dygraph.fluid.dygraph.layer_args",
    "dygraph.fluid.dygraph.layers",
    "dygraph.fluid.dygraph.learning_rate_scheduler",
    "dygraph.fluid.dygraph.nn",
    "dygraph.fluid.dygraph.nn_conv",
    "dygraph.fluid.dygraph.nn_norm",
    "dygraph.fluid.dygraph.nn_rnn",
    "dygraph.fluid.dygraph.parallel",
    "dygraph.fluid.dygraph.pylayer",
    "dygraph.fluid.initializer",
    "dygraph.fluid.io",
    "dygraph.fluid.optimizer",
    "dygraph.fluid.param_attr",
    "dygraph.fluid.regularizer",
    "dygraph.fluid.unique_name",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
