"""Where the examples write their checkpoints, images and plots by default: a folder per
example under the DyGraph home, outside the directory they are run from, so that running an
example in a checkout leaves it clean.

The home is `$DYGRAPH_HOME` when set, else `$XDG_CACHE_HOME/dygraph`, else
`~/.cache/dygraph` (the order Paddle's hub uses for `$PADDLE_HOME`), and the example's folder
is `<home>/examples/<example>`; the datasets live beside it (`$DYGRAPH_HOME/<name>/`, by
default `~/.cache/dygraph/dataset/<name>/`, see `dygraph.vision.datasets`). A `--save-dir`
given on the command line is used as it is.

Example:
    >>> import os
    >>> output_dir('mnist') == os.path.join(dygraph_home(), 'examples', 'mnist')
    True
    >>> output_dir('mnist', 'my_run')  # an explicit folder wins
    'my_run'
"""

import os

__all__ = ["dygraph_home", "output_dir"]


def dygraph_home():
    """The DyGraph home: $DYGRAPH_HOME, else $XDG_CACHE_HOME/dygraph, else ~/.cache/dygraph
    (an absolute path; nothing is created).

    Example:
        >>> import os
        >>> os.path.isabs(dygraph_home())
        True
    """
    home = os.environ.get("DYGRAPH_HOME")
    if not home:
        cache = os.environ.get("XDG_CACHE_HOME") or os.path.join("~", ".cache")
        home = os.path.join(cache, "dygraph")
    return os.path.abspath(os.path.expanduser(home))


def output_dir(example, save_dir=None):
    """The folder example `example` writes to: `save_dir` when given (as given), else
    `<dygraph_home()>/examples/<example>`. Nothing is created.

    Example:
        >>> output_dir('mnist').endswith(os.path.join('examples', 'mnist'))
        True
    """
    if save_dir:
        return save_dir
    return os.path.join(dygraph_home(), "examples", example)
