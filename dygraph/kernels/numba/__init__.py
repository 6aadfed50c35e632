"""Compiled CPU kernels (Numba). Ops reach them through dygraph.backend.compiled.kernels, which
falls back when Numba is absent.
"""
