"""Compiled CPU kernels (Numba). Ops reach them through dygraph.backend.compiled.kernels,
which imports a module here only when Numba is installed and the kernels are on."""
