"""Tests of the runnable examples (the MNIST main job)."""
