"""Colour adjustments, affine/perspective warps, erasing and the random augmentation
transforms, on NumPy arrays, PIL images and CHW Tensors."""

import numpy as np
import pytest
from PIL import Image

import dygraph
from dygraph.vision import transforms as T
from dygraph.vision.transforms import functional as F
from dygraph.vision.transforms.functional_warp import affine_matrix

PADDLE_TRANSFORM_NAMES = [
    "BaseTransform", "Compose", "Resize", "RandomResizedCrop", "CenterCrop",
    "RandomHorizontalFlip", "RandomVerticalFlip", "Transpose", "Normalize",
    "BrightnessTransform", "SaturationTransform", "ContrastTransform", "HueTransform",
    "ColorJitter", "RandomCrop", "Pad", "RandomAffine", "RandomRotation", "RandomPerspective",
    "Grayscale", "ToTensor", "RandomErasing", "to_tensor", "hflip", "vflip", "resize", "pad",
    "affine", "rotate", "perspective", "to_grayscale", "crop", "center_crop",
    "adjust_brightness", "adjust_contrast", "adjust_hue", "normalize", "erase"]


def image(h=7, w=9, seed=0):
    return np.random.default_rng(seed).integers(0, 256, (h, w, 3), dtype=np.uint8)


def as_tensor(hwc):
    return dygraph.to_tensor(np.ascontiguousarray(hwc.transpose(2, 0, 1)))


def test_every_paddle_transform_name_exists():
    missing = [n for n in PADDLE_TRANSFORM_NAMES if not hasattr(T, n)]
    assert missing == []


def test_colour_adjustments_follow_the_blend_formulas():
    img = image().astype(np.float32) / 255
    grey = img @ np.array([0.299, 0.587, 0.114], np.float32)
    np.testing.assert_allclose(F.adjust_brightness(img, 1.3), np.clip(img * 1.3, 0, 1),
                               rtol=1e-6)
    expect = np.clip(grey.mean() + 0.6 * (img - grey.mean()), 0, 1)
    np.testing.assert_allclose(F.adjust_contrast(img, 0.6), expect, rtol=1e-5, atol=1e-6)
    expect = np.clip(grey[..., None] + 1.7 * (img - grey[..., None]), 0, 1)
    np.testing.assert_allclose(F.adjust_saturation(img, 1.7), expect, rtol=1e-5, atol=1e-6)
    # uint8 results are clipped at 255 and truncated, as Paddle's Tensor functions do.
    assert F.adjust_brightness(np.array([[100, 200]], np.uint8), 1.5).tolist() == [[150, 255]]
    assert F.adjust_contrast(np.full((2, 2, 3), 9, np.uint8), 0.0).max() == 9


@pytest.mark.parametrize("name, factor", [("adjust_brightness", 1.4), ("adjust_contrast", 0.5),
                                          ("adjust_saturation", 1.8), ("adjust_hue", 0.2)])
def test_colour_adjustments_agree_across_image_kinds(name, factor):
    fn, img = getattr(F, name), image()
    out = fn(img, factor)
    assert out.dtype == np.uint8 and out.shape == img.shape
    tensor_out = fn(as_tensor(img), factor)
    assert isinstance(tensor_out, dygraph.Tensor)
    # Tensors use Paddle's tensor grey weights (0.2989 red, not 0.299): at most 1 apart.
    difference = np.abs(tensor_out.numpy().transpose(1, 2, 0).astype(int) - out)
    assert difference.max() <= (1 if name in ("adjust_contrast", "adjust_saturation") else 0)
    pil_out = np.asarray(fn(Image.fromarray(img), factor)).astype(int)
    # Pillow rounds where we truncate, and quantises hue to 1/256 of a turn.
    assert np.abs(pil_out - out).max() <= (8 if name == "adjust_hue" else 1)


def test_adjust_hue_rotates_colours():
    red = np.array([[[1.0, 0.0, 0.0]]], np.float32)
    np.testing.assert_allclose(F.adjust_hue(red, 1 / 3), [[[0, 1, 0]]], atol=1e-6)
    np.testing.assert_allclose(F.adjust_hue(red, -0.5), [[[0, 1, 1]]], atol=1e-6)
    grey = np.full((2, 2, 3), 0.4, np.float32)
    np.testing.assert_allclose(F.adjust_hue(grey, 0.3), grey, atol=1e-6)
    one_channel = np.zeros((2, 2, 1), np.uint8)
    assert F.adjust_hue(one_channel, 0.3) is one_channel
    with pytest.raises(ValueError, match=r"hue_factor should be in \[-0.5, 0.5\]"):
        F.adjust_hue(red, 0.6)
    with pytest.raises(ValueError, match="non-negative"):
        F.adjust_brightness(red, -1)


@pytest.mark.parametrize("kwargs", [
    dict(angle=30, translate=(1, 2), scale=0.9, shear=(10, 5)),
    dict(angle=90, translate=(0, 0), scale=1.0, shear=0),
    dict(angle=-17, translate=(-2, 1), scale=1.3, shear=20, center=(2, 3))])
def test_affine_nearest_matches_pillow_on_arrays_and_tensors(kwargs):
    img = image()
    expect = np.asarray(Image.fromarray(img).transform(
        (9, 7), Image.Transform.AFFINE, affine_matrix(
            kwargs.get("center", (4.5, 3.5)), kwargs["angle"], kwargs["translate"],
            kwargs["scale"], (kwargs["shear"], 0) if np.isscalar(kwargs["shear"])
            else kwargs["shear"]), Image.Resampling.NEAREST, fillcolor=(7, 7, 7)))
    np.testing.assert_array_equal(F.affine(img, fill=7, **kwargs), expect)
    np.testing.assert_array_equal(np.asarray(F.affine(Image.fromarray(img), fill=7, **kwargs)),
                                  expect)
    out = F.affine(as_tensor(img), fill=7, **kwargs)
    np.testing.assert_array_equal(out.numpy().transpose(1, 2, 0), expect)


@pytest.mark.parametrize("interpolation", ["nearest", "bilinear"])
def test_rotate_affine_perspective_equal_pillow_pixel_for_pixel(interpolation):
    rng = np.random.default_rng(1)
    for img in (image(), rng.integers(0, 256, (8, 6), dtype=np.uint8)):
        pil = Image.fromarray(img)
        h, w = img.shape[:2]
        for angle, expand, center in ((13, False, None), (45, True, None), (90, True, None),
                                      (123.4, False, (2, 3)), (-30, True, None)):
            expect = np.asarray(F.rotate(pil, angle, interpolation, expand, center, fill=7))
            np.testing.assert_array_equal(F.rotate(img, angle, interpolation, expand, center,
                                                   fill=7), expect)
        expect = np.asarray(F.affine(pil, 25, (1, -2), 1.2, (8, 3), interpolation))
        np.testing.assert_array_equal(F.affine(img, 25, (1, -2), 1.2, (8, 3), interpolation),
                                      expect)
        start = [[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]
        end = [[1, 2], [w - 2, 0], [w - 1, h - 2], [2, h - 1]]
        np.testing.assert_array_equal(
            F.perspective(img, start, end, interpolation),
            np.asarray(F.perspective(pil, start, end, interpolation)))
    tensor_out = F.rotate(as_tensor(image()), 30, interpolation, True)
    np.testing.assert_array_equal(tensor_out.numpy().transpose(1, 2, 0),
                                  F.rotate(image(), 30, interpolation, True))


def test_affine_shift_rotation_and_fill():
    img = np.arange(12, dtype=np.uint8).reshape(3, 4)
    shifted = F.affine(img, 0, (1, 0), 1.0, 0, fill=99)
    assert shifted[:, 0].tolist() == [99, 99, 99]
    np.testing.assert_array_equal(shifted[:, 1:], img[:, :3])
    square = np.arange(9, dtype=np.float32).reshape(3, 3)
    np.testing.assert_array_equal(F.affine(square, 90, (0, 0), 1.0, 0), np.rot90(square, -1))
    rgb = F.affine(np.zeros((2, 2, 3), np.uint8), 0, (2, 0), 1.0, 0, fill=(1, 2, 3))
    assert rgb[0, 0].tolist() == [1, 2, 3]
    bilinear = F.affine(image(), 12, (0, 0), 1.1, 0, interpolation="bilinear")
    assert bilinear.shape == (7, 9, 3) and bilinear.dtype == np.uint8
    with pytest.raises(ValueError, match="'nearest' and 'bilinear'"):
        F.affine(img, 10, (0, 0), 1.0, 0, interpolation="bicubic")
    with pytest.raises(ValueError, match="scale should be positive"):
        F.affine(img, 10, (0, 0), 0.0, 0)


def test_perspective_identity_and_pillow_agreement():
    img = image()
    corners = [[0, 0], [8, 0], [8, 6], [0, 6]]
    np.testing.assert_array_equal(F.perspective(img, corners, corners), img)
    moved = [[1, 2], [7, 0], [8, 5], [2, 6]]
    ours = F.perspective(img, corners, moved, fill=3)
    pil = np.asarray(F.perspective(Image.fromarray(img), corners, moved, fill=3))
    np.testing.assert_array_equal(ours, pil)
    np.testing.assert_array_equal(
        F.perspective(as_tensor(img), corners, moved, fill=3).numpy().transpose(1, 2, 0), ours)
    with pytest.raises(ValueError, match="4 \\[x, y\\] points"):
        F.perspective(img, corners[:3], moved)


def test_erase_on_every_image_kind():
    img = np.ones((4, 5, 3), np.uint8)
    out = F.erase(img, 1, 2, 2, 3, 0)
    assert out[1:3, 2:5].max() == 0 and out.sum() == img.sum() - 18 and img.min() == 1
    same = F.erase(img, 0, 0, 1, 1, 7, inplace=True)
    assert same is img and img[0, 0].tolist() == [7, 7, 7]
    t = as_tensor(np.ones((4, 5, 3), np.float32))
    erased = F.erase(t, 1, 2, 2, 3, dygraph.zeros([3, 2, 3]))
    assert erased.numpy()[:, 1:3, 2:5].max() == 0 and t.numpy().min() == 1
    pil = F.erase(Image.fromarray(np.ones((4, 5, 3), np.uint8)), 0, 0, 2, 2, (9, 8, 7))
    assert np.asarray(pil)[1, 1].tolist() == [9, 8, 7]


def test_color_transforms_draw_factors_in_range():
    dygraph.seed(3)
    img = np.full((2, 2, 3), 100, np.uint8)
    for _ in range(20):
        value = int(T.BrightnessTransform(0.5)(img)[0, 0, 0])
        assert 50 <= value <= 150
    assert T.BrightnessTransform(0)(img) is img
    assert np.array_equal(T.ColorJitter()(img), img)
    assert T.ColorJitter(0.3, 0.3, 0.3, 0.1)(as_tensor(img)).shape == [3, 2, 2]
    with pytest.raises(ValueError, match="hue range should lie in"):
        T.HueTransform(0.7)
    with pytest.raises(ValueError, match="non-negative"):
        T.ContrastTransform(-0.1)


def test_random_transforms_are_seeded_and_share_draws_across_keys():
    img = image(12, 16)
    transform = T.Compose([T.RandomResizedCrop(5), T.RandomAffine(20, (0.1, 0.1), (0.8, 1.2),
                                                                   shear=(-5, 5, -5, 5))])
    dygraph.seed(7)
    first = transform(img)
    dygraph.seed(7)
    assert first.shape == (5, 5, 3) and np.array_equal(transform(img), first)
    for transform in (T.RandomPerspective(prob=1.0, keys=("image", "image")),
                      T.RandomAffine(30, keys=("image", "image")),
                      T.RandomErasing(1.0, value="random", keys=("image", "image"))):
        first, second = transform((img, img.copy()))
        assert np.array_equal(first, second) and not np.array_equal(first, img)


def test_random_resized_crop_full_scale_is_a_resize():
    img = image(8, 8)
    out = T.RandomResizedCrop((4, 4), scale=(1.0, 1.0), ratio=(1.0, 1.0))(img)
    np.testing.assert_array_equal(out, F.resize(img, (4, 4)))
    wide = T.RandomResizedCrop(3, scale=(2.0, 2.0), ratio=(1.0, 1.0))(image(4, 10))
    assert wide.shape == (3, 3, 3)  # no draw fits: falls back to the central square crop
    with pytest.raises(ValueError, match="scale and ratio should be"):
        T.RandomResizedCrop(3, scale=(1.0, 0.5))


def test_random_erasing():
    dygraph.seed(0)
    t = dygraph.ones([3, 10, 10])
    erased = T.RandomErasing(prob=1.0, value=(0, 0, 0))(t).numpy()
    assert erased.min() == 0 and erased.max() == 1 and t.numpy().min() == 1
    assert (erased == 0).all(axis=0).sum() == (erased == 0).any(axis=0).sum()
    arr = np.full((10, 10, 3), 200, np.uint8)
    noisy = T.RandomErasing(prob=1.0, value="random")(arr)
    assert noisy.dtype == np.uint8 and (noisy != 200).any()
    assert T.RandomErasing(prob=0.0)(arr) is arr
    with pytest.raises(ValueError, match="value must be 'random' when type is str"):
        T.RandomErasing(value="noise")


def test_argument_errors_as_paddles_tests_expect():
    # Paddle checks some arguments with assert: those errors are AssertionError and
    # ValueError at once, with Paddle's messages.
    cases = [(lambda: T.RandomErasing(scale=0.5), "scale should be a tuple or list"),
             (lambda: T.RandomErasing(ratio=0.8), "ratio should be a tuple or list"),
             (lambda: T.RandomErasing(scale=(10, 0.4)),
              r"scale should be of kind \(min, max\) and in range \[0, 1\]"),
             (lambda: T.RandomErasing(ratio=(3.3, 0.3)), r"ratio should be of kind \(min, max\)"),
             (lambda: T.RandomErasing(prob=1.5), r"The probability should be in range \[0, 1\]"),
             (lambda: T.RandomResizedCrop(8, scale=(1.0, 0.5)), "should be"),
             (lambda: T.RandomPerspective(prob=2.0), "should be in")]
    for make, message in cases:
        for kind in (AssertionError, ValueError):
            with pytest.raises(kind, match=message):
                make()
    for make in (lambda: T.ContrastTransform(-1.0), lambda: T.SaturationTransform(-1.0),
                 lambda: T.HueTransform(-1.0), lambda: T.BrightnessTransform(-1.0),
                 lambda: T.BrightnessTransform([-0.1, -0.2]), lambda: T.RandomAffine(-10),
                 lambda: T.RandomAffine([-30, 60], translate=[2, 2]),
                 lambda: T.RandomAffine(10, translate=[0.2, 0.2], scale=[1, 2, 3]),
                 lambda: T.RandomAffine(10, shear=[1, 2, 3]),
                 lambda: T.RandomAffine(10, shear=[-10, 10, 0, 20, 40]),
                 lambda: T.RandomAffine(10, center=(1, 2, 3)),
                 lambda: T.BrightnessTransform("0.1", keys=1)):
        with pytest.raises(ValueError):
            make()
    with pytest.raises(TypeError):
        T.BrightnessTransform("0.1")
    with pytest.raises(TypeError):
        T.RandomResizedCrop(64)(1)


def test_tensor_grey_uses_paddles_tensor_weights():
    rgb = np.array([[[200.0, 100.0, 50.0]]], np.float32)
    tensor_grey = F.to_grayscale(as_tensor(rgb)).numpy()[0, 0, 0]
    assert tensor_grey == pytest.approx(0.2989 * 200 + 0.587 * 100 + 0.114 * 50, rel=1e-6)
    assert F.to_grayscale(rgb)[0, 0, 0] == pytest.approx(0.299 * 200 + 0.587 * 100
                                                         + 0.114 * 50, rel=1e-6)
    saturated = F.adjust_saturation(as_tensor(rgb / 255), 0.0).numpy()[:, 0, 0]
    np.testing.assert_allclose(saturated, [tensor_grey / 255] * 3, rtol=1e-6)


def test_batches_of_tensors_match_image_by_image():
    dygraph.seed(777)
    batch = dygraph.rand([2, 3, 8, 8])
    calls = [lambda img: F.erase(img, 1, 1, 2, 2, 0.5),
             lambda img: F.affine(img, 45, translate=[0.2, 0.2], scale=0.5, shear=[-10, 10]),
             lambda img: F.perspective(img, [[0, 0], [3, 0], [4, 5], [6, 7]],
                                       [[0, 1], [3, 1], [4, 4], [5, 7]]),
             lambda img: F.adjust_brightness(img, 2.1), lambda img: F.adjust_contrast(img, 0.3),
             lambda img: F.adjust_saturation(img, 1.1), lambda img: F.adjust_hue(img, -0.2)]
    for call in calls:
        expect = np.stack([call(batch[i]).numpy() for i in range(2)])
        np.testing.assert_allclose(call(batch).numpy(), expect, rtol=1e-6)
    for transform in (T.ColorJitter(1.2, 0.2, 0.5, 0.2), T.RandomPerspective(1.0, 0.7),
                      T.RandomAffine(15, translate=[0.1, 0.1]),
                      T.RandomErasing(1.0, value=(0.5, 0.2, 0.01))):
        assert transform(batch).shape == [2, 3, 8, 8]


def test_erase_on_tensors_is_differentiable():
    img = dygraph.randn([3, 14, 14])
    img.stop_gradient = False
    value = dygraph.ones([1, 1, 1])
    value.stop_gradient = False
    F.erase(img, 3, 3, 5, 5, value).sum().backward()
    expected = np.ones((3, 14, 14), np.float32)
    expected[:, 3:8, 3:8] = 0.0
    np.testing.assert_array_equal(img.grad.numpy(), expected)
    assert value.grad.numpy().item() == 75.0
    same = dygraph.zeros([1, 4, 4])
    assert F.erase(same, 0, 0, 2, 2, 1.0, inplace=True) is same
    assert same.numpy().sum() == 4.0


def test_to_tensor_of_other_pil_modes():
    grey = Image.fromarray(np.arange(0, 256, 16, dtype=np.uint8).reshape(4, 4))
    assert F.to_tensor(grey.convert("I;16")).dtype == dygraph.int32
    assert F.to_tensor(grey.convert("F")).dtype == dygraph.float32
    assert F.to_tensor(grey.convert("1")).numpy().max() == 1.0
    assert F.to_tensor(grey.convert("YCbCr")).shape == [3, 4, 4]
