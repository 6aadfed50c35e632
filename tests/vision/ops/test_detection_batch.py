"""A detection-shaped batch: two images of 256-channel 32 x 32 features (a 256 x 256 input
at stride 8), 100 scored boxes each; nms keeps each image's boxes, roi_align pools the kept
ones to 7 x 7, a linear head scores them and the loss's gradient reaches the features. The
parts are checked against brute-force references; the same step runs under to_static."""

import warnings

import numpy as np

import dygraph
from dygraph.vision.ops import nms, roi_align
from tests.op_specs.spec_vision_ops import roi_align_ref

RNG = np.random.default_rng(7)
BATCH, BOXES, CHANNELS, SIZE, STRIDE = 2, 100, 256, 32, 8


def _boxes(n):
    corners = RNG.uniform(0, 224, (n, 2))
    sides = RNG.uniform(12, 128, (n, 2))
    return np.concatenate([corners, np.minimum(corners + sides, 256)], 1).astype(np.float32)


FEATURES = RNG.standard_normal((BATCH, CHANNELS, SIZE, SIZE)).astype(np.float32)
ALL_BOXES = [_boxes(BOXES) for _ in range(BATCH)]
SCORES = [RNG.permutation(BOXES).astype(np.float32) / BOXES for _ in range(BATCH)]
HEAD = (RNG.standard_normal((CHANNELS * 49, 4)) * 0.01).astype(np.float32)


def _nms_ref(boxes, scores, threshold):
    """Greedy NMS, one pair at a time."""
    def iou(a, b):
        w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
        h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
        union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - w * h
        return w * h / union

    keep = []
    for i in sorted(range(len(boxes)), key=lambda k: -scores[k]):
        if all(iou(boxes[i], boxes[k]) <= threshold for k in keep):
            keep.append(i)
    return keep


def _step(features):
    """nms per image, roi_align of the kept boxes, a linear head: (pooled, loss)."""
    kept, counts = [], []
    for b in range(BATCH):
        boxes = dygraph.to_tensor(ALL_BOXES[b])
        keep = nms(boxes, 0.5, dygraph.to_tensor(SCORES[b]))
        kept.append(dygraph.gather(boxes, keep))
        counts.append(keep.shape[0])
    rois = dygraph.concat(kept)
    pooled = roi_align(features, rois, dygraph.to_tensor(counts, dtype="int32"), 7,
                       spatial_scale=1 / STRIDE, sampling_ratio=2)
    logits = dygraph.matmul(pooled.reshape([pooled.shape[0], -1]), dygraph.to_tensor(HEAD))
    return pooled, rois, (logits * logits).mean()


def test_nms_and_roi_align_on_a_detection_batch():
    features = dygraph.to_tensor(FEATURES, stop_gradient=False)
    pooled, rois, loss = _step(features)
    kept = [_nms_ref(ALL_BOXES[b], SCORES[b], 0.5) for b in range(BATCH)]
    np.testing.assert_array_equal(rois.numpy(), np.concatenate(
        [ALL_BOXES[b][k] for b, k in enumerate(kept)]))
    assert pooled.shape == [len(kept[0]) + len(kept[1]), CHANNELS, 7, 7]
    # Three of the boxes (the first and last of image 0, the last of image 1), against
    # the loop reference on the first channels.
    picks = [0, len(kept[0]) - 1, pooled.shape[0] - 1]
    images = np.array([0, 0, 1], np.int32)
    want = roi_align_ref(FEATURES[:, :8].astype(np.float64), rois.numpy()[picks].astype(
        np.float64), np.bincount(images, minlength=2), (7, 7), 1 / STRIDE, 2)
    np.testing.assert_allclose(pooled.numpy()[picks, :8], want, rtol=1e-5, atol=1e-5)
    # roi_align is linear in the features: <roi_align(x), g> = <x, gradient of it>.
    loss.backward(retain_graph=True)
    g = RNG.standard_normal(pooled.shape).astype(np.float32)
    (gx,) = dygraph.grad((pooled * dygraph.to_tensor(g)).sum(), [features])
    np.testing.assert_allclose((pooled.numpy() * g).sum(), (FEATURES * gx.numpy()).sum(),
                               rtol=1e-4)
    assert features.grad.shape == [BATCH, CHANNELS, SIZE, SIZE]
    assert np.abs(features.grad.numpy()).sum() > 0


def test_the_step_under_to_static_gives_eager_numbers():
    features = dygraph.to_tensor(FEATURES, stop_gradient=False)
    _, rois, loss = _step(features)
    (want,) = dygraph.grad(loss, [features])

    def step(x):
        _, kept, value = _step(x)
        return kept, value

    converted = dygraph.jit.to_static(step)
    features = dygraph.to_tensor(FEATURES, stop_gradient=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a fallback to eager running would warn
        got_rois, got_loss = converted(features)
    (got,) = dygraph.grad(got_loss, [features])
    np.testing.assert_array_equal(got_rois.numpy(), rois.numpy())
    np.testing.assert_allclose(got_loss.numpy(), loss.numpy(), rtol=1e-6)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-9)
