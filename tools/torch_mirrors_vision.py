"""PyTorch mirrors of DyGraph's small vision models (LeNet, MNISTNet, ResNet, MobileNet
V1/V2/V3) and the building blocks with Paddle's semantics, for tools/record_model_refs.py.

Written from Paddle's reference implementations; they share only parameter names and
shapes with DyGraph's model code (see tools/record_model_refs.py).
"""

import torch
import torch.nn.functional as TF
from torch import nn

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


