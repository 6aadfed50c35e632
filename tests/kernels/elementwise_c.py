"""DyGraph's CUDA kernels as C, for the tests that compile them (nvcc for the GPU, g++ on
the host): an ElementwiseKernel's parameters (CuPy passes a raw parameter as a pointer and
binds the others to element i of their arrays; a test may pass some by value), its body in
a loop over the elements, and the host build of such C as a library to call."""

import ctypes
import shutil
import subprocess

import pytest

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


def element_loop(name, in_params, out_params, body, by_value=(), c_type=None):
    """An ElementwiseKernel as the C function `name` running its body over n elements, as
    CuPy runs it (`i` the element); in a namespace of its own with T = `c_type` if given.

    Example:
        >>> element_loop("twice", "T x", "T y", "y = x + x;", c_type="float").splitlines()[0]
        'namespace twice_ns { typedef float T;'
    """
    params, bind = c_parameters(in_params, out_params, by_value)
    function = (f'extern "C" void {name}({", ".join(params)}, long long n) {{\n'
                f"  for (long long i = 0; i < n; ++i) {{\n    {' '.join(bind)}\n"
                f"{body}\n  }}\n}}\n")
    if c_type is None:
        return function
    return f"namespace {name}_ns {{ typedef {c_type} T;\n{function}}}\n"


def host_library(tmp_path_factory, label, text, flags=("-O2",)):
    """C++ `text` built by g++ as a shared library and loaded (the test skips where g++ is
    missing): without contracted multiply-adds or fast math, as CuPy compiles the kernels
    (--fmad=false).

    Example:
        >>> callable(host_library)
        True
    """
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    folder = tmp_path_factory.mktemp(label)
    source, library = folder / f"{label}.cpp", folder / f"{label}.so"
    source.write_text(text)
    done = subprocess.run(["g++", *flags, "-ffp-contract=off", "-fno-fast-math", "-shared",
                           "-fPIC", str(source), "-o", str(library)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr + text
    return ctypes.CDLL(str(library))
