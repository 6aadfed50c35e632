"""Normalization ops: batch, layer, group, instance norm and their sums."""
