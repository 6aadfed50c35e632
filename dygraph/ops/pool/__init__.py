"""Pooling ops and the window loops behind them."""
