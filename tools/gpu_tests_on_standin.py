"""Run the GPU tests (tests/gpu) on the CuPy stand-in, where no GPU is.

tests/gpu skips itself without CuPy and a GPU. This puts the stand-in
(tools/cupy_standin/) in CuPy's place, with the stand-in of cuDNN's frontend, and lifts
the skip, then runs pytest with the arguments given: a dry run of what a GPU session will
run, for the logic the stand-ins can check. The products DyGraph makes through cuBLAS
itself go to cuBLAS's stand-in (tools/cupy_standin/cublas_library.py). Expected failures
here: the tests that start a subprocess on the GPU (the main job, two MPI ranks);
`cupyx.scipy.special` is SciPy's here, and cuDNN's graphs and the GEMMs compute in
NumPy.

Run: python -m tools.gpu_tests_on_standin tests/gpu/test_programs_on_gpu.py
"""

import importlib.machinery
import sys


def main(args):
    """pytest's exit code for `args` run with the stand-in as CuPy."""
    import pytest

    from dygraph.backend import CAPTURE, capture_products
    from tools import cupy_standin
    from tools.cupy_standin.cublas_library import Library

    with cupy_standin.installed(cudnn=True) as cp:
        cp.__spec__ = importlib.machinery.ModuleSpec("cupy", None)  # find_spec sees CuPy
        # The products DyGraph makes through cuBLAS itself (captures, bfloat16 operands)
        # go to cuBLAS's stand-in, as on a GPU (this process's stand-in module only).
        capture_products._lib = Library()
        capture_products.install(cp, CAPTURE)
        import tests.gpu as gpu_tests

        gpu_tests.HAS_GPU = True
        gpu_tests.requires_gpu = pytest.mark.skipif(False, reason="the CuPy stand-in")
        return pytest.main(["-p", "no:cacheprovider", "-q", "-o", "addopts=", "-rf", *args])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
