"""Framework-wide pieces: dtypes, places, randomness and error formatting.

`dygraph.framework.ParamAttr` is reachable too, as in Paddle's docs (loaded on first use:
the nn package imports this one).
"""


def __getattr__(name):
    if name == "ParamAttr":
        from dygraph.nn.param_attr import ParamAttr

        return ParamAttr
    raise AttributeError(f"module 'dygraph.framework' has no attribute {name!r}")
