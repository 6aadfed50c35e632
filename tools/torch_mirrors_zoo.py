"""PyTorch mirrors of DyGraph's larger zoo models (VGG, AlexNet, SqueezeNet,
ShuffleNetV2, DenseNet-121, GoogLeNet, InceptionV3) and the table of all mirrors by model
name, for tools/record_model_refs.py.
"""

import torch
import torch.nn.functional as TF
from torch import nn
from torch_mirrors_vision import (  # the building blocks and the small models
    BasicBlock,
    Bottleneck,
    DownscaleDropout,
    LeNet,
    MNISTNet,
    MobileNetV1,
    MobileNetV2,
    MobileNetV3,
    ResNet,
    conv_norm_act,
)

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


