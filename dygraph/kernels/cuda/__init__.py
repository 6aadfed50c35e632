"""CUDA kernels compiled by CuPy on first use."""
