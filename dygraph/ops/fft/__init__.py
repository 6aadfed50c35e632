"""Fourier transforms: the ops and the functions of dygraph.fft and dygraph.signal."""
