"""fluid.unique_name: the 1.x home of dygraph.utils.unique_name."""

from dygraph.utils.unique_name import *  # noqa: F401,F403
from dygraph.utils.unique_name import __all__  # noqa: F401
