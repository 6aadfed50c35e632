"""Activation functions of dygraph.nn.functional."""
