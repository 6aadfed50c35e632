"""`paddle.utils.run_check`: check that DyGraph trains on this machine.

Example:
    >>> run_check()  # doctest: +ELLIPSIS
    Running verify DyGraph program ...
    DyGraph works well on 1 CPU.
    DyGraph is installed successfully! ...
"""

import numpy as np

__all__ = ["run_check"]


def run_check():
    """Train a small linear model for a few steps on the current device (CPU or GPU) and
    report; raises RuntimeError when the loss does not go down.

    Example:
        >>> run_check()  # doctest: +SKIP
    """
    import dygraph

    print("Running verify DyGraph program ...")
    device = dygraph.get_device()
    rng = np.random.default_rng(0)
    x = dygraph.to_tensor(rng.standard_normal((16, 4)).astype(np.float32))
    y = dygraph.to_tensor(rng.standard_normal((16, 1)).astype(np.float32))
    model = dygraph.nn.Linear(4, 1)
    opt = dygraph.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    losses = []
    for _ in range(5):
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss.item()))
    if not losses[-1] < losses[0]:
        raise RuntimeError(f"run_check: training did not lower the loss on {device}: {losses}")
    where = "1 CPU" if device == "cpu" else f"1 GPU ({device})"
    print(f"DyGraph works well on {where}.")
    print("DyGraph is installed successfully! Let's start deep learning with DyGraph now.")
