"""The seeds' MNIST model in float64 NumPy, written from the documents, not from DyGraph.

The 1.4 and 1.5 documents build two conv-pool blocks (5x5 convolutions, valid padding,
stride 1, with 20 and 50 filters, each followed by a 2x2 max pool of stride 2) and a fully
connected softmax layer of 10 classes over the flattened 50x4x4 features, trained with the
mean cross entropy. The 1.4 example's SimpleImgConvPool does not pass `act` on to its
Conv2D, so its convolutions have no ReLU; the 1.5 one does.

Example:
    >>> import numpy as np
    >>> params = [np.zeros(shape) for shape in PARAM_SHAPES]
    >>> round(mean_loss(params, np.zeros((2, 1, 28, 28)), np.array([3, 7]), relu=True), 4)
    2.3026
"""

import numpy as np

# conv1 filter and bias, conv2 filter and bias, fc weight and bias: the order of
# model.parameters() in both seeds.
PARAM_SHAPES = [(20, 1, 5, 5), (20,), (50, 20, 5, 5), (50,), (800, 10), (10,)]


def _conv(x, w, b):
    """Valid cross-correlation of x [N, C, H, W] with w [O, C, kh, kw], plus b: every
    window's pixels as a row, times the flattened filters."""
    windows = np.lib.stride_tricks.sliding_window_view(x, w.shape[2:], axis=(2, 3))
    n, _, h, wd = windows.shape[:4]
    rows = windows.transpose(0, 2, 3, 1, 4, 5).reshape(n * h * wd, -1)
    out = rows @ w.reshape(len(w), -1).T + b
    return out.reshape(n, h, wd, len(w)).transpose(0, 3, 1, 2)


def _max_pool(x):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


def mean_loss(params, images, labels, relu):
    """The mean cross entropy of the model with `params` on images [N, 1, 28, 28].

    Example:
        >>> params = [np.zeros(shape) for shape in PARAM_SHAPES]
        >>> round(mean_loss(params, np.ones((1, 1, 28, 28)), np.array([0]), relu=False), 4)
        2.3026
    """
    x = np.asarray(images, np.float64)
    params = [np.asarray(p, np.float64) for p in params]
    for w, b in (params[0:2], params[2:4]):
        x = _conv(x, w, b)
        if relu:
            x = np.maximum(x, 0.0)
        x = _max_pool(x)
    logits = x.reshape(len(x), -1) @ params[4] + params[5]
    z = logits - logits.max(axis=1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return float(-log_p[np.arange(len(labels)), np.asarray(labels).reshape(-1)].mean())


def check_sgd_step(before, after, learning_rate, images, labels, relu, seed=0):
    """Assert that `after` = `before` - learning_rate * (the gradient of mean_loss at
    `before`): central differences of mean_loss along the step and along a random direction
    equal the step's gradient projected on them, and the loss falls by what the slope at the
    step's midpoint integrates to over the step (the midpoint rule).

    Example (a weight decay is no gradient step):
        >>> rng = np.random.default_rng(0)
        >>> images, labels = rng.uniform(-1, 1, (4, 1, 28, 28)), np.arange(4)
        >>> before = [rng.normal(0, 0.1, shape) for shape in PARAM_SHAPES]
        >>> check_sgd_step(before, [0.99 * p for p in before], 0.1, images, labels, True)
        Traceback (most recent call last):
            ...
        AssertionError: ...
    """
    grad = [(np.asarray(b, np.float64) - np.asarray(a, np.float64)) / learning_rate
            for b, a in zip(before, after)]
    rng = np.random.default_rng(seed)
    norm = np.sqrt(sum(float((g * g).sum()) for g in grad))
    assert norm > 0, "the step did not change any parameter"
    directions = [grad, [rng.standard_normal(g.shape) for g in grad]]
    for direction in directions:
        scale = np.sqrt(sum(float((d * d).sum()) for d in direction))
        unit = [d / scale for d in direction]
        slope = _slope(before, unit, images, labels, relu)
        projected = sum(float((g * u).sum()) for g, u in zip(grad, unit))
        assert abs(slope - projected) <= 1e-3 * norm, (slope, projected, norm)
    midpoint = [(np.asarray(b, np.float64) + a) / 2 for b, a in zip(before, after)]
    unit = [g / norm for g in grad]
    fall = mean_loss(before, images, labels, relu) - mean_loss(after, images, labels, relu)
    expected = learning_rate * norm * _slope(midpoint, unit, images, labels, relu)
    assert abs(fall - expected) <= 2e-3 * abs(expected), (fall, expected)


def _slope(params, unit, images, labels, relu, h=1e-4):
    """The derivative of mean_loss at `params` along the unit direction `unit`."""
    def along(t):
        return mean_loss([np.asarray(p, np.float64) + t * u for p, u in zip(params, unit)],
                         images, labels, relu)

    return (along(h) - along(-h)) / (2 * h)

