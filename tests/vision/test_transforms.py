"""Vision transforms against NumPy expectations, on arrays, PIL images and Tensors."""

import numpy as np
import pytest
from PIL import Image

import dygraph
from dygraph.vision import transforms as T
from dygraph.vision.transforms import functional as F


def image(h=4, w=6, c=3, seed=0):
    return np.random.default_rng(seed).integers(0, 256, (h, w, c), dtype=np.uint8)


def test_to_tensor_scales_uint8_and_moves_channels():
    img = image()
    t = T.ToTensor()(img)
    assert isinstance(t, dygraph.Tensor) and t.shape == [3, 4, 6] and t.dtype == dygraph.float32
    np.testing.assert_allclose(t.numpy(), img.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    assert T.ToTensor(data_format="HWC")(img).shape == [4, 6, 3]
    grey = T.ToTensor()(Image.fromarray(img[:, :, 0]))
    assert grey.shape == [1, 4, 6]
    np.testing.assert_allclose(grey.numpy()[0], img[:, :, 0] / 255.0, rtol=1e-6)
    floats = np.full((2, 2), 7.0, np.float32)
    assert T.ToTensor()(floats).numpy().max() == 7.0  # only uint8 is rescaled


def test_normalize_chw_hwc_rgb_and_tensor():
    chw = np.arange(12, dtype=np.float32).reshape(3, 2, 2)
    mean, std = [1.0, 2.0, 3.0], [2.0, 4.0, 8.0]
    expect = (chw - np.reshape(mean, (3, 1, 1))) / np.reshape(std, (3, 1, 1))
    np.testing.assert_allclose(T.Normalize(mean, std)(chw), expect)
    hwc = chw.transpose(1, 2, 0)
    np.testing.assert_allclose(T.Normalize(mean, std, data_format="HWC")(hwc),
                               expect.transpose(1, 2, 0))
    swapped = T.Normalize(mean, std, to_rgb=True)(chw)
    np.testing.assert_allclose(swapped[0], (chw[2] - 1.0) / 2.0)
    out = T.Normalize([0.5], [0.5])(dygraph.to_tensor(np.ones((1, 2, 2), np.float32)))
    assert isinstance(out, dygraph.Tensor) and out.numpy().tolist() == [[[1.0, 1.0]] * 2]


def test_resize_nearest_and_bilinear_against_numpy():
    img = np.arange(16, dtype=np.float32).reshape(4, 4)
    np.testing.assert_array_equal(T.Resize((2, 2), "nearest")(img), img[::2, ::2])
    # Halving with pixel-centre sampling averages each 2x2 block.
    expect = img.reshape(2, 2, 2, 2).mean(axis=(1, 3))
    np.testing.assert_allclose(T.Resize((2, 2))(img), expect)
    up = T.Resize((8, 8))(np.array([[0, 255]], np.uint8).repeat(2, 0))
    assert up.dtype == np.uint8 and up[0].tolist() == [0, 0, 32, 96, 159, 223, 255, 255]
    assert T.Resize(3)(image(4, 8)).shape == (3, 6, 3)  # shorter side, aspect kept
    assert T.Resize(3)(Image.fromarray(image(8, 4))).size == (3, 6)
    tensor = T.Resize((2, 3))(dygraph.to_tensor(np.zeros((3, 4, 6), np.float32)))
    assert tensor.shape == [3, 2, 3]
    with pytest.raises(ValueError, match="interpolation"):
        T.Resize(2, "bicubic")(img)


def test_crops():
    img = image(5, 6)
    np.testing.assert_array_equal(T.CenterCrop((3, 2))(img), img[1:4, 2:4])
    pil = T.CenterCrop(2)(Image.fromarray(img))
    np.testing.assert_array_equal(np.asarray(pil), img[2:4, 2:4])
    dygraph.seed(4)
    crops = [T.RandomCrop(3)(img) for _ in range(20)]
    assert all(c.shape == (3, 3, 3) for c in crops)
    windows = {tuple(c[0, 0]) for c in crops}
    assert len(windows) > 1  # different places
    for c in crops:  # every crop is a window of the image
        hits = [(i, j) for i in range(3) for j in range(4)
                if np.array_equal(img[i:i + 3, j:j + 3], c)]
        assert hits
    dygraph.seed(9)
    a = T.RandomCrop(4, padding=2)(img)
    dygraph.seed(9)
    np.testing.assert_array_equal(T.RandomCrop(4, padding=2)(img), a)
    grown = T.RandomCrop((7, 8), pad_if_needed=True)(img)
    assert grown.shape == (7, 8, 3)
    with pytest.raises(ValueError, match="larger than the image"):
        T.RandomCrop(7)(img)


def test_flips_with_probability_and_same_choice_for_all_keys():
    img = image()
    np.testing.assert_array_equal(T.RandomHorizontalFlip(1.0)(img), img[:, ::-1])
    np.testing.assert_array_equal(T.RandomHorizontalFlip(0.0)(img), img)
    np.testing.assert_array_equal(T.RandomVerticalFlip(1.0)(img), img[::-1])
    flipped = T.RandomHorizontalFlip(1.0)(Image.fromarray(img))
    np.testing.assert_array_equal(np.asarray(flipped), img[:, ::-1])
    dygraph.seed(1)
    count = sum(T.RandomHorizontalFlip(0.5)(img)[0, 0, 0] != img[0, 0, 0] for _ in range(200))
    assert 60 < count < 140
    pair = T.RandomHorizontalFlip(0.5, keys=["image", "image"])
    for _ in range(10):
        left, right = pair((img, img.copy()))
        np.testing.assert_array_equal(left, right)
    assert T.RandomVerticalFlip(1.0, keys=["image", "label"])((img, 3))[1] == 3


def test_rotation():
    img = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]], np.uint8)
    np.testing.assert_array_equal(F.rotate(img, 90), np.rot90(img))
    np.testing.assert_array_equal(F.rotate(img, -90), np.rot90(img, -1))
    np.testing.assert_array_equal(F.rotate(img, 180, "bilinear"), img[::-1, ::-1])
    corner = F.rotate(np.ones((5, 5), np.uint8), 45, fill=0)
    assert corner[0, 0] == 0 and corner[2, 2] == 1 and corner[0, 2] == 1
    odd = np.random.default_rng(0).integers(1, 255, (7, 5), dtype=np.uint8)
    same = F.rotate(odd, 13) == np.asarray(Image.fromarray(odd).rotate(13))
    assert same.all()  # the NumPy path samples like Pillow
    wide = F.rotate(np.ones((2, 4), np.uint8), 90, expand=True)
    assert wide.shape == (4, 2) and wide.min() == 1
    pil = F.rotate(Image.fromarray(img), 90)
    np.testing.assert_array_equal(np.asarray(pil), np.rot90(img))
    dygraph.seed(2)
    angles = set()
    rot = T.RandomRotation(30)
    for _ in range(5):
        rot(img)
        angles.add(rot.params)
    assert len(angles) == 5 and all(-30 <= a <= 30 for a in angles)
    with pytest.raises(ValueError):
        T.RandomRotation(-5)


def test_transpose_pad_grayscale():
    img = image()
    assert T.Transpose()(img).shape == (3, 4, 6)
    assert T.Transpose()(Image.fromarray(img[:, :, 0])).shape == (1, 4, 6)
    assert T.Transpose((1, 2, 0))(dygraph.to_tensor(np.zeros((3, 4, 5)))).shape == [4, 5, 3]
    np.testing.assert_array_equal(T.Pad(1)(img), np.pad(img, ((1, 1), (1, 1), (0, 0))))
    np.testing.assert_array_equal(T.Pad((1, 2), padding_mode="reflect")(img),
                                  np.pad(img, ((2, 2), (1, 1), (0, 0)), mode="reflect"))
    filled = T.Pad((1, 0, 0, 0), fill=(9, 8, 7))(img)
    assert filled.shape == (4, 7, 3) and filled[0, 0].tolist() == [9, 8, 7]
    assert np.asarray(T.Pad(2)(Image.fromarray(img))).shape == (8, 10, 3)
    grey = T.Grayscale()(img)
    expect = img.astype(np.float64) @ [0.299, 0.587, 0.114]
    assert grey.shape == (4, 6, 1)
    np.testing.assert_allclose(grey[:, :, 0], np.rint(expect), atol=1)
    assert T.Grayscale(3)(img).shape == (4, 6, 3)
    assert T.Grayscale()(Image.fromarray(img)).mode == "L"


def test_compose_pipeline_for_mnist_like_input():
    pipeline = T.Compose([T.RandomCrop(28, padding=2), T.ToTensor(), T.Normalize([0.5], [0.5])])
    out = pipeline(image(28, 28, 1))
    assert out.shape == [1, 28, 28]
    assert -1.0 <= float(out.numpy().min()) and float(out.numpy().max()) <= 1.0
    assert "RandomCrop" in repr(pipeline)
