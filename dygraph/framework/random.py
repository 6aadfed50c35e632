"""The global random generator behind every random op; `seed(n)` makes runs reproducible.

Example:
    >>> import dygraph
    >>> _ = dygraph.seed(7); a = dygraph.rand([2]).numpy()
    >>> _ = dygraph.seed(7); bool((a == dygraph.rand([2]).numpy()).all())
    True
"""

import numpy as np

__all__ = ["seed", "get_rng_state", "set_rng_state", "get_cuda_rng_state", "set_cuda_rng_state",
           "Generator"]


class Generator:
    """A seeded stream of random numbers (NumPy's PCG64 underneath).

    `Generator(5)` seeds it; Paddle's `Generator(device)` form (a device string or place)
    is accepted too and starts unseeded, since the values are drawn on the host.

    Example:
        >>> g = Generator().manual_seed(3)
        >>> g.initial_seed(), Generator(3).random() == g.random()
        (3, True)
    """

    def __init__(self, seed_value=None):
        if not isinstance(seed_value, (int, np.integer)) or isinstance(seed_value, bool):
            seed_value = None  # a device: every generator draws on the host
        self.manual_seed(seed_value)

    def manual_seed(self, seed_value):
        self._seed = seed_value
        self.rng = np.random.default_rng(seed_value)
        # Counts the seedings, so that the GPUs' counter streams (backend.device_random)
        # know to start again from the new seed.
        self.seedings = getattr(self, "seedings", 0) + 1
        return self

    def initial_seed(self):
        """The seed given last (None when seeded from the OS)."""
        return self._seed

    def seed(self):
        """Reseed from the OS and return the new seed."""
        value = int(np.random.SeedSequence().entropy % (2 ** 63))
        self.manual_seed(value)
        return value

    def random(self):
        """A random 64-bit unsigned integer from the stream."""
        return int(self.rng.integers(0, 2 ** 64, dtype=np.uint64))

    def get_state(self):
        return self.rng.bit_generator.state

    def set_state(self, state):
        self.rng.bit_generator.state = state


default_generator = Generator(None)


def seed(value):
    """Seed every random op (creation, dropout, initializers, shuffling). Returns the generator.

    Example:
        >>> seed(2024).initial_seed()
        2024
    """
    generator = default_generator.manual_seed(int(value))
    # The GPUs' streams start over now, not at their next draw: that draw may be inside a
    # CUDA graph capture, which cannot hold the copy of the new key from the host.
    from dygraph.backend import device_random

    device_random.restart()
    return generator


def get_rng_state():
    """The generator's state, to restore later with set_rng_state: the host generator's,
    then each GPU's counter stream that has drawn (backend/device_random.py).

    Example:
        >>> state = get_rng_state(); a = default_generator.random()
        >>> set_rng_state(state); a == default_generator.random()
        True
    """
    from dygraph.backend import device_random

    return [default_generator.get_state()] + device_random.get_states()


def set_rng_state(state):
    """Restore what get_rng_state returned (a host generator state alone is taken too)."""
    if not isinstance(state, list):
        state = [state]
    default_generator.set_state(state[0])
    if len(state) > 1:
        from dygraph.backend import device_random

        device_random.set_states(state[1:])


def rng():
    """The NumPy Generator the ops draw from."""
    return default_generator.rng


def get_cuda_rng_state():
    """The GPUs' random streams (backend/device_random.py), one state per GPU that has
    drawn ([] where none has), to restore later with set_cuda_rng_state.

    Example:
        >>> isinstance(get_cuda_rng_state(), list)
        True
    """
    from dygraph.backend import device_random

    return device_random.get_states()


def set_cuda_rng_state(state_list):
    """Put the GPUs' random streams back where get_cuda_rng_state found them.

    Example:
        >>> set_cuda_rng_state(get_cuda_rng_state())
    """
    from dygraph.backend import device_random

    device_random.set_states(list(state_list))
