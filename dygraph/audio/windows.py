"""`get_window`: the window functions of `paddle.audio.functional` (SciPy's definitions,
as Paddle's), computed in float64 with NumPy and returned as a Tensor of `dtype`.

A window is periodic (`fftbins=True`, for spectra: a symmetric window one longer, its
last sample dropped) or symmetric (for filter design). Windows with parameters are named
by a tuple: ('kaiser', beta), ('gaussian', std), ('general_gaussian', p, sig),
('exponential', center, tau), ('tukey', alpha), ('taylor', nbar, sll, norm).

Example:
    >>> get_window('hann', 4).numpy()
    array([0. , 0.5, 1. , 0.5])
"""

import numpy as np

__all__ = ["get_window"]


def _general_cosine(m, coefficients):
    fac = np.linspace(-np.pi, np.pi, m)
    return sum(a * np.cos(k * fac) for k, a in enumerate(coefficients))


def _hann(m):
    return _general_cosine(m, (0.5, 0.5))


def _hamming(m):
    return _general_cosine(m, (0.54, 0.46))


def _blackman(m):
    return _general_cosine(m, (0.42, 0.50, 0.08))


def _nuttall(m):
    return _general_cosine(m, (0.3635819, 0.4891775, 0.1365995, 0.0106411))


def _bartlett(m):
    n = np.arange(m)
    half = 2.0 * n / (m - 1)
    return np.where(n <= (m - 1) / 2.0, half, 2.0 - half)


def _triang(m):
    n = np.arange(1, (m + 1) // 2 + 1)
    if m % 2 == 0:
        w = (2.0 * n - 1.0) / m
        return np.concatenate([w, w[::-1]])
    w = 2.0 * n / (m + 1.0)
    return np.concatenate([w, w[-2::-1]])


def _bohman(m):
    fac = np.abs(np.linspace(-1, 1, m)[1:-1])
    w = (1 - fac) * np.cos(np.pi * fac) + np.sin(np.pi * fac) / np.pi
    return np.concatenate([[0.0], w, [0.0]])


def _cosine(m):
    return np.sin(np.pi / m * (np.arange(m) + 0.5))


def _kaiser(m, beta):
    n = np.arange(m)
    alpha = (m - 1) / 2.0
    return np.i0(beta * np.sqrt(1 - ((n - alpha) / alpha) ** 2.0)) / np.i0(float(beta))


def _gaussian(m, std):
    n = np.arange(m) - (m - 1.0) / 2.0
    return np.exp(-n ** 2 / (2 * std * std))


def _general_gaussian(m, p, sig):
    n = np.arange(m) - (m - 1.0) / 2.0
    return np.exp(-0.5 * np.abs(n / sig) ** (2 * p))


def _tukey(m, alpha=0.5):
    if alpha <= 0:
        return np.ones(m)
    if alpha >= 1.0:
        return _hann(m)
    n = np.arange(m)
    width = int(np.floor(alpha * (m - 1) / 2.0))
    n1, n3 = n[:width + 1], n[m - width - 1:]
    w1 = 0.5 * (1 + np.cos(np.pi * (-1 + 2.0 * n1 / alpha / (m - 1))))
    w3 = 0.5 * (1 + np.cos(np.pi * (-2.0 / alpha + 1 + 2.0 * n3 / alpha / (m - 1))))
    return np.concatenate([w1, np.ones(m - len(w1) - len(w3)), w3])


def _taylor(m, nbar=4, sll=30, norm=True):
    """Taylor's window: nbar - 1 nearly constant sidelobes `sll` dB below the main lobe."""
    b = 10 ** (sll / 20)
    a = np.arccosh(b) / np.pi
    s2 = nbar ** 2 / (a ** 2 + (nbar - 0.5) ** 2)
    ma = np.arange(1, nbar)
    m2 = ma ** 2.0
    signs = np.where(ma % 2 == 1, 1.0, -1.0)
    fm = np.empty(nbar - 1)
    for i in range(nbar - 1):
        numer = signs[i] * np.prod(1 - m2[i] / s2 / (a ** 2 + (ma - 0.5) ** 2))
        denom = 2 * np.prod(1 - m2[i] / m2[:i]) * np.prod(1 - m2[i] / m2[i + 1:])
        fm[i] = numer / denom

    def w(n):
        return 1 + 2 * np.cos(2 * np.pi * ma[:, None] * (n - m / 2.0 + 0.5) / m).T @ fm

    values = w(np.arange(m))
    return values / w(np.array([(m - 1) / 2.0]))[0] if norm else values


def _exponential(m, center=None, tau=1.0, sym=True):
    if sym and center is not None:
        raise ValueError("If sym==True, center must be None.")
    if center is None:
        center = (m - 1) / 2
    return np.exp(-np.abs(np.arange(m) - center) / tau)


_WINDOWS = {"hann": _hann, "hamming": _hamming, "blackman": _blackman, "nuttall": _nuttall,
            "bartlett": _bartlett, "triang": _triang, "bohman": _bohman, "cosine": _cosine,
            "kaiser": _kaiser, "gaussian": _gaussian, "general_gaussian": _general_gaussian,
            "tukey": _tukey, "taylor": _taylor, "exponential": _exponential}
_NEED_PARAMETERS = ("gaussian", "exponential", "kaiser")


def get_window(window, win_length, fftbins=True, dtype="float64"):
    """The window `window` (a name, or a tuple of a name and its parameters) of
    `win_length` samples, periodic when `fftbins` else symmetric, as a Tensor of `dtype`.
    Names: hamming, hann, gaussian, general_gaussian, exponential, triang, bohman,
    blackman, cosine, tukey, taylor, bartlett, kaiser, nuttall.

    Example:
        >>> get_window(('kaiser', 8.0), 5, fftbins=False).numpy().round(4)
        array([0.0023, 0.369 , 1.    , 0.369 , 0.0023])
    """
    import dygraph

    if isinstance(window, tuple):
        name, args = window[0], window[1:]
    elif isinstance(window, str):
        if window in _NEED_PARAMETERS:
            raise ValueError(f"The '{window}' window needs one or more parameters -- pass a "
                             "tuple.")
        name, args = window, ()
    else:
        raise ValueError(f"{type(window)} as window type is not supported.")
    function = _WINDOWS.get(name)
    if function is None:
        raise ValueError(f"Unknown window type {name!r}; known: {sorted(_WINDOWS)}")
    if isinstance(win_length, bool) or int(win_length) != win_length or win_length < 0:
        raise ValueError(f"get_window: win_length must be a non-negative integer, got "
                         f"{win_length!r}")
    sym = not fftbins
    m = int(win_length)
    if m <= 1:
        values = np.ones(m)
    else:
        length = m if sym else m + 1  # periodic: one more, the last dropped
        extra = {"sym": sym} if function is _exponential else {}
        values = function(length, *args, **extra)[:m]
    return dygraph.to_tensor(np.asarray(values, np.float64), dtype=dtype)
