"""dygraph.utils (`paddle.utils`): unique_name, try_import, deprecated, run_check and
require_version.

Example:
    >>> from dygraph.utils import try_import, unique_name
    >>> unique_name.generate('fc').startswith('fc')
    True
"""

from dygraph.utils import unique_name
from dygraph.utils.deprecated import deprecated
from dygraph.utils.install_check import run_check
from dygraph.utils.lazy_import import try_import
from dygraph.utils.require_version import require_version

__all__ = ["unique_name", "try_import", "deprecated", "run_check", "require_version"]
