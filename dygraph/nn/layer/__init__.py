"""The Layer classes of dygraph.nn, one module per kind."""
