"""Runnable examples. `python -m dygraph.examples.mnist` is the main job: train the seeds'
handwritten-digit model, checkpoint it, reload it and predict an image (docs/MNIST.md).

Example:
    >>> from dygraph.examples import mnist
    >>> mnist.DEFAULT_EPOCHS
    3
"""
