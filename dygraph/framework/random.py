"""The global random generator behind every random op; `seed(n)` makes runs reproducible.

Example:
    >>> import dygraph
    >>> _ = dygraph.seed(7); a = dygraph.rand([2]).numpy()
    >>> _ = dygraph.seed(7); bool((a == dygraph.rand([2]).numpy()).all())
    True
"""

import numpy as np

__all__ = ["seed", "get_rng_state", "set_rng_state", "Generator"]


class Generator:
    """A seeded stream of random numbers (NumPy's PCG64 underneath)."""

    def __init__(self, seed_value=None):
        self.manual_seed(seed_value)

    def manual_seed(self, seed_value):
        self.initial_seed = seed_value
        self.rng = np.random.default_rng(seed_value)
        return self

    def get_state(self):
        return self.rng.bit_generator.state

    def set_state(self, state):
        self.rng.bit_generator.state = state


default_generator = Generator(None)


def seed(value):
    """Seed every random op (creation, dropout, initializers, shuffling). Returns the generator.

    Example:
        >>> seed(2024).initial_seed
        2024
    """
    return default_generator.manual_seed(int(value))


def get_rng_state():
    """The generator's state, to restore later with set_rng_state."""
    return [default_generator.get_state()]


def set_rng_state(state):
    default_generator.set_state(state[0] if isinstance(state, list) else state)


def rng():
    """The NumPy Generator the ops draw from."""
    return default_generator.rng
