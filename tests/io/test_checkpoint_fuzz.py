"""Loading damaged or hostile checkpoints: thousands of mutated files, none of which may crash
the process, raise anything but ValueError, allocate more than a small multiple of the
file's size, or take more than a second.

Random byte flips and truncations must be refused by the check that guards the damaged part:
a flip in the preamble's fields by the preamble's CRC32, in the header by the header's, in
the array data by the payload's (a flip that only touches zero padding loads the original
contents), a truncation by the length checks. Besides those, the mutations rewrite the
length fields and the JSON header and then re-sign them (recompute the CRC32s), as an
attacker would, so the loader's checks behind the CRCs are exercised too.
"""

import io
import json
import re
import struct
import time
import tracemalloc
import zlib

import numpy as np
import pytest

import dygraph
from dygraph.io import checkpoint as ckpt

HUGE = [0, 1, 63, 4096, 1 << 30, 3 << 30, (1 << 31) + 7, 1 << 62, (1 << 64) - 1]


def _sample():
    buffer = io.BytesIO()
    rng = np.random.default_rng(0)
    dygraph.save({"w": dygraph.to_tensor(rng.standard_normal((16, 8)).astype(np.float32)),
                  "idx": np.arange(5, dtype=np.int64), "meta": {"lr": 0.1, "tags": ["a", "b"]},
                  "flags": (True, None, 3)}, buffer)
    return buffer.getvalue()


def _split(data):
    fields = ckpt._FIELDS.unpack_from(data)
    header_len = fields[2]
    header = data[ckpt._PREAMBLE_SIZE:ckpt._PREAMBLE_SIZE + header_len]
    payload = data[ckpt._PREAMBLE_SIZE + header_len + ckpt._pad(header_len):]
    return fields, header, payload


def _assemble(fields, header, payload, keep_lengths=False):
    """A file with `header` and `payload` under CRCs that match them (re-signed)."""
    magic, version, header_len, payload_len, _, _ = fields
    if not keep_lengths:
        header_len, payload_len = len(header), len(payload)
    packed = ckpt._FIELDS.pack(magic, version, header_len, payload_len, zlib.crc32(header),
                               zlib.crc32(payload))
    preamble = packed + struct.pack("<I", zlib.crc32(packed))
    preamble += b"\0" * (ckpt._PREAMBLE_SIZE - len(preamble))
    return preamble + header + b"\0" * ckpt._pad(len(header)) + payload


def _regions(data):
    """(start, end, the error a flip there must raise) for each checked part of the file, in
    the order the loader checks them; bytes outside every region are zero padding."""
    header_len = ckpt._FIELDS.unpack_from(data)[2]
    header_start = ckpt._PREAMBLE_SIZE
    payload_start = header_start + header_len + ckpt._pad(header_len)
    return [(0, len(ckpt.MAGIC), "not a DyGraph checkpoint"),
            (len(ckpt.MAGIC), ckpt._FIELDS.size + 4, r"the preamble is corrupt \(CRC32 mismatch\)"),
            (header_start, header_start + header_len,
             r"the header is corrupt \(CRC32 mismatch\)"),
            (payload_start, len(data), r"the array data is corrupt \(CRC32 mismatch\)")]


# What a mutation must do besides failing cleanly: raise an error matching a pattern (a
# str), load the original contents (INTACT), or either (None).
INTACT = "loads the original contents"


def _flip_outcome(data, mutated):
    """The error a file with some bytes of `data` flipped must raise, or INTACT when only
    padding changed."""
    changed = np.flatnonzero(np.frombuffer(data, np.uint8) != np.frombuffer(mutated, np.uint8))
    for start, end, error in _regions(data):
        if ((changed >= start) & (changed < end)).any():
            return error
    return INTACT


def _truncation_error(data, cut, seekable):
    """The error a file cut to `cut` bytes must raise."""
    if cut == 0:
        return "the file is empty"
    if cut < ckpt._PREAMBLE_SIZE:
        return f"the file is truncated: {cut} bytes, shorter than the"
    if seekable:
        return "the file is truncated or damaged: its preamble claims"
    return "the file is truncated: it ends inside the (header|array data)"


def _mutations(data, rng):
    """(mutated file, what it must do: see INTACT; for truncations a function of the data,
    the cut and whether the stream seeks that gives the error)."""
    fields, header, payload = _split(data)
    table = json.loads(header)
    for _ in range(1200):  # random byte flips, not re-signed
        b = bytearray(data)
        for pos in rng.integers(0, len(b), rng.integers(1, 5)):
            b[pos] ^= int(rng.integers(1, 256))
        yield bytes(b), _flip_outcome(data, bytes(b))
    for cut in rng.integers(0, len(data), 600):  # truncations
        yield data[:cut], _truncation_error
    for header_len in HUGE:  # re-signed length claims
        for payload_len in HUGE:
            fake = (fields[0], fields[1], header_len, payload_len) + fields[4:]
            yield _assemble(fake, header, payload, keep_lengths=True), None
    keys = ("shape", "offset", "nbytes", "dtype")
    values = [-1, 0, 1 << 40, 1 << 62, [1 << 31, 1 << 31], [1 << 62, 4], [-3], "float32",
              "object", None, [], [[1]], 1.5, "x" * 10]
    for _ in range(900):  # re-signed header edits
        edited = json.loads(header)
        entry = edited["arrays"][int(rng.integers(0, len(table["arrays"])))]
        entry[keys[int(rng.integers(0, len(keys)))]] = values[int(rng.integers(0, len(values)))]
        if rng.random() < 0.3:
            edited["root"] = {"type": "tensor", "array": int(rng.integers(-2, 9))}
        yield _assemble(fields, json.dumps(edited).encode(), payload), None
    yield _assemble(fields, b"[" * 100000 + b"]" * 100000, payload), None  # deep nesting
    for size in (1, 64, 200, 5000):  # garbage with the right magic
        yield ckpt.MAGIC + rng.integers(0, 256, size, dtype=np.uint8).tobytes(), None


def _assert_same(loaded, original):
    """The nests are equal: same containers and keys, same Tensor and array values."""
    assert type(loaded) is type(original)
    if isinstance(original, dict):
        assert list(loaded) == list(original)
        for key in original:
            _assert_same(loaded[key], original[key])
    elif isinstance(original, (list, tuple)):
        assert len(loaded) == len(original)
        for a, b in zip(loaded, original):
            _assert_same(a, b)
    elif isinstance(original, (dygraph.Tensor, np.ndarray)):
        a, b = np.asarray(loaded), np.asarray(original)
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tobytes() == b.tobytes()
    else:
        assert loaded == original


class _Unseekable(io.RawIOBase):
    """A pipe-like stream: readable, no seek, so no size is known in advance."""

    def __init__(self, data):
        self._inner = io.BytesIO(data)

    def readable(self):
        return True

    def readinto(self, b):
        return self._inner.readinto(b)


@pytest.mark.timeout(60)
def test_mutated_checkpoints_fail_cleanly_fast_and_small():
    data = _sample()
    original = dygraph.load(io.BytesIO(data))
    rng = np.random.default_rng(1)
    outcomes = {"loaded": 0, "refused": 0, "loaded intact": 0}
    by_check = dict.fromkeys(error for _, _, error in _regions(data))
    slowest = 0.0
    tracemalloc.start()
    try:
        for i, (mutated, expected) in enumerate(_mutations(data, rng)):
            seekable = i % 3 != 0
            stream = io.BytesIO(mutated) if seekable else _Unseekable(mutated)
            if callable(expected):
                expected = expected(data, len(mutated), seekable)
            tracemalloc.reset_peak()
            start = time.perf_counter()
            try:
                loaded = dygraph.load(stream)
            except ValueError as exc:
                assert str(exc).startswith("dygraph.load:"), exc
                assert expected in (None, INTACT) or re.search(expected, str(exc)), \
                    (i, expected, exc)
                assert expected != INTACT, (i, exc)
                outcomes["refused"] += 1
                if expected in by_check:
                    by_check[expected] = (by_check[expected] or 0) + 1
            else:
                assert expected in (None, INTACT), (i, f"loaded, but must raise {expected!r}")
                if expected == INTACT:
                    _assert_same(loaded, original)
                    outcomes["loaded intact"] += 1
                outcomes["loaded"] += 1
            slowest = max(slowest, time.perf_counter() - start)
            peak = tracemalloc.get_traced_memory()[1]
            assert peak < 16 * len(mutated) + (4 << 20), (i, peak, len(mutated))
    finally:
        tracemalloc.stop()
    assert slowest < 1.0
    assert outcomes["refused"] > 2500, outcomes
    # Every check was hit by many flips (the regions are tens to hundreds of bytes long), and
    # some flips hit only padding.
    assert all(count and count > 20 for count in by_check.values()), by_check
    assert outcomes["loaded intact"] > 0, outcomes


@pytest.mark.parametrize("part", ["preamble", "header", "array data"])
def test_a_flipped_byte_is_refused_by_the_crc32_of_its_part(part):
    data = _sample()
    start, end, error = next(region for region in _regions(data) if part in region[2])
    damaged = bytearray(data)
    damaged[(start + end) // 2] ^= 0x10
    with pytest.raises(ValueError, match=f"the {part} is corrupt \\(CRC32 mismatch\\)"):
        dygraph.load(io.BytesIO(bytes(damaged)))


def test_only_the_payload_crc32_stands_between_a_flipped_weight_and_the_model():
    # Re-signed, the same flip loads: a silently different weight, which the CRC refuses.
    data = _sample()
    fields, header, payload = _split(data)
    flipped = bytearray(payload)
    flipped[4 * 17] ^= 0x40  # w[2, 1], a float32 in the first array
    loaded = dygraph.load(io.BytesIO(_assemble(fields, header, bytes(flipped))))
    original = dygraph.load(io.BytesIO(data))
    assert loaded["w"].numpy()[2, 1] != original["w"].numpy()[2, 1]
    damaged = data[:len(data) - len(payload)] + bytes(flipped)
    with pytest.raises(ValueError, match=r"array data is corrupt \(CRC32 mismatch\)"):
        dygraph.load(io.BytesIO(damaged))


@pytest.mark.parametrize("claim", [1 << 30, 3 << 30, 1 << 62])
def test_small_file_claiming_gigabytes_is_refused_without_allocating(tmp_path, claim):
    fields, header, payload = _split(_sample())
    fake = (fields[0], fields[1], fields[2], claim) + fields[4:]
    path = tmp_path / "hostile.pdparams"
    path.write_bytes(_assemble(fake, header, payload, keep_lengths=True))
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="hostile.pdparams.*claims"):
            dygraph.load(str(path))
        assert tracemalloc.get_traced_memory()[1] < 1 << 20
    finally:
        tracemalloc.stop()


def test_loading_a_directory_says_so(tmp_path):
    (tmp_path / "m.pdparams").mkdir()
    with pytest.raises(ValueError, match="is a directory"):
        dygraph.load(str(tmp_path / "m.pdparams"))
    import dygraph.fluid as fluid

    with pytest.raises(ValueError, match="is a directory"):
        fluid.load_dygraph(str(tmp_path / "m"))


def test_fluid_has_save_and_load_dygraph_at_the_top_level(tmp_path):
    import dygraph.fluid as fluid

    with fluid.dygraph.guard():
        layer = fluid.dygraph.Linear(2, 3)
        fluid.save_dygraph(layer.state_dict(), str(tmp_path / "m"))
        params, opt_state = fluid.load_dygraph(str(tmp_path / "m"))
    assert sorted(params) == ["bias", "weight"] and opt_state is None
    np.testing.assert_array_equal(params["weight"], layer.weight.numpy())
