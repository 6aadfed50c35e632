"""Loading damaged or hostile checkpoints: thousands of mutated files, none of which may crash
the process, raise anything but ValueError, allocate more than a small multiple of the
file's size, or take more than a second.

Besides random byte flips and truncations, the mutations rewrite the length fields and the
JSON header and then re-sign them (recompute the CRC32s), as an attacker would, so the
loader's checks behind the CRCs are exercised too.
"""

import io
import json
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


def _mutations(data, rng):
    fields, header, payload = _split(data)
    table = json.loads(header)
    for _ in range(1200):  # random byte flips
        b = bytearray(data)
        for pos in rng.integers(0, len(b), rng.integers(1, 5)):
            b[pos] ^= int(rng.integers(1, 256))
        yield bytes(b)
    for cut in rng.integers(0, len(data), 600):  # truncations
        yield data[:cut]
    for header_len in HUGE:  # re-signed length claims
        for payload_len in HUGE:
            fake = (fields[0], fields[1], header_len, payload_len) + fields[4:]
            yield _assemble(fake, header, payload, keep_lengths=True)
    keys = ("shape", "offset", "nbytes", "dtype")
    values = [-1, 0, 1 << 40, 1 << 62, [1 << 31, 1 << 31], [1 << 62, 4], [-3], "float32",
              "object", None, [], [[1]], 1.5, "x" * 10]
    for _ in range(900):  # re-signed header edits
        edited = json.loads(header)
        entry = edited["arrays"][int(rng.integers(0, len(table["arrays"])))]
        entry[keys[int(rng.integers(0, len(keys)))]] = values[int(rng.integers(0, len(values)))]
        if rng.random() < 0.3:
            edited["root"] = {"type": "tensor", "array": int(rng.integers(-2, 9))}
        yield _assemble(fields, json.dumps(edited).encode(), payload)
    yield _assemble(fields, b"[" * 100000 + b"]" * 100000, payload)  # deep nesting
    for size in (1, 64, 200, 5000):  # garbage with the right magic
        yield ckpt.MAGIC + rng.integers(0, 256, size, dtype=np.uint8).tobytes()


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
    rng = np.random.default_rng(1)
    outcomes = {"loaded": 0, "refused": 0}
    slowest = 0.0
    tracemalloc.start()
    try:
        for i, mutated in enumerate(_mutations(data, rng)):
            stream = _Unseekable(mutated) if i % 3 == 0 else io.BytesIO(mutated)
            tracemalloc.reset_peak()
            start = time.perf_counter()
            try:
                dygraph.load(stream)
                outcomes["loaded"] += 1
            except ValueError as exc:
                assert str(exc).startswith("dygraph.load:"), exc
                outcomes["refused"] += 1
            slowest = max(slowest, time.perf_counter() - start)
            peak = tracemalloc.get_traced_memory()[1]
            assert peak < 16 * len(mutated) + (4 << 20), (i, peak, len(mutated))
    finally:
        tracemalloc.stop()
    assert slowest < 1.0
    assert outcomes["refused"] > 2500, outcomes


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
