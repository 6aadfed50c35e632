"""The builders of dygraph.static.nn (Paddle's paddle.static.nn)."""
