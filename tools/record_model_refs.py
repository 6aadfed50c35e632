"""Record the PyTorch reference numbers of the models in tests/models/reference.py.

For each model: the DyGraph model is built and filled with `reference_weights` (a fixed
NumPy rule); a PyTorch mirror of the architecture, written here from Paddle's reference
implementations (benchmarks/torch_mirrors.py's for the benchmark's sequence models), takes
the same weights; PyTorch then computes in float64 the eval-mode logits and one training
step's loss and gradients on a fixed batch. tests/data/model_refs/<name>.npz keeps

    input, labels         the batch (float32 images or sequences, int64 labels)
    logits_<i>            the eval-mode outputs (GoogLeNet has three)
    loss                  the training step's loss
    grad_names            the trainable parameters (DyGraph's structured names)
    grad_sketch           [parameter, 4]: gradient_sketch of each parameter's gradient
    torch_float32_errors  PyTorch's own float32 errors (outputs, loss, gradients) on the
                          same problem, which the test's float32 tolerances scale with
    weights_sha256        digest of the weights the rule gave (checked by the test)
    step_mode, torch_version

and the script prints, per model, DyGraph's eager float64 errors against the recording
(the numbers behind the test's float64 tolerances) and PyTorch's float32 ones.

PyTorch's mirrors are independent of DyGraph's model code: they share only the parameter
names and shapes (the weights are copied by name: a Linear weight is [in, out] in DyGraph
and Paddle, [out, in] in PyTorch; batch norm's _mean/_variance are running_mean/_var), and
they follow Paddle's semantics where PyTorch's differ: Paddle's Hardsigmoid is
clip(x * 0.1666667 + 0.5, 0, 1) (not x / 6 + 1 / 2), and downscale_in_infer dropout
multiplies by 1 - p at inference (PyTorch's dropout is the identity there). Where
benchmarks/torch_mirrors.py mirrors the same model (ResNet-18, MobileNetV2, LeNet), the two
mirrors must agree to 1e-12; the test's copy of the benchmark's sequence models must build
benchmarks/models.py's state dict and outputs.

Run (PyTorch and DyGraph in one environment, e.g. /tmp/torch-venv with
`pip install torch==2.13.0 numpy` and `pip install -e . --no-deps`):

    python tools/record_model_refs.py [--models resnet18,lstm] [--check-only]

--check-only compares without writing (to see the errors of a changed DyGraph).
"""

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as TF  # noqa: E402
from torch import nn  # noqa: E402

import dygraph  # noqa: E402
from tests.models import reference as R  # noqa: E402

# ---------------------------------------------------------------------------------------
# Building blocks with Paddle's semantics


class PaddleHardsigmoid(nn.Module):
    """Paddle's nn.Hardsigmoid: clip(x * 0.1666667 + 0.5, 0, 1) (slope 0.1666667, as
    paddle.nn.functional.hardsigmoid's default, not 1/6)."""

    def forward(self, x):
        return torch.clamp(x * 0.1666667 + 0.5, 0.0, 1.0)


class DownscaleDropout(nn.Module):
    """Paddle's Dropout(mode='downscale_in_infer'): x * (1 - p) at inference. Training
    runs of the recorded models have it at p = 0 or in eval mode."""

    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, x):
        if self.training:
            if self.p:
                raise ValueError("the recorded steps never train with dropout")
            return x
        return x * (1.0 - self.p)


def conv_norm_act(cin, cout, kernel, stride=1, padding=None, groups=1, act=nn.ReLU,
                  eps=1e-5):
    """paddle.vision.ops.ConvNormActivation: Sequential(conv (no bias), BN, act)."""
    if padding is None:
        padding = (kernel - 1) // 2 if isinstance(kernel, int) else tuple(
            (k - 1) // 2 for k in kernel)
    layers = [nn.Conv2d(cin, cout, kernel, stride, padding, groups=groups, bias=False),
              nn.BatchNorm2d(cout, eps=eps)]
    if act is not None:
        layers.append(act())
    return nn.Sequential(*layers)


def make_divisible(v, divisor=8, min_value=None):
    """Paddle's _make_divisible (MobileNet channel rounding)."""
    min_value = divisor if min_value is None else min_value
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


# ---------------------------------------------------------------------------------------
# LeNet, MNISTNet


class LeNet(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 6, 3, 1, 1), nn.ReLU(), nn.MaxPool2d(2, 2),
            nn.Conv2d(6, 16, 5, 1, 0), nn.ReLU(), nn.MaxPool2d(2, 2))
        self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84),
                                nn.Linear(84, num_classes))

    def forward(self, x):
        return self.fc(torch.flatten(self.features(x), 1))


class _ConvPoolRelu(nn.Module):
    # The seeds' SimpleImgConvPool with relu and a 2x2/2 max-pool.
    def __init__(self, cin, cout, k):
        super().__init__()
        self._conv2d = nn.Conv2d(cin, cout, k)

    def forward(self, x):
        return TF.max_pool2d(torch.relu(self._conv2d(x)), 2, 2)


class MNISTNet(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self._simple_img_conv_pool_1 = _ConvPoolRelu(1, 20, 5)
        self._simple_img_conv_pool_2 = _ConvPoolRelu(20, 50, 5)
        self._fc = nn.Linear(800, num_classes)

    def forward(self, x):
        x = self._simple_img_conv_pool_2(self._simple_img_conv_pool_1(x))
        return self._fc(torch.flatten(x, 1))


# ---------------------------------------------------------------------------------------
# ResNet


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride, downsample):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride, downsample):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv3 = nn.Conv2d(planes, planes * 4, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes * 4)
        self.relu = nn.ReLU()
        self.downsample = downsample

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + identity)


class ResNet(nn.Module):
    def __init__(self, block, layers, num_classes):
        super().__init__()
        self.inplanes = 64
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        for i, (planes, blocks) in enumerate(zip((64, 128, 256, 512), layers)):
            setattr(self, f"layer{i + 1}",
                    self._make_layer(block, planes, blocks, 1 if i == 0 else 2))
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(512 * block.expansion, num_classes)

    def _make_layer(self, block, planes, blocks, stride):
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                nn.Conv2d(self.inplanes, planes * block.expansion, 1, stride, bias=False),
                nn.BatchNorm2d(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample)]
        self.inplanes = planes * block.expansion
        layers += [block(self.inplanes, planes, 1, None) for _ in range(1, blocks)]
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


# ---------------------------------------------------------------------------------------
# MobileNet V1, V2, V3


class DepthwiseSeparable(nn.Module):
    def __init__(self, cin, out1, out2, groups, stride, scale):
        super().__init__()
        self._depthwise_conv = conv_norm_act(cin, int(out1 * scale), 3, stride, 1,
                                             groups=int(groups * scale))
        self._pointwise_conv = conv_norm_act(int(out1 * scale), int(out2 * scale), 1, 1, 0)

    def forward(self, x):
        return self._pointwise_conv(self._depthwise_conv(x))


class MobileNetV1(nn.Module):
    # (name, input, depthwise, pointwise, stride) of Paddle's blocks, unscaled.
    BLOCKS = [("conv2_1", 32, 32, 64, 1), ("conv2_2", 64, 64, 128, 2),
              ("conv3_1", 128, 128, 128, 1), ("conv3_2", 128, 128, 256, 2),
              ("conv4_1", 256, 256, 256, 1), ("conv4_2", 256, 256, 512, 2),
              ("conv5_1", 512, 512, 512, 1), ("conv5_2", 512, 512, 512, 1),
              ("conv5_3", 512, 512, 512, 1), ("conv5_4", 512, 512, 512, 1),
              ("conv5_5", 512, 512, 512, 1), ("conv5_6", 512, 512, 1024, 2),
              ("conv6", 1024, 1024, 1024, 1)]

    def __init__(self, scale, num_classes):
        super().__init__()
        self.conv1 = conv_norm_act(3, int(32 * scale), 3, 2, 1)
        self.names = []
        for name, cin, dw, pw, stride in self.BLOCKS:
            self.add_module(name, DepthwiseSeparable(int(cin * scale), dw, pw, dw, stride,
                                                     scale))
            self.names.append(name)
        self.pool2d_avg = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(int(1024 * scale), num_classes)

    def forward(self, x):
        x = self.conv1(x)
        for name in self.names:
            x = getattr(self, name)(x)
        return self.fc(torch.flatten(self.pool2d_avg(x), 1))


class InvertedResidualV2(nn.Module):
    def __init__(self, inp, oup, stride, expand_ratio):
        super().__init__()
        hidden = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(conv_norm_act(inp, hidden, 1, act=nn.ReLU6))
        layers += [conv_norm_act(hidden, hidden, 3, stride, groups=hidden, act=nn.ReLU6),
                   nn.Conv2d(hidden, oup, 1, 1, 0, bias=False), nn.BatchNorm2d(oup)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        return x + self.conv(x) if self.use_res_connect else self.conv(x)


class MobileNetV2(nn.Module):
    CFG = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
           (6, 160, 3, 2), (6, 320, 1, 1)]

    def __init__(self, scale, num_classes):
        super().__init__()
        channels = make_divisible(32 * scale)
        self.last_channel = make_divisible(1280 * max(1.0, scale))
        features = [conv_norm_act(3, channels, 3, 2, act=nn.ReLU6)]
        for t, c, n, s in self.CFG:
            out = make_divisible(c * scale)
            for i in range(n):
                features.append(InvertedResidualV2(channels, out, s if i == 0 else 1, t))
                channels = out
        features.append(conv_norm_act(channels, self.last_channel, 1, act=nn.ReLU6))
        self.features = nn.Sequential(*features)
        self.pool2d_avg = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Dropout(0.2),
                                        nn.Linear(self.last_channel, num_classes))

    def forward(self, x):
        return self.classifier(torch.flatten(self.pool2d_avg(self.features(x)), 1))


class SqueezeExcitation(nn.Module):
    def __init__(self, channels, squeeze):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(channels, squeeze, 1)
        self.fc2 = nn.Conv2d(squeeze, channels, 1)
        self.activation = nn.ReLU()
        self.scale_activation = PaddleHardsigmoid()

    def forward(self, x):
        scale = self.fc2(self.activation(self.fc1(self.avgpool(x))))
        return self.scale_activation(scale) * x


class InvertedResidualV3(nn.Module):
    def __init__(self, cin, expanded, cout, kernel, stride, use_se, act):
        super().__init__()
        self.use_res_connect = stride == 1 and cin == cout
        self.expand = cin != expanded
        if self.expand:
            self.expand_conv = conv_norm_act(cin, expanded, 1, 1, 0, act=act, eps=1e-3)
        self.bottleneck_conv = conv_norm_act(expanded, expanded, kernel, stride,
                                             (kernel - 1) // 2, groups=expanded, act=act,
                                             eps=1e-3)
        self.use_se = use_se
        if use_se:
            self.mid_se = SqueezeExcitation(expanded, make_divisible(expanded // 4))
        self.linear_conv = conv_norm_act(expanded, cout, 1, 1, 0, act=None, eps=1e-3)

    def forward(self, x):
        out = self.expand_conv(x) if self.expand else x
        out = self.bottleneck_conv(out)
        if self.use_se:
            out = self.mid_se(out)
        out = self.linear_conv(out)
        return x + out if self.use_res_connect else out


class MobileNetV3(nn.Module):
    # (input, kernel, expanded, output, squeeze-excite, activation, stride), unscaled.
    SMALL = [(16, 3, 16, 16, True, "relu", 2), (16, 3, 72, 24, False, "relu", 2),
             (24, 3, 88, 24, False, "relu", 1), (24, 5, 96, 40, True, "hardswish", 2),
             (40, 5, 240, 40, True, "hardswish", 1), (40, 5, 240, 40, True, "hardswish", 1),
             (40, 5, 120, 48, True, "hardswish", 1), (48, 5, 144, 48, True, "hardswish", 1),
             (48, 5, 288, 96, True, "hardswish", 2), (96, 5, 576, 96, True, "hardswish", 1),
             (96, 5, 576, 96, True, "hardswish", 1)]
    LARGE = [(16, 3, 16, 16, False, "relu", 1), (16, 3, 64, 24, False, "relu", 2),
             (24, 3, 72, 24, False, "relu", 1), (24, 5, 72, 40, True, "relu", 2),
             (40, 5, 120, 40, True, "relu", 1), (40, 5, 120, 40, True, "relu", 1),
             (40, 3, 240, 80, False, "hardswish", 2), (80, 3, 200, 80, False, "hardswish", 1),
             (80, 3, 184, 80, False, "hardswish", 1), (80, 3, 184, 80, False, "hardswish", 1),
             (80, 3, 480, 112, True, "hardswish", 1),
             (112, 3, 672, 112, True, "hardswish", 1),
             (112, 5, 672, 160, True, "hardswish", 2),
             (160, 5, 960, 160, True, "hardswish", 1),
             (160, 5, 960, 160, True, "hardswish", 1)]

    def __init__(self, large, scale, num_classes):
        super().__init__()
        acts = {"relu": nn.ReLU, "hardswish": nn.Hardswish}
        cfg = [(make_divisible(i * scale), k, make_divisible(e * scale),
                make_divisible(o * scale), se, acts[a], s)
               for i, k, e, o, se, a, s in (self.LARGE if large else self.SMALL)]
        last_channel = make_divisible((1280 if large else 1024) * scale)
        first, last_in = cfg[0][0], cfg[-1][0]
        self.conv = conv_norm_act(3, first, 3, 2, 1, act=nn.Hardswish, eps=1e-3)
        self.blocks = nn.Sequential(*[InvertedResidualV3(i, e, o, k, s, se, a)
                                      for i, k, e, o, se, a, s in cfg])
        self.lastconv = conv_norm_act(last_in, last_in * 6, 1, 1, 0, act=nn.Hardswish,
                                      eps=1e-3)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Linear(last_in * 6, last_channel), nn.Hardswish(),
                                        nn.Dropout(0.2), nn.Linear(last_channel, num_classes))

    def forward(self, x):
        x = self.lastconv(self.blocks(self.conv(x)))
        return self.classifier(torch.flatten(self.avgpool(x), 1))


# ---------------------------------------------------------------------------------------
# VGG, AlexNet, SqueezeNet


class VGG(nn.Module):
    CFG11 = [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"]

    def __init__(self, hidden, num_classes):
        super().__init__()
        layers, cin = [], 3
        for item in self.CFG11:
            if item == "M":
                layers.append(nn.MaxPool2d(2, 2))
                continue
            layers += [nn.Conv2d(cin, item, 3, padding=1), nn.BatchNorm2d(item), nn.ReLU()]
            cin = item
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, hidden), nn.ReLU(), nn.Dropout(),
            nn.Linear(hidden, hidden), nn.ReLU(), nn.Dropout(), nn.Linear(hidden, num_classes))

    def forward(self, x):
        return self.classifier(torch.flatten(self.avgpool(self.features(x)), 1))


class _ConvPool(nn.Module):
    # AlexNet's ConvPoolLayer: conv, relu, 3x3/2 max-pool.
    def __init__(self, cin, cout, k, stride, padding):
        super().__init__()
        self._conv = nn.Conv2d(cin, cout, k, stride, padding)
        self._pool = nn.MaxPool2d(3, 2, 0)

    def forward(self, x):
        return self._pool(torch.relu(self._conv(x)))


class AlexNet(nn.Module):
    def __init__(self, flat, hidden, num_classes):
        super().__init__()
        self._conv1 = _ConvPool(3, 64, 11, 4, 2)
        self._conv2 = _ConvPool(64, 192, 5, 1, 2)
        self._conv3 = nn.Conv2d(192, 384, 3, 1, 1)
        self._conv4 = nn.Conv2d(384, 256, 3, 1, 1)
        self._conv5 = _ConvPool(256, 256, 3, 1, 1)
        self._drop1 = DownscaleDropout(0.5)
        self._fc6 = nn.Linear(flat, hidden)
        self._drop2 = DownscaleDropout(0.5)
        self._fc7 = nn.Linear(hidden, hidden)
        self._fc8 = nn.Linear(hidden, num_classes)

    def forward(self, x):
        x = self._conv2(self._conv1(x))
        x = torch.relu(self._conv4(torch.relu(self._conv3(x))))
        x = self._drop1(torch.flatten(self._conv5(x), 1))
        x = self._drop2(torch.relu(self._fc6(x)))
        return self._fc8(torch.relu(self._fc7(x)))


class _FireConv(nn.Module):
    def __init__(self, cin, cout, k, padding=0):
        super().__init__()
        self._conv = nn.Conv2d(cin, cout, k, padding=padding)

    def forward(self, x):
        return torch.relu(self._conv(x))


class _Fire(nn.Module):
    def __init__(self, cin, squeeze, e1, e3):
        super().__init__()
        self._conv = _FireConv(cin, squeeze, 1)
        self._conv_path1 = _FireConv(squeeze, e1, 1)
        self._conv_path2 = _FireConv(squeeze, e3, 3, 1)

    def forward(self, x):
        x = self._conv(x)
        return torch.cat([self._conv_path1(x), self._conv_path2(x)], 1)


class SqueezeNet(nn.Module):
    def __init__(self, version, num_classes):
        super().__init__()
        self.version = version
        if version == "1.0":
            self._conv = nn.Conv2d(3, 96, 7, stride=2)
            fires = [(96, 16, 64, 64)]
        else:
            self._conv = nn.Conv2d(3, 64, 3, stride=2, padding=1)
            fires = [(64, 16, 64, 64)]
        fires += [(128, 16, 64, 64), (128, 32, 128, 128), (256, 32, 128, 128),
                  (256, 48, 192, 192), (384, 48, 192, 192), (384, 64, 256, 256),
                  (512, 64, 256, 256)]
        for i, f in enumerate(fires):
            self.add_module(f"_conv{i + 1}", _Fire(*f))
        self._pool = nn.MaxPool2d(3, 2, 0)
        self._drop = DownscaleDropout(0.5)
        self._conv9 = nn.Conv2d(512, num_classes, 1)
        self._avg_pool = nn.AdaptiveAvgPool2d(1)

    def forward(self, x):
        x = self._pool(torch.relu(self._conv(x)))
        pools = (3, 7) if self.version == "1.0" else (2, 4)
        for i in range(1, 9):
            x = getattr(self, f"_conv{i}")(x)
            if i in pools:
                x = self._pool(x)
        x = self._conv9(self._drop(x))
        return torch.flatten(self._avg_pool(torch.relu(x)), 1)


# ---------------------------------------------------------------------------------------
# ShuffleNetV2


def channel_shuffle(x, groups):
    n, c, h, w = x.shape
    return x.reshape(n, groups, c // groups, h, w).transpose(1, 2).reshape(n, c, h, w)


class ShuffleUnit(nn.Module):
    # The stride-1 unit: split channels, transform the second half, concat, shuffle.
    def __init__(self, channels, act):
        super().__init__()
        half = channels // 2
        self._conv_pw = conv_norm_act(half, half, 1, 1, 0, act=act)
        self._conv_dw = conv_norm_act(half, half, 3, 1, 1, groups=half, act=None)
        self._conv_linear = conv_norm_act(half, half, 1, 1, 0, act=act)

    def forward(self, x):
        x1, x2 = torch.chunk(x, 2, dim=1)
        x2 = self._conv_linear(self._conv_dw(self._conv_pw(x2)))
        return channel_shuffle(torch.cat([x1, x2], 1), 2)


class ShuffleUnitDS(nn.Module):
    # The downsampling unit: two stride-2 branches on the whole input.
    def __init__(self, cin, cout, act):
        super().__init__()
        half = cout // 2
        self._conv_dw_1 = conv_norm_act(cin, cin, 3, 2, 1, groups=cin, act=None)
        self._conv_linear_1 = conv_norm_act(cin, half, 1, 1, 0, act=act)
        self._conv_pw_2 = conv_norm_act(cin, half, 1, 1, 0, act=act)
        self._conv_dw_2 = conv_norm_act(half, half, 3, 2, 1, groups=half, act=None)
        self._conv_linear_2 = conv_norm_act(half, half, 1, 1, 0, act=act)

    def forward(self, x):
        x1 = self._conv_linear_1(self._conv_dw_1(x))
        x2 = self._conv_linear_2(self._conv_dw_2(self._conv_pw_2(x)))
        return channel_shuffle(torch.cat([x1, x2], 1), 2)


class ShuffleNetV2(nn.Module):
    CHANNELS = {0.25: (24, 24, 48, 96, 512)}

    def __init__(self, scale, act, num_classes):
        super().__init__()
        act = {"relu": nn.ReLU, "swish": nn.SiLU}[act]  # Paddle's Swish is x * sigmoid(x)
        ch = self.CHANNELS[scale]
        self._conv1 = conv_norm_act(3, ch[0], 3, 2, 1, act=act)
        self._max_pool = nn.MaxPool2d(3, 2, 1)
        self.names = []
        for stage, repeats in enumerate((4, 8, 4)):
            for i in range(repeats):
                block = (ShuffleUnitDS(ch[stage], ch[stage + 1], act) if i == 0
                         else ShuffleUnit(ch[stage + 1], act))
                name = f"{stage + 2}_{i + 1}"
                self.add_module(name, block)
                self.names.append(name)
        self._last_conv = conv_norm_act(ch[3], ch[4], 1, 1, 0, act=act)
        self._pool2d_avg = nn.AdaptiveAvgPool2d(1)
        self._fc = nn.Linear(ch[4], num_classes)

    def forward(self, x):
        x = self._max_pool(self._conv1(x))
        for name in self.names:
            x = getattr(self, name)(x)
        return self._fc(torch.flatten(self._pool2d_avg(self._last_conv(x)), 1))


# ---------------------------------------------------------------------------------------
# DenseNet


class BNACConv(nn.Module):
    def __init__(self, cin, cout, k, pad=0):
        super().__init__()
        self._batch_norm = nn.BatchNorm2d(cin)
        self._conv = nn.Conv2d(cin, cout, k, 1, pad, bias=False)

    def forward(self, x):
        return self._conv(torch.relu(self._batch_norm(x)))


class DenseLayer(nn.Module):
    def __init__(self, cin, growth, bn_size):
        super().__init__()
        self.bn_ac_func1 = BNACConv(cin, bn_size * growth, 1)
        self.bn_ac_func2 = BNACConv(bn_size * growth, growth, 3, 1)

    def forward(self, x):
        return torch.cat([x, self.bn_ac_func2(self.bn_ac_func1(x))], 1)


class DenseNet121(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        channels, growth, blocks = 64, 32, (6, 12, 24, 16)
        self.conv1_func = nn.Module()
        self.conv1_func._conv = nn.Conv2d(3, channels, 7, 2, 3, bias=False)
        self.conv1_func._batch_norm = nn.BatchNorm2d(channels)
        self.pool2d_max = nn.MaxPool2d(3, 2, 1)
        self.order = []
        for i, n in enumerate(blocks):
            block = nn.Module()
            block.names = []
            for j in range(n):
                block.add_module(f"conv{i + 2}_{j + 1}",
                                 DenseLayer(channels + j * growth, growth, 4))
                block.names.append(f"conv{i + 2}_{j + 1}")
            self.add_module(f"db_conv_{i + 2}", block)
            self.order.append(block)
            channels += n * growth
            if i != len(blocks) - 1:
                tr = nn.Module()
                tr.conv_ac_func = BNACConv(channels, channels // 2, 1)
                self.add_module(f"tr_conv{i + 2}_blk", tr)
                self.order.append(tr)
                channels //= 2
        self.batch_norm = nn.BatchNorm2d(channels)
        self.pool2d_avg = nn.AdaptiveAvgPool2d(1)
        self.out = nn.Linear(channels, num_classes)

    def forward(self, x):
        c = self.conv1_func
        x = self.pool2d_max(torch.relu(c._batch_norm(c._conv(x))))
        for part in self.order:
            if hasattr(part, "names"):
                for name in part.names:
                    x = getattr(part, name)(x)
            else:
                x = TF.avg_pool2d(part.conv_ac_func(x), 2, 2, 0)
        x = torch.relu(self.batch_norm(x))
        return self.out(torch.flatten(self.pool2d_avg(x), 1))


# ---------------------------------------------------------------------------------------
# GoogLeNet


class _Conv(nn.Module):
    # GoogLeNet's ConvLayer: a bias-free "same" convolution, no norm, no activation.
    def __init__(self, cin, cout, k, stride=1):
        super().__init__()
        self._conv = nn.Conv2d(cin, cout, k, stride, (k - 1) // 2, bias=False)

    def forward(self, x):
        return self._conv(x)


class Inception(nn.Module):
    def __init__(self, cin, f1, f3r, f3, f5r, f5, proj):
        super().__init__()
        self._conv1 = _Conv(cin, f1, 1)
        self._conv3r = _Conv(cin, f3r, 1)
        self._conv3 = _Conv(f3r, f3, 3)
        self._conv5r = _Conv(cin, f5r, 1)
        self._conv5 = _Conv(f5r, f5, 5)
        self._pool = nn.MaxPool2d(3, 1, 1)
        self._convprj = _Conv(cin, proj, 1)

    def forward(self, x):
        return torch.relu(torch.cat([
            self._conv1(x), self._conv3(self._conv3r(x)), self._conv5(self._conv5r(x)),
            self._convprj(self._pool(x))], 1))


class GoogLeNet(nn.Module):
    INCEPTIONS = [("_ince3a", (192, 64, 96, 128, 16, 32, 32)),
                  ("_ince3b", (256, 128, 128, 192, 32, 96, 64)),
                  ("_ince4a", (480, 192, 96, 208, 16, 48, 64)),
                  ("_ince4b", (512, 160, 112, 224, 24, 64, 64)),
                  ("_ince4c", (512, 128, 128, 256, 24, 64, 64)),
                  ("_ince4d", (512, 112, 144, 288, 32, 64, 64)),
                  ("_ince4e", (528, 256, 160, 320, 32, 128, 128)),
                  ("_ince5a", (832, 256, 160, 320, 32, 128, 128)),
                  ("_ince5b", (832, 384, 192, 384, 48, 128, 128))]

    def __init__(self, aux_flat, num_classes):
        super().__init__()
        self._conv = _Conv(3, 64, 7, 2)
        self._pool = nn.MaxPool2d(3, 2)
        self._conv_1 = _Conv(64, 64, 1)
        self._conv_2 = _Conv(64, 192, 3)
        for name, cfg in self.INCEPTIONS:
            self.add_module(name, Inception(*cfg))
        self._pool_5 = nn.AdaptiveAvgPool2d(1)
        self._pool_o1 = nn.AvgPool2d(5, 3)
        self._pool_o2 = nn.AvgPool2d(5, 3)
        self._drop = DownscaleDropout(0.4)
        self._fc_out = nn.Linear(1024, num_classes)
        for i, cin in ((1, 512), (2, 528)):
            self.add_module(f"_conv_o{i}", _Conv(cin, 128, 1))
            self.add_module(f"_fc_o{i}", nn.Linear(aux_flat, 1024))
            self.add_module(f"_drop_o{i}", DownscaleDropout(0.7))
            self.add_module(f"_out{i}", nn.Linear(1024, num_classes))

    def forward(self, x):
        x = self._pool(self._conv(x))
        x = self._pool(self._conv_2(self._conv_1(x)))
        x = self._pool(self._ince3b(self._ince3a(x)))
        ince4a = self._ince4a(x)
        ince4d = self._ince4d(self._ince4c(self._ince4b(ince4a)))
        x = self._pool(self._ince4e(ince4d))
        out = self._pool_5(self._ince5b(self._ince5a(x)))
        out = self._fc_out(torch.flatten(self._drop(out), 1))
        # Paddle's first auxiliary head has a relu after its hidden linear; the second not.
        o1 = torch.flatten(self._conv_o1(self._pool_o1(ince4a)), 1)
        o1 = self._out1(self._drop_o1(torch.relu(self._fc_o1(o1))))
        o2 = torch.flatten(self._conv_o2(self._pool_o2(ince4d)), 1)
        o2 = self._out2(self._drop_o2(self._fc_o2(o2)))
        return out, o1, o2


# ---------------------------------------------------------------------------------------
# InceptionV3


def _cna(cin, cout, k, stride=1, padding=0):
    return conv_norm_act(cin, cout, k, stride, padding)


def _avg3():
    # Paddle's AvgPool2D(3, 1, 1, exclusive=False): padding counted in the mean.
    return nn.AvgPool2d(3, 1, 1, count_include_pad=True)


class InceptionStem(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv_1a_3x3 = _cna(3, 32, 3, 2)
        self.conv_2a_3x3 = _cna(32, 32, 3)
        self.conv_2b_3x3 = _cna(32, 64, 3, padding=1)
        self.max_pool = nn.MaxPool2d(3, 2, 0)
        self.conv_3b_1x1 = _cna(64, 80, 1)
        self.conv_4a_3x3 = _cna(80, 192, 3)

    def forward(self, x):
        x = self.max_pool(self.conv_2b_3x3(self.conv_2a_3x3(self.conv_1a_3x3(x))))
        return self.max_pool(self.conv_4a_3x3(self.conv_3b_1x1(x)))


class InceptionA(nn.Module):
    def __init__(self, cin, pool_features):
        super().__init__()
        self.branch1x1 = _cna(cin, 64, 1)
        self.branch5x5_1 = _cna(cin, 48, 1)
        self.branch5x5_2 = _cna(48, 64, 5, padding=2)
        self.branch3x3dbl_1 = _cna(cin, 64, 1)
        self.branch3x3dbl_2 = _cna(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _cna(96, 96, 3, padding=1)
        self.branch_pool = _avg3()
        self.branch_pool_conv = _cna(cin, pool_features, 1)

    def forward(self, x):
        return torch.cat([
            self.branch1x1(x), self.branch5x5_2(self.branch5x5_1(x)),
            self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x))),
            self.branch_pool_conv(self.branch_pool(x))], 1)


class InceptionB(nn.Module):
    def __init__(self, cin):
        super().__init__()
        self.branch3x3 = _cna(cin, 384, 3, 2)
        self.branch3x3dbl_1 = _cna(cin, 64, 1)
        self.branch3x3dbl_2 = _cna(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _cna(96, 96, 3, 2)
        self.branch_pool = nn.MaxPool2d(3, 2)

    def forward(self, x):
        return torch.cat([
            self.branch3x3(x),
            self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x))),
            self.branch_pool(x)], 1)


class InceptionC(nn.Module):
    def __init__(self, cin, c7):
        super().__init__()
        self.branch1x1 = _cna(cin, 192, 1)
        self.branch7x7_1 = _cna(cin, c7, 1)
        self.branch7x7_2 = _cna(c7, c7, (1, 7), padding=(0, 3))
        self.branch7x7_3 = _cna(c7, 192, (7, 1), padding=(3, 0))
        self.branch7x7dbl_1 = _cna(cin, c7, 1)
        self.branch7x7dbl_2 = _cna(c7, c7, (7, 1), padding=(3, 0))
        self.branch7x7dbl_3 = _cna(c7, c7, (1, 7), padding=(0, 3))
        self.branch7x7dbl_4 = _cna(c7, c7, (7, 1), padding=(3, 0))
        self.branch7x7dbl_5 = _cna(c7, 192, (1, 7), padding=(0, 3))
        self.branch_pool = _avg3()
        self.branch_pool_conv = _cna(cin, 192, 1)

    def forward(self, x):
        b7 = self.branch7x7_3(self.branch7x7_2(self.branch7x7_1(x)))
        dbl = self.branch7x7dbl_1(x)
        for i in range(2, 6):
            dbl = getattr(self, f"branch7x7dbl_{i}")(dbl)
        return torch.cat([self.branch1x1(x), b7, dbl,
                          self.branch_pool_conv(self.branch_pool(x))], 1)


class InceptionD(nn.Module):
    def __init__(self, cin):
        super().__init__()
        self.branch3x3_1 = _cna(cin, 192, 1)
        self.branch3x3_2 = _cna(192, 320, 3, 2)
        self.branch7x7x3_1 = _cna(cin, 192, 1)
        self.branch7x7x3_2 = _cna(192, 192, (1, 7), padding=(0, 3))
        self.branch7x7x3_3 = _cna(192, 192, (7, 1), padding=(3, 0))
        self.branch7x7x3_4 = _cna(192, 192, 3, 2)
        self.branch_pool = nn.MaxPool2d(3, 2)

    def forward(self, x):
        b7 = self.branch7x7x3_1(x)
        for i in range(2, 5):
            b7 = getattr(self, f"branch7x7x3_{i}")(b7)
        return torch.cat([self.branch3x3_2(self.branch3x3_1(x)), b7, self.branch_pool(x)], 1)


class InceptionE(nn.Module):
    def __init__(self, cin):
        super().__init__()
        self.branch1x1 = _cna(cin, 320, 1)
        self.branch3x3_1 = _cna(cin, 384, 1)
        self.branch3x3_2a = _cna(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3_2b = _cna(384, 384, (3, 1), padding=(1, 0))
        self.branch3x3dbl_1 = _cna(cin, 448, 1)
        self.branch3x3dbl_2 = _cna(448, 384, 3, padding=1)
        self.branch3x3dbl_3a = _cna(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3dbl_3b = _cna(384, 384, (3, 1), padding=(1, 0))
        self.branch_pool = _avg3()
        self.branch_pool_conv = _cna(cin, 192, 1)

    def forward(self, x):
        b3 = self.branch3x3_1(x)
        dbl = self.branch3x3dbl_2(self.branch3x3dbl_1(x))
        return torch.cat([self.branch1x1(x), self.branch3x3_2a(b3), self.branch3x3_2b(b3),
                          self.branch3x3dbl_3a(dbl), self.branch3x3dbl_3b(dbl),
                          self.branch_pool_conv(self.branch_pool(x))], 1)


class InceptionV3(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.inception_stem = InceptionStem()
        self.inception_block_list = nn.ModuleList([
            InceptionA(192, 32), InceptionA(256, 64), InceptionA(288, 64), InceptionB(288),
            InceptionC(768, 128), InceptionC(768, 160), InceptionC(768, 160),
            InceptionC(768, 192), InceptionD(768), InceptionE(1280), InceptionE(2048)])
        self.avg_pool = nn.AdaptiveAvgPool2d(1)
        self.dropout = DownscaleDropout(0.2)
        self.fc = nn.Linear(2048, num_classes)

    def forward(self, x):
        x = self.inception_stem(x)
        for block in self.inception_block_list:
            x = block(x)
        return self.fc(self.dropout(self.avg_pool(x).reshape(-1, 2048)))


# ---------------------------------------------------------------------------------------
# Mirrors by model name, and weight transfer

MIRRORS = {
    "lenet": lambda: LeNet(10),
    "mnistnet": lambda: MNISTNet(10),
    "resnet18": lambda: ResNet(BasicBlock, (2, 2, 2, 2), 10),
    "resnet50": lambda: ResNet(Bottleneck, (3, 4, 6, 3), 10),
    "mobilenet_v1": lambda: MobileNetV1(0.25, 10),
    "mobilenet_v2": lambda: MobileNetV2(1.0, 10),
    "mobilenet_v3_small": lambda: MobileNetV3(False, 0.5, 10),
    "mobilenet_v3_large": lambda: MobileNetV3(True, 0.5, 10),
    "vgg11_bn": lambda: VGG(32, 10),
    "alexnet": lambda: AlexNet(256 * 2 * 2, 64, 10),
    "squeezenet1_0": lambda: SqueezeNet("1.0", 10),
    "squeezenet1_1": lambda: SqueezeNet("1.1", 10),
    "shufflenet_v2_x0_25": lambda: ShuffleNetV2(0.25, "relu", 10),
    "shufflenet_v2_x0_25_swish": lambda: ShuffleNetV2(0.25, "swish", 10),
    "densenet121": lambda: DenseNet121(10),
    "googlenet": lambda: GoogLeNet(128, 10),
    "inception_v3": lambda: InceptionV3(10),
}
# The benchmark's sequence models come from benchmarks/torch_mirrors.py.
BENCHMARK_MIRRORS = {"lstm": "lstm", "gru": "gru", "transformer": "transformer"}
# Models that torch_mirrors also mirrors: the two mirrors must agree (a check of both).
CROSS_CHECKS = {"resnet18": "resnet18", "mobilenet_v2": "mobilenetv2", "lenet": "lenet"}


def _linear_weights(model):
    return {f"{path}.weight" for path, m in model.named_modules() if isinstance(m, nn.Linear)}


def _torch_key(dy_key):
    return dy_key.replace("._mean", ".running_mean").replace("._variance", ".running_var")


def load_own_mirror(model, weights):
    """Copy DyGraph-named weights into one of this file's mirrors (same names)."""
    linear = _linear_weights(model)
    target = model.state_dict()
    used = set()
    with torch.no_grad():
        for dy_key, value in weights.items():
            key = _torch_key(dy_key)
            if key not in target:
                raise KeyError(f"mirror has no {key} (DyGraph {dy_key})")
            value = value.T if key in linear else value
            if tuple(target[key].shape) != value.shape:
                raise ValueError(f"{key}: mirror {tuple(target[key].shape)}, DyGraph "
                                 f"{value.shape}")
            target[key].copy_(torch.from_numpy(np.ascontiguousarray(value)))
            used.add(key)
    left = {k for k in target if k not in used and not k.endswith("num_batches_tracked")}
    if left:
        raise KeyError(f"mirror entries without DyGraph weights: {sorted(left)}")


def own_grads(model):
    """{DyGraph name: gradient in DyGraph's layout} of one of this file's mirrors."""
    linear = _linear_weights(model)
    return {name: (p.grad.T if name in linear else p.grad).numpy()
            for name, p in model.named_parameters()}


def benchmark_grads(kind, model):
    """{DyGraph name: gradient} of a torch_mirrors sequence model (the inverse of
    torch_mirrors._renamed: LSTM/GRU weights per layer, packed attention projections)."""
    linear = _linear_weights(model)
    out = {}
    for name, p in model.named_parameters():
        g = p.grad.numpy()
        if name in linear:
            g = g.T
        if kind in ("lstm", "gru") and name.startswith("body."):
            param, _, layer = name[len("body."):].rpartition("_l")
            out[f"body.{layer}.cell.{param}"] = g
        elif name.endswith("self_attn.in_proj_weight"):
            pre = name[:-len("in_proj_weight")]
            for part, block in zip("qkv", np.split(g, 3)):
                out[f"{pre}{part}_proj.weight"] = block.T
        elif name.endswith("self_attn.in_proj_bias"):
            pre = name[:-len("in_proj_bias")]
            for part, block in zip("qkv", np.split(g, 3)):
                out[f"{pre}{part}_proj.bias"] = block
        else:
            out[name] = g
    return out


def torch_loss(logits, labels):
    return TF.cross_entropy(logits, labels)


def torch_reference(spec, dy_model, weights, x, labels, dtype=torch.float64):
    """(eval outputs, step loss, {DyGraph name: gradient}) from PyTorch in `dtype`."""
    import torch_mirrors

    if spec.name in BENCHMARK_MIRRORS:
        model = torch_mirrors.mirror(BENCHMARK_MIRRORS[spec.name], dy_model).to(dtype)
        grads_of = lambda m: benchmark_grads(spec.name, m)  # noqa: E731
    else:
        model = MIRRORS[spec.name]().to(dtype)
        load_own_mirror(model, weights)
        grads_of = own_grads
    if spec.zero_dropout:  # as R.build does to the DyGraph model
        for m in model.modules():
            if isinstance(m, (nn.Dropout, DownscaleDropout)):
                m.p = 0.0
    xt, yt = torch.from_numpy(x).to(dtype), torch.from_numpy(labels)
    model.eval()
    with torch.no_grad():
        outs = model(xt)
    outs = [o.numpy() for o in (outs if isinstance(outs, tuple) else (outs,))]
    if spec.name in CROSS_CHECKS and dtype == torch.float64:
        other = torch_mirrors.mirror(CROSS_CHECKS[spec.name], dy_model).double().eval()
        with torch.no_grad():
            again = other(xt).numpy()
        err = np.abs(again - outs[0]).max() / np.abs(outs[0]).max()
        assert err < 1e-12, f"{spec.name}: torch_mirrors and this mirror differ by {err}"
    model.train(spec.step_mode == "train")
    loss = R.loss_of(model(xt), yt, torch_loss)
    loss.backward()
    return outs, float(loss.detach()), grads_of(model)


def errors(names, run, outs, loss, sketch, floor):
    """[output, loss, gradient] errors of `run` (outs, loss, grads) against the float64
    reference, in the test's measures."""
    got = np.stack([R.gradient_sketch(n, run[2][n]) for n in names])
    return np.array([R.output_error(run[0], outs), abs(run[1] - loss) / abs(loss),
                     R.sketch_errors(got, sketch, floor).max()])


# ---------------------------------------------------------------------------------------
# DyGraph side (for the printed errors and the benchmark-model check)


def set_weights(dy_model, weights):
    dy_model.set_state_dict({k: v.astype(np.float64) for k, v in weights.items()})


def dygraph_eager(spec, dy_model, x, labels):
    dy_model.eval()
    with dygraph.no_grad():
        outs = dy_model(dygraph.to_tensor(x))
    outs = [o.numpy() for o in (outs if isinstance(outs, (list, tuple)) else (outs,))]
    if spec.step_mode == "train":
        dy_model.train()
    else:
        dy_model.eval()
    loss = R.dygraph_loss(dy_model(dygraph.to_tensor(x)), dygraph.to_tensor(labels))
    loss.backward()
    grads = {n: p.grad.numpy() for n, p in dy_model.named_parameters()
             if not p.stop_gradient}
    dy_model.clear_gradients()
    return outs, float(loss), grads


def check_benchmark_model(spec):
    """tests/models/reference.py's SequenceClassifier is benchmarks/models.py's model:
    the same state-dict names and shapes and, on the same weights, the same outputs."""
    import models as bench

    theirs = bench.build_dygraph(spec.name)
    ours = R.build(spec, "float32")
    shapes = R.state_shapes(ours)
    assert R.state_shapes(theirs) == shapes, spec.name
    weights = R.reference_weights(shapes)
    x = R.make_batch(spec)[0].astype(np.float32)
    outs = []
    for m in (theirs, ours):
        m.set_state_dict({k: v.astype(np.float32) for k, v in weights.items()})
        m.eval()
        outs.append(m(dygraph.to_tensor(x)).numpy())
    np.testing.assert_array_equal(outs[0], outs[1])


def record(spec, write):
    t0 = time.time()
    if spec.name in BENCHMARK_MIRRORS:
        check_benchmark_model(spec)
    dy_model = R.build(spec, "float64")
    shapes = R.state_shapes(dy_model)
    weights = R.reference_weights(shapes)
    set_weights(dy_model, weights)
    x, labels = R.make_batch(spec)
    outs, loss, grads = torch_reference(spec, dy_model, weights, x, labels)
    names = R.trainable_names(dy_model)
    if sorted(names) != sorted(grads):
        raise KeyError(f"{spec.name}: gradient names differ: "
                       f"{sorted(set(names) ^ set(grads))}")
    sketch = np.stack([R.gradient_sketch(n, grads[n]) for n in names])
    # PyTorch's own float32 errors on the same problem: small batches through batch norm
    # in training make some steps ill-conditioned (a relu input that rounding moves
    # across zero changes a gradient by a finite amount), and the test's float32
    # tolerance grows with what a float32 reference makes.
    torch32 = errors(names, torch_reference(spec, dy_model, weights, x, labels,
                                            torch.float32),
                     outs, loss, sketch, R.FLOAT32_GRAD_FLOOR)
    result = {"input": x.astype(np.float32), "labels": labels, "loss": np.float64(loss),
              "grad_names": np.array(names), "grad_sketch": sketch,
              "torch_float32_errors": torch32,
              "weights_sha256": np.array(R.weights_digest(weights)),
              "step_mode": np.array(spec.step_mode),
              "torch_version": np.array(torch.__version__)}
    for i, o in enumerate(outs):
        result[f"logits_{i}"] = o
    # DyGraph eager float64 against the reference: what the test's tolerances rest on.
    set_weights(dy_model, weights)
    dy64 = errors(names, dygraph_eager(spec, dy_model, x, labels), outs, loss, sketch,
                  R.FLOAT64_GRAD_FLOOR)
    if write:
        os.makedirs(R.REFS_DIR, exist_ok=True)
        np.savez_compressed(R.ref_path(spec.name), **result)
    scale = max(np.abs(o).max() for o in outs)
    print(f"{spec.name:26s} {sum(np.prod(s) for s in shapes.values()):>10,.0f} params  "
          f"|logits| {scale:8.3g}  loss {loss:7.4f}  DyGraph float64 errors (out, loss, "
          f"grad) {' '.join(f'{e:.1e}' for e in dy64)}  PyTorch float32 "
          f"{' '.join(f'{e:.1e}' for e in torch32)}  ({time.time() - t0:.1f} s)",
          flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--models", default=",".join(R.SPECS))
    p.add_argument("--check-only", action="store_true")
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    for name in args.models.split(","):
        record(R.SPECS[name], not args.check_only)


if __name__ == "__main__":
    main()
