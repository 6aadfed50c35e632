"""Global flags (`paddle.set_flags` / `paddle.get_flags`).

Paddle configures its C++ runtime through `FLAGS_*` values. DyGraph keeps the same table
so that programs which set or read the common flags run unchanged, with Paddle's checks:
an unknown flag raises ValueError, and a value is converted to the flag's type. DyGraph's
NumPy/CuPy kernels have no allocator, cuDNN or oneDNN settings, so these flags are
recorded and read back but do not change what DyGraph computes.

Example:
    >>> set_flags({'FLAGS_cudnn_deterministic': True})
    >>> get_flags('FLAGS_cudnn_deterministic')
    {'FLAGS_cudnn_deterministic': True}
    >>> set_flags({'FLAGS_cudnn_deterministic': False})
"""

__all__ = ["set_flags", "get_flags"]

# Paddle's defaults for the flags that user code commonly sets.
_DEFAULTS = {
    "FLAGS_allocator_strategy": "auto_growth",
    "FLAGS_benchmark": False,
    "FLAGS_call_stack_level": 1,
    "FLAGS_check_nan_inf": False,
    "FLAGS_check_nan_inf_level": 0,
    "FLAGS_conv_workspace_size_limit": 512,
    "FLAGS_cudnn_batchnorm_spatial_persistent": False,
    "FLAGS_cudnn_deterministic": False,
    "FLAGS_cudnn_exhaustive_search": False,
    "FLAGS_eager_delete_tensor_gb": 0.0,
    "FLAGS_embedding_deterministic": 0,
    "FLAGS_enable_pir_api": False,
    "FLAGS_fraction_of_gpu_memory_to_use": 0.5,
    "FLAGS_gpu_memory_limit_mb": 0,
    "FLAGS_initial_gpu_memory_in_mb": 0,
    "FLAGS_max_inplace_grad_add": 0,
    "FLAGS_paddle_num_threads": 1,
    "FLAGS_print_ir": False,
    "FLAGS_reallocate_gpu_memory_in_mb": 0,
    "FLAGS_sort_sum_gradient": False,
    "FLAGS_use_mkldnn": False,
    "FLAGS_use_stride_kernel": True,
}
_values = dict(_DEFAULTS)


def _convert(name, value):
    kind = type(_DEFAULTS[name])
    if kind is bool:
        if isinstance(value, str) and value.lower() in ("true", "false", "1", "0"):
            return value.lower() in ("true", "1")
        if isinstance(value, (bool, int)):
            return bool(value)
    elif kind in (int, float):
        if not isinstance(value, bool):
            try:
                return kind(value)
            except (TypeError, ValueError):
                pass
    elif isinstance(value, str):
        return value
    raise TypeError(f"set_flags: {name} takes a {kind.__name__} value, but got {value!r}")


def set_flags(flags):
    """Set flags from a dict {'FLAGS_name': value}.

    Example:
        >>> set_flags({'FLAGS_unknown': 1})
        Traceback (most recent call last):
        ...
        ValueError: Flag FLAGS_unknown cannot set its value through this function.
    """
    if not isinstance(flags, dict):
        raise TypeError(f"set_flags: flags should be a dict, but got {type(flags).__name__}")
    converted = {}
    for name, value in flags.items():
        if name not in _DEFAULTS:
            raise ValueError(f"Flag {name} cannot set its value through this function.")
        converted[name] = _convert(name, value)
    _values.update(converted)


def get_flags(flags):
    """The values of a flag name or a list of names, as a dict.

    Example:
        >>> get_flags(['FLAGS_check_nan_inf', 'FLAGS_use_mkldnn'])
        {'FLAGS_check_nan_inf': False, 'FLAGS_use_mkldnn': False}
    """
    names = [flags] if isinstance(flags, str) else flags
    if not isinstance(names, (list, tuple)):
        raise TypeError(f"get_flags: flags should be a str, list or tuple, but got "
                        f"{type(flags).__name__}")
    result = {}
    for name in names:
        if name not in _DEFAULTS:
            raise ValueError(f"Flag {name} cannot get its value through this function.")
        result[name] = _values[name]
    return result
