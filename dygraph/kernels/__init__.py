"""Compiled kernels by backend: numba/ for the CPU, cuda/ for CuPy on GPUs."""
