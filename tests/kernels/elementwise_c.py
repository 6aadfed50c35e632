"""ElementwiseKernel parameters as C, for the tests that compile DyGraph's element-wise
kernels (nvcc for the GPU, g++ on the host): CuPy passes a raw parameter as a pointer and
binds the others to element i of their arrays; a test may pass some by value."""

C_TYPES = {"T": "T", "float32": "float", "int32": "int", "int64": "long long",
           "uint64": "unsigned long long", "bool": "bool"}


def c_parameters(in_params, out_params, by_value=()):
    """(the C function's parameters, the bindings of element i) of a kernel's parameter
    lists; the names in `by_value` are passed as values.

    Example:
        >>> c_parameters("raw T x, int32 n", "T y", by_value={"n"})
        (['T* x', 'int n', 'T* y_at'], ['T& y = y_at[i];'])
    """
    params, bind = [], []
    for spec in (in_params + "," + out_params).split(","):
        words = spec.split()
        ctype, name = C_TYPES[words[-2]], words[-1]
        if words[0] == "raw":
            params.append(f"{ctype}* {name}")
        elif name in by_value:
            params.append(f"{ctype} {name}")
        else:
            params.append(f"{ctype}* {name}_at")
            bind.append(f"{ctype}& {name} = {name}_at[i];")
    return params, bind
