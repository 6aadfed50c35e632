"""Mode queries of paddle.framework."""

import dygraph


def test_in_pir_mode_follows_static_mode():
    """Paddle's tests branch on paddle.framework.in_pir_mode(): True in static mode."""
    assert dygraph.framework.in_pir_mode() is False
    assert dygraph.base.framework.in_pir_mode() is False
    dygraph.enable_static()
    try:
        assert dygraph.framework.in_pir_mode() is True
    finally:
        dygraph.disable_static()
