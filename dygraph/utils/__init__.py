"""dygraph.utils: helpers outside the op library (unique_name)."""

from dygraph.utils import unique_name
