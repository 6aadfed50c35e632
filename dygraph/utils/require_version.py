"""`paddle.utils.require_version`: fail early when the API is older or newer than a script
was written for.

The version compared is that of the PaddlePaddle API DyGraph implements (PADDLE_API,
the release its behaviour is checked against), not DyGraph's own package version: a
script asking for Paddle 2.0 or later is asking for that API.

Example:
    >>> require_version('2.0.0')
    >>> require_version('1.8', '2.6')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    Exception: VersionError: PaddlePaddle version in [1.8, 2.6] required, but ... installed.
"""

import re

__all__ = ["require_version", "PADDLE_API"]

# The PaddlePaddle release whose API DyGraph follows: major, minor, patch, rc.
PADDLE_API = ("3", "3", "1", "0")
_FORMAT = re.compile(r"\d+(\.\d+){0,3}")


def _parts(text, what):
    if not isinstance(text, str):
        kinds = "str" if what == "min_version" else "str or type(None)"
        raise TypeError(f"The type of '{what}' in require_version must be {kinds}, but "
                        f"received {type(text)}.")
    if _FORMAT.fullmatch(text) is None:
        raise ValueError(f"The value of '{what}' in require_version must be in format "
                         f"'\\d+(\\.\\d+){{0,3}}', like '1.5.2.0', but received {text}")
    parts = [int(p) for p in text.split(".")]
    return parts + [0] * (4 - len(parts))


def require_version(min_version, max_version=None):
    """Raise an Exception unless the PaddlePaddle API version DyGraph implements lies in
    [min_version, max_version] (no upper bound when max_version is None). Versions are
    1 to 4 dot-separated numbers; missing parts count as 0.

    Example:
        >>> require_version('3.0')
    """
    low = _parts(min_version, "min_version")
    high = None if max_version is None else _parts(max_version, "max_version")
    have = [int(p) for p in PADDLE_API]
    installed = ".".join(PADDLE_API[:3])
    if high is not None:
        if have > high or have < low:
            # Paddle raises a plain Exception with this text; callers catch that type
            raise Exception(f"VersionError: PaddlePaddle version in [{min_version}, "
                            f"{max_version}] required, but {installed} installed.")
    elif have < low:
        raise Exception(f"VersionError: PaddlePaddle version {min_version} or higher is "
                        f"required, but {installed} installed, please upgrade your "
                        f"PaddlePaddle to {min_version} or other higher version.")
