"""The restricted unpickler against hostile and damaged data pickles: whatever a file
claims, loading it allocates no more than a small multiple of its size, and a bad file
raises ValueError naming the file and the offending field. Legitimate pickles (every
protocol NumPy pickles arrays with in-band, Python 2's strings) load exactly.

The hostile pickles are assembled opcode by opcode, as an attacker would write them.
"""

import io
import pickle
import pickletools
import struct
import tarfile
import time
import tracemalloc

import numpy as np
import pytest

from dygraph.vision.datasets import Cifar10
from dygraph.vision.datasets.safe_pickle import UnsafePickleError, safe_load
from tests.vision.test_cifar_flowers import add_member, cifar_archive, images

MULTIARRAY = "numpy.core.multiarray"


def glob(module, name):
    return b"c" + f"{module}\n{name}\n".encode()


def text(value):
    data = value.encode()
    return b"X" + struct.pack("<I", len(data)) + data


def raw(data):
    return b"B" + struct.pack("<I", len(data)) + data


def num(value):
    """An int opcode; LONG1 for values beyond 32 bits."""
    if -(1 << 31) <= value < 1 << 31:
        return b"J" + struct.pack("<i", value)
    data = value.to_bytes((value.bit_length() + 8) // 8, "little", signed=True)
    return b"\x8a" + bytes([len(data)]) + data


def tup(*items):
    return b"(" + b"".join(items) + b"t"


def call(func, *args):
    return func + tup(*args) + b"R"


def dtype(code, flags=None):
    """numpy.dtype(code) with the state NumPy pickles for it (`flags` overriding its flags)."""
    try:
        state = np.dtype(code).__reduce__()[2]
    except TypeError:
        state = ()
    if not all(item is None or isinstance(item, (int, str)) for item in state):
        state = (3, "|", None, None, None, -1, -1, 0)
    if flags is not None:
        state = state[:7] + (flags,)
    items = [b"N" if v is None else text(v) if isinstance(v, str) else num(v) for v in state]
    return call(glob("numpy", "dtype"), text(code), b"\x89", b"\x88") + tup(*items) + b"b"


def empty_array(shape=(0,), typecode=b"b"):
    return call(glob(MULTIARRAY, "_reconstruct"), glob("numpy", "ndarray"),
                tup(*map(num, shape)), raw(typecode))


def array(shape, code, data, claimed=(0,)):
    return (empty_array(claimed)
            + tup(num(1), tup(*map(num, shape)), dtype(code), b"\x89", raw(data)) + b"b")


def batch(data, labels=b"]"):
    """A CIFAR batch dict {b'data': <data>, b'labels': <labels>} around pickled values."""
    return b"\x80\x03}(" + raw(b"data") + data + raw(b"labels") + labels + b"u."


def assert_refused(blob, match, limit=1 << 20):
    """safe_load refuses `blob` with a ValueError matching `match`, allocating < `limit`."""
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=match):
            safe_load(io.BytesIO(blob), name="hostile.pkl")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < limit, (peak, len(blob))


def test_the_reported_338_byte_archive_is_refused_without_allocating(tmp_path):
    # 200,000 images and as many labels, claimed by two _reconstruct calls with no data.
    blob = batch(empty_array((200000, 3072), b"B"), empty_array((200000,), b"b"))
    assert len(blob) < 400
    path = str(tmp_path / "c10.tar.gz")
    with tarfile.open(path, "w:gz") as archive:
        add_member(archive, "cifar-10-batches-py/test_batch", blob)
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"Cifar10: batch cifar-10-batches-py/test_batch "
                                             r"in .*c10.tar.gz: _reconstruct's shape "
                                             r"\(200000, 3072\) should be empty"):
            Cifar10(data_file=path, mode="test", backend="cv2")
        assert tracemalloc.get_traced_memory()[1] < 1 << 20
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("blob, match", [
    # BUILD claiming more elements than its data holds.
    (batch(array((200000, 3072), "u1", b"\0" * 3072)),
     r"hostile.pkl: an array's field 'shape' \(200000, 3072\) of uint8 claims 614400000 "
     r"bytes, but its field 'data' holds 3072"),
    # One element of a dtype a gigabyte wide.
    (batch(array((1,), "V1000000000", b"abc")), r"the dtype \|V1000000000 is not a plain"),
    (batch(array((1,), "S1000000000", b"abc")), r"claims 1000000000 bytes"),
    # An object array's "data" is a list of arbitrary objects.
    (batch(empty_array() + tup(num(1), tup(num(2)), dtype("O8"), b"\x89",
                               b"]" + b"(" + b"NN" + b"e") + b"b"),
     r"the dtype object is not a plain dtype"),
    (batch(array((2 ** 40, 2 ** 40), "u1", b"")), r"claims 1208925819614629174706176"),
    (batch(array((1 << 70,), "u1", b"")), r"field 'shape' should be a tuple of at most 64"),
    (batch(array((0,) * 65, "u1", b"")), r"field 'shape' should be a tuple of at most 64"),
    (batch(empty_array((1 << 20,))), r"_reconstruct's shape \(1048576,\) should be empty"),
    (batch(call(glob(MULTIARRAY, "scalar"), dtype("V1000000000"), raw(b"x"))),
     r"the dtype \|V1000000000 is not a plain"),
    (batch(call(glob(MULTIARRAY, "scalar"), dtype("f8"), raw(b"x"))),
     r"float64 scalar's data should hold 8 bytes, not 1"),
    (batch(call(glob(MULTIARRAY, "scalar"), dtype("O8"), b"N")), r"not a plain dtype"),
    # Codecs other than latin1 inflate, and can be chained through the memo.
    (batch(call(glob("_codecs", "encode"), raw(b"ab" * 100), text("hex"))),
     r"_codecs.encode may only turn a string into bytes with the latin1 codec"),
    (batch(call(glob("_codecs", "encode"), text("ab"), text("utf-32"))), r"latin1 codec"),
    # Structured dtypes from a short string, and flags that NumPy takes as given.
    (batch(array((1,), "u1," * 1000, b"a")), r"short type code"),
    (batch(dtype("f8", flags=63)), r"gives <f8 the flags 63"),
    # The real ndarray class would allocate any shape; BUILD may not set attributes.
    (batch(call(glob("numpy", "ndarray"), tup(num(1 << 30)))), r"is not callable"),
    (batch(glob("numpy", "ndarray") + tup() + b"\x81"), r"is not a type object"),
    (batch(b"]" + b"}" + b"b"), r"BUILD may only set the state of an array"),
    (batch(glob("numpy", "dtype") + b"}" + b"(" + text("x") + b"Nu" + b"b"),
     r"BUILD may only set the state of an array or a plain dtype, not a method"),
    (batch(b"\x8f"), r"EMPTY_SET opcode"),
    (batch(b"\xff"), r"unknown pickle opcode 0xff"),
    (b"\x80\x03}" + tup(tup(num(1))) + b"Ns.", r"dict key .* not a tuple"),
    (b"\x80\x03(" + b"]" + b"Nd.", r"dict key .* not a list"),
    (b"\x80\x03]" + b"NNs.", r"SETITEMS needs a dict"),
    (batch(glob("os", "system")), r"refusing to unpickle the global os.system"),
])
def test_hostile_pickles_are_refused_without_allocating(blob, match):
    assert_refused(blob, match)


@pytest.mark.parametrize("blob", [
    b"\x80\x04\x8e" + struct.pack("<Q", 1 << 40) + b"abc.",  # BINBYTES8 claiming 1 TiB
    b"\x80\x04\x8d" + struct.pack("<Q", 1 << 40) + b"abc.",  # BINUNICODE8
    b"\x80\x05\x96" + struct.pack("<Q", 1 << 40) + b"abc.",  # BYTEARRAY8
    b"\x80\x02]q\x00(K\x01",  # truncated
    b"\x80\x02" + call(glob("__builtin__", "bytes"), num(1 << 30)) + b".",
])
def test_claimed_lengths_allocate_nothing(blob):
    assert_refused(blob, r"hostile.pkl: ")


@pytest.mark.parametrize("blob", [
    b"\x80\x04\x95" + struct.pack("<Q", 1 << 40) + b"N.",  # a FRAME claiming 1 TiB
    b"\x80\x02Nr\xff\xff\xff\x7f.",  # LONG_BINPUT: a memo index of 2**31
])
def test_claimed_frames_and_memo_indices_allocate_nothing(blob):
    tracemalloc.start()
    try:
        assert safe_load(io.BytesIO(blob)) is None
        assert tracemalloc.get_traced_memory()[1] < 1 << 20
    finally:
        tracemalloc.stop()


def test_shared_data_cannot_multiply_into_many_arrays():
    # One 1000-byte state, memoized once and BUILT into 20,000 arrays: 20 MB from 160 KB.
    func = glob(MULTIARRAY, "_reconstruct") + b"\x94"  # memo 0
    args = tup(glob("numpy", "ndarray"), tup(num(0)), raw(b"b")) + b"\x94"  # memo 1
    state = tup(num(1), tup(num(1000)), dtype("u1"), b"\x89", raw(b"x" * 1000)) + b"\x94"
    again = b"h\x00h\x01Rh\x02b"  # memo 2 is the state
    blob = b"\x80\x04](" + func + args + b"R" + state + b"b" + again * 20000 + b"e."
    assert_refused(blob, r"builds more than 8x its size", limit=16 * len(blob) + (4 << 20))


@pytest.mark.parametrize("unit", [b"}", b"]", b"\x85", b")\x85"])
def test_containers_from_single_bytes_are_bounded(unit):
    blob = b"\x80\x04N" + unit * 400000 + b"."
    assert_refused(blob, r"builds more than 8x its size", limit=16 * len(blob) + (4 << 20))


def test_deeply_nested_key_is_refused_not_hashed():
    # Hashing a tuple nested a million deep overflows the C stack.
    blob = b"\x80\x04}" + b")" + b"\x85" * 1000000 + b"Ns."
    assert_refused(blob, r"hostile.pkl: ", limit=16 * len(blob) + (4 << 20))


def legitimate_values():
    return {
        b"data": images(3, 0), "f32": np.linspace(0, 1, 7, dtype=np.float32),
        "big_endian": np.arange(6, dtype=">i4").reshape(2, 3),
        "fortran": np.asfortranarray(np.arange(12.0).reshape(3, 4)),
        "empty": np.zeros((0, 3072), np.uint8), "bool": np.array([True, False]),
        "text": np.array(["ab", "c"]), "raw": np.array([b"xy", b"z"]),
        "complex": np.array([1 + 2j]), "half": np.ones(3, np.float16),
        "scalars": [np.float32(1.5), np.int64(-3), np.bool_(True)],
        "nested": {"t": (1, 2.5, None, "s", b"b"), (1, "k"): [True, -7, 1 << 80]},
        "large": np.arange(300000, dtype=np.float64),
    }


@pytest.mark.parametrize("protocol", [0, 1, 2, 3, 4])
def test_legitimate_pickles_load_exactly(protocol):
    values = legitimate_values()
    blob = pickle.dumps(values, protocol=protocol)
    tracemalloc.start()
    try:
        loaded = safe_load(io.BytesIO(blob))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * len(blob) + (1 << 20)
    expected = pickle.loads(blob)
    assert loaded.keys() == expected.keys()
    for key, value in expected.items():
        if isinstance(value, np.ndarray):
            assert loaded[key].dtype == value.dtype and loaded[key].flags.writeable
            assert loaded[key].flags.f_contiguous == value.flags.f_contiguous
            np.testing.assert_array_equal(loaded[key], value)
        else:
            assert loaded[key] == value and type(loaded[key]) is type(value)
    assert [type(s) for s in loaded["scalars"]] == [np.float32, np.int64, np.bool_]


@pytest.mark.parametrize("encoding", ["bytes", "latin1"])
def test_python2_pickles_as_cifar_ships_them(encoding):
    # Python 2's cPickle writes an array's data as a str (BINSTRING / SHORT_BINSTRING).
    data = bytes(range(256)) * 12
    dtype_u1 = (call(glob("numpy", "dtype"), b"U\x02u1", b"\x89", b"\x88")
                + tup(num(3), b"U\x01|", b"N", b"N", b"N", num(-1), num(-1), num(0)) + b"b")
    empty = call(glob(MULTIARRAY, "_reconstruct"), glob("numpy", "ndarray"), tup(num(0)),
                 b"U\x01b")
    state = tup(num(1), tup(num(1), num(3072)), dtype_u1, b"\x89",
                b"T" + struct.pack("<I", len(data)) + data)
    blob = (b"\x80\x02}(" + b"U\x04data" + empty + state + b"b"
            + b"U\x06labels" + b"]K\x07a" + b"u.")
    loaded = safe_load(io.BytesIO(blob), encoding=encoding)
    key = b"data" if encoding == "bytes" else "data"
    np.testing.assert_array_equal(loaded[key], np.frombuffer(data, np.uint8).reshape(1, -1))
    assert loaded[b"labels" if encoding == "bytes" else "labels"] == [7]


def test_unseekable_stream_and_file_name(tmp_path):
    class Pipe(io.RawIOBase):
        def __init__(self, data):
            self._inner = io.BytesIO(data)

        def readable(self):
            return True

        def readinto(self, b):
            return self._inner.readinto(b)

    blob = pickle.dumps({"x": np.arange(5)}, protocol=2)
    np.testing.assert_array_equal(safe_load(io.BufferedReader(Pipe(blob)))["x"], np.arange(5))
    path = tmp_path / "bad.pkl"
    path.write_bytes(batch(empty_array((7, 7))))
    with open(path, "rb") as f, pytest.raises(ValueError, match=r"bad.pkl: _reconstruct"):
        safe_load(f)
    with pytest.raises(UnsafePickleError, match=r"^batch_3: damaged pickle"):
        safe_load(io.BytesIO(b"\x80\x02]("), name="batch_3")


def _cifar_mutations(blob, rng):
    """Byte flips (half of them in the structure around the image bytes), truncations, and
    rewrites of the shape, dtype and data length fields."""
    ops = list(pickletools.genops(blob))
    data = max(ops, key=lambda op: len(op[1]) if isinstance(op[1], (str, bytes)) else 0)
    data_end = next(pos for _, _, pos in ops if pos > data[2])
    structure = [pos for pos in range(len(blob)) if not data[2] + 5 <= pos < data_end]
    for i in range(600):
        mutated = bytearray(blob)
        for pos in rng.choice(structure if i % 2 else len(blob), rng.integers(1, 5)):
            mutated[pos] ^= int(rng.integers(1, 256))
        yield bytes(mutated)
    for cut in rng.integers(0, len(blob), 150):
        yield blob[:cut]
    shape = b"K\x02M\x00\x0c\x86"  # (2, 3072), as protocols 2 and 4 write it
    assert blob.count(shape) == 1
    for dims in [(200000, 3072), (2, 3073), (1 << 40, 3072), (0, 3072), (2, 1536, 2), (),
                 (-1, 3072), (1 << 70,), (3072, 2)]:
        yield blob.replace(shape, tup(*map(num, dims)))
    code = next(op for op in ops if op[1] == "u1")
    after_code = next(pos for _, _, pos in ops if pos > code[2])
    for name in ["V1000000000", "O8", "u1,u1", "f8", "S3072", "M8", "m8", "u" * 50]:
        yield blob[:code[2]] + text(name) + blob[after_code:]
    for claim in [0, 1, 6143, 6145, 1 << 20, (1 << 32) - 1]:  # the data's 4-byte length
        yield blob[:data[2] + 1] + struct.pack("<I", claim) + blob[data[2] + 5:]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("protocol", [2, 4])
def test_mutated_cifar_batches_fail_cleanly_fast_and_small(tmp_path, protocol):
    good = pickle.dumps({b"batch_label": b"testing batch 1 of 1", b"labels": [3, 8],
                         b"data": images(2, 5), b"filenames": [b"a.png", b"b.png"]},
                        protocol=protocol)
    rng = np.random.default_rng(protocol)
    outcomes = {"loaded": 0, "refused": 0}
    slowest = 0.0
    path = str(tmp_path / "c10.tar")
    tracemalloc.start()
    try:
        for i, mutated in enumerate(_cifar_mutations(good, rng)):
            with tarfile.open(path, "w") as archive:
                add_member(archive, "cifar-10-batches-py/test_batch", mutated)
            tracemalloc.reset_peak()
            start = time.perf_counter()
            try:
                ds = Cifar10(data_file=path, mode="test", backend="cv2")
                assert ds.images.shape[1:] == (32, 32, 3) and len(ds.labels) == len(ds.images)
                outcomes["loaded"] += 1
            except ValueError as exc:
                assert str(exc).startswith("Cifar10: batch cifar-10-batches-py/test_batch"), exc
                outcomes["refused"] += 1
            slowest = max(slowest, time.perf_counter() - start)
            peak = tracemalloc.get_traced_memory()[1]
            assert peak < 16 * len(mutated) + (1 << 20), (i, peak, len(mutated))
    finally:
        tracemalloc.stop()
    assert slowest < 1.0
    assert outcomes["refused"] > 400 and outcomes["loaded"] > 10, outcomes


def test_legitimate_cifar_archive_still_loads(tmp_path):
    data = images(4, 9)
    path = cifar_archive(tmp_path / "ok.tar.gz", "cifar-10-batches-py",
                         {"test_batch": (data, [1, 2, 3, 4], b"labels")})
    ds = Cifar10(data_file=path, mode="test", backend="cv2")
    np.testing.assert_array_equal(ds.images, data.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1))
    assert ds.labels.tolist() == [1, 2, 3, 4] and ds.labels.dtype == np.int64
