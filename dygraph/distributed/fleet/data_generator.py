"""Data generators of fleet: turn raw lines into Paddle's MultiSlot text format, one sample
a line, each slot written as its element count followed by the elements
("3 1926 8 17 1 1" for words [1926, 8, 17] and label [1]).

Subclass one, write `generate_sample(line)` (a function returning an iterator of samples,
each a list of (slot name, [values])), optionally `generate_batch(samples)`, then call
`run_from_stdin()` (a pipe command of a dataset) or `run_from_memory()`.

Example:
    >>> class Words(MultiSlotDataGenerator):
    ...     def generate_sample(self, line):
    ...         def samples():
    ...             yield [("words", [int(w) for w in line.split()]), ("label", [1])]
    ...         return samples
    >>> Words()._gen_str([("words", [1926, 8, 17]), ("label", [1])])
    '3 1926 8 17 1 1\\n'
"""

import sys

__all__ = ["DataGenerator", "MultiSlotDataGenerator", "MultiSlotStringDataGenerator"]


class DataGenerator:
    """The base of the generators: batching and the two ways to run.

    Example:
        >>> g = MultiSlotDataGenerator(); g.set_batch(64); g.batch_size_
        64
    """

    def __init__(self):
        self._proto_info = None
        self.batch_size_ = 32

    def set_batch(self, batch_size):
        """Samples handed to generate_batch at a time."""
        self.batch_size_ = batch_size

    def generate_sample(self, line):
        """Override: a function returning an iterator of samples parsed from `line`."""
        raise NotImplementedError(
            "generate_sample: override it to return a function that yields samples, each "
            "[(slot name, [values]), ...]")

    def generate_batch(self, samples):
        """Override to process a batch of samples (padding, say); yields them unchanged."""
        def batch():
            yield from samples
        return batch

    def _gen_str(self, line):
        raise NotImplementedError("use MultiSlotDataGenerator or MultiSlotStringDataGenerator")

    def _emit(self, lines):
        pending = []
        for line in lines:
            for sample in self.generate_sample(line)():
                if sample is None:
                    continue
                pending.append(sample)
                if len(pending) == self.batch_size_:
                    self._write(pending)
                    pending = []
        if pending:
            self._write(pending)

    def _write(self, samples):
        for sample in self.generate_batch(samples)():
            sys.stdout.write(self._gen_str(sample))

    def run_from_stdin(self):
        """Parse every line of standard input and write the samples to standard output."""
        self._emit(sys.stdin)

    def run_from_memory(self):
        """Write the samples generate_sample(None) yields (for tests and benchmarks)."""
        self._emit([None])


def _slots(line):
    if isinstance(line, zip):
        line = list(line)
    if not isinstance(line, (list, tuple)):
        raise ValueError(f"a sample should be a list or tuple of (slot name, [values]), got "
                         f"{type(line).__name__}")
    return line


def _check_slot(name, elements):
    if not isinstance(name, str):
        raise ValueError(f"slot name {name!r} should be a str")
    if not isinstance(elements, list):
        raise ValueError(f"slot {name!r}: the values should be a list, got "
                         f"{type(elements).__name__}")
    if not elements:
        raise ValueError(f"slot {name!r} is empty; pad it in generate_sample")


class MultiSlotDataGenerator(DataGenerator):
    """Slots of ints (uint64 ids) or floats; the first sample fixes the slot names, and a
    slot with a float in any sample is a float slot.

    Example:
        >>> g = MultiSlotDataGenerator()
        >>> g._gen_str([("x", [1, 2]), ("y", [0.5])]), g._proto_info
        ('2 1 2 1 0.5\\n', [('x', 'uint64'), ('y', 'float')])
    """

    def _gen_str(self, line):
        line = _slots(line)
        first = self._proto_info is None
        if first:
            self._proto_info = []
        elif len(line) != len(self._proto_info):
            raise ValueError(f"this sample has {len(line)} slots, the first had "
                             f"{len(self._proto_info)}")
        parts = []
        for index, (name, elements) in enumerate(line):
            _check_slot(name, elements)
            if first:
                self._proto_info.append((name, "uint64"))
            elif name != self._proto_info[index][0]:
                raise ValueError(f"slot {index} is {name!r}, but the first sample named it "
                                 f"{self._proto_info[index][0]!r}")
            for elem in elements:
                if isinstance(elem, float):
                    self._proto_info[index] = (name, "float")
                elif not isinstance(elem, int):
                    raise ValueError(f"slot {name!r}: values should be int or float, got "
                                     f"{type(elem).__name__}")
            parts.append(" ".join([str(len(elements))] + [str(e) for e in elements]))
        return " ".join(parts) + "\n"


class MultiSlotStringDataGenerator(DataGenerator):
    """Slots of strings, written as they are.

    Example:
        >>> MultiSlotStringDataGenerator()._gen_str([("w", ["a", "b"]), ("l", ["1"])])
        '2 a b 1 1\\n'
    """

    def _gen_str(self, line):
        parts = []
        for _, elements in _slots(line):
            parts.append(" ".join([str(len(elements))] + list(elements)))
        return " ".join(parts) + "\n"
