"""Convolutions: the ops, their three products and the paths that compute them."""
