"""read_file and decode_jpeg. Paddle 3.3 decodes JPEG only on a GPU (nvJPEG), so the
expectations here are Pillow's own decoding of the same bytes, in Paddle's layout (uint8
[C, H, W]) and modes."""

import io
import sys

import numpy as np
import pytest

import dygraph
from dygraph import static
from dygraph.vision.ops import decode_jpeg, read_file

Image = pytest.importorskip("PIL.Image")
PIXELS = np.random.default_rng(0).integers(0, 256, (12, 17, 3), dtype=np.uint8)


def _jpeg(mode="RGB"):
    buffer = io.BytesIO()
    Image.fromarray(PIXELS).convert(mode).save(buffer, format="JPEG", quality=90)
    return buffer.getvalue()


def _tensor(data):
    return dygraph.to_tensor(np.frombuffer(data, np.uint8))


def test_read_file_gives_the_bytes(tmp_path):
    path = tmp_path / "image.jpg"
    path.write_bytes(_jpeg())
    got = read_file(str(path))
    assert got.dtype == dygraph.uint8 and got.shape == [len(_jpeg())]
    assert got.numpy().tobytes() == _jpeg()
    with pytest.raises(FileNotFoundError):
        read_file(str(tmp_path / "missing.jpg"))


@pytest.mark.parametrize("mode, stored, channels", [
    ("unchanged", "RGB", 3), ("rgb", "RGB", 3), ("gray", "RGB", 1),
    ("unchanged", "L", 1), ("rgb", "L", 3), ("gray", "L", 1), ("unchanged", "CMYK", 3)])
def test_decode_jpeg_gives_pillow_s_pixels_as_chw(mode, stored, channels):
    data = _jpeg(stored)
    got = decode_jpeg(_tensor(data), mode=mode)
    assert got.dtype == dygraph.uint8 and got.shape == [channels, 12, 17]
    image = Image.open(io.BytesIO(data))
    if mode == "gray":
        image.draft("L", image.size)  # the decoder's luma plane
    image = image.convert("L" if channels == 1 else "RGB")
    want = np.asarray(image)
    want = want[None] if want.ndim == 2 else want.transpose(2, 0, 1)
    np.testing.assert_array_equal(got.numpy(), want)


def test_gray_of_a_colour_jpeg_is_close_to_its_luma():
    got = decode_jpeg(_tensor(_jpeg()), mode="gray").numpy()[0].astype(float)
    luma = PIXELS @ np.array([0.299, 0.587, 0.114])
    assert np.abs(got - luma).mean() < 12  # JPEG's loss, not another conversion


@pytest.mark.parametrize("data, mode, error, text", [
    (b"not an image at all", "unchanged", ValueError, "cannot decode"),
    (None, "unchanged", ValueError, "not a JPEG"),
    (b"\xff\xd8", "sepia", ValueError, "mode must be one of"),
])
def test_decode_errors(data, mode, error, text):
    if data is None:
        buffer = io.BytesIO()
        Image.fromarray(PIXELS).save(buffer, format="PNG")
        data = buffer.getvalue()
    with pytest.raises(error, match="decode_jpeg") as info:
        decode_jpeg(_tensor(data), mode=mode)
    assert text in str(info.value)


def test_decode_wants_uint8_bytes():
    with pytest.raises(TypeError, match="1-D uint8"):
        decode_jpeg(dygraph.ones([4]))


def test_decode_without_pillow_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL.Image", None)  # as if Pillow were not installed
    with pytest.raises(ImportError, match="pip install pillow"):
        decode_jpeg(_tensor(_jpeg()))


def test_a_program_reads_the_file_at_each_run(tmp_path):
    path = tmp_path / "image.jpg"
    path.write_bytes(_jpeg("CMYK"))  # building reads it once, for the output's kind
    dygraph.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            image = decode_jpeg(read_file(str(path)))
    finally:
        dygraph.disable_static()
    exe = static.Executor()
    for stored in ("RGB", "L"):
        path.write_bytes(_jpeg(stored))
        (got,) = exe.run(main, fetch_list=[image])
        np.testing.assert_array_equal(got, decode_jpeg(_tensor(_jpeg(stored))).numpy())
