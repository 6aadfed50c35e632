"""Whole-sequence recurrent ops (SimpleRNN, LSTM, GRU) and their fused gates."""
