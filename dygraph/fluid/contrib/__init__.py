"""fluid.contrib: the contributed 1.x helpers dygraph code uses (reader)."""

from dygraph.fluid.contrib import reader
