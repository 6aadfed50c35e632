"""PyTorch mirrors of the DyGraph models in benchmarks/models.py, loaded with their weights.

`mirror(name, dygraph_model)` builds the same architecture in PyTorch and copies every
parameter and buffer across: convolution and recurrent weights share their layout, a
Linear weight is stored [in, out] by DyGraph (Paddle) and [out, in] by PyTorch, and the
three attention projections of a DyGraph MultiHeadAttention become PyTorch's packed
`in_proj_weight`.
"""

import numpy as np
import torch
from torch import nn

# benchmarks/models.py's transformer classifiers: d_model, heads, feed-forward width, layers,
# activation (no dropout; mean-pool over the sequence and a linear head to 10 classes).
TRANSFORMERS = {"transformer": (128, 4, 512, 2, "relu"),
                "transformer_gelu": (128, 4, 512, 2, "gelu"),
                "transformer_big": (1024, 16, 4096, 2, "relu")}


class _BasicBlock(nn.Module):
    def __init__(self, inplanes, planes, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = None
        if stride != 1 or inplanes != planes:
            self.downsample = nn.Sequential(nn.Conv2d(inplanes, planes, 1, stride, bias=False),
                                            nn.BatchNorm2d(planes))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        return self.relu(self.bn2(self.conv2(out)) + identity)


class _Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride):
        super().__init__()
        out = planes * self.expansion
        self.conv1 = nn.Conv2d(inplanes, planes, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        # The stride sits on the 3x3 convolution, as in DyGraph's (and torchvision's) block.
        self.conv2 = nn.Conv2d(planes, planes, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv3 = nn.Conv2d(planes, out, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(out)
        self.relu = nn.ReLU()
        self.downsample = None
        if stride != 1 or inplanes != out:
            self.downsample = nn.Sequential(nn.Conv2d(inplanes, out, 1, stride, bias=False),
                                            nn.BatchNorm2d(out))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        return self.relu(self.bn3(self.conv3(out)) + identity)


class _ResNet(nn.Module):
    """ResNet-18 (basic blocks, 2 per stage) or ResNet-50 (bottlenecks, 3-4-6-3)."""

    def __init__(self, num_classes, block=_BasicBlock, blocks=(2, 2, 2, 2)):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        inplanes = 64
        expansion = getattr(block, "expansion", 1)
        for i, (planes, count) in enumerate(zip((64, 128, 256, 512), blocks)):
            stride = 1 if i == 0 else 2
            layers = [block(inplanes, planes, stride)]
            inplanes = planes * expansion
            layers += [block(inplanes, planes, 1) for _ in range(1, count)]
            setattr(self, f"layer{i + 1}", nn.Sequential(*layers))
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(inplanes, num_classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def _conv_bn(cin, cout, kernel=3, stride=1, groups=1, act=True):
    layers = [nn.Conv2d(cin, cout, kernel, stride, (kernel - 1) // 2, groups=groups,
                        bias=False), nn.BatchNorm2d(cout)]
    if act:
        layers.append(nn.ReLU6())
    return nn.Sequential(*layers)


class _InvertedResidual(nn.Module):
    def __init__(self, inp, oup, stride, expand_ratio):
        super().__init__()
        hidden = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = [_conv_bn(inp, hidden, 1)] if expand_ratio != 1 else []
        # The projection's conv and batch norm sit directly in the Sequential, as in
        # DyGraph's (and Paddle's) layout.
        layers += [_conv_bn(hidden, hidden, stride=stride, groups=hidden),
                   *_conv_bn(hidden, oup, 1, act=False)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        return x + self.conv(x) if self.use_res_connect else self.conv(x)


class _MobileNetV2(nn.Module):
    def __init__(self, dy_model, num_classes):
        super().__init__()
        from dygraph.vision.models import mobilenetv2

        features = [_conv_bn(3, 32, stride=2)]
        channels = 32
        for t, c, n, s in mobilenetv2._STAGES:
            for i in range(n):
                features.append(_InvertedResidual(channels, c, s if i == 0 else 1, t))
                channels = c
        features.append(_conv_bn(channels, dy_model.last_channel, 1))
        self.features = nn.Sequential(*features)
        self.pool2d_avg = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Dropout(0.2),
                                        nn.Linear(dy_model.last_channel, num_classes))

    def forward(self, x):
        return self.classifier(torch.flatten(self.pool2d_avg(self.features(x)), 1))


class _SequenceClassifier(nn.Module):
    def __init__(self, name):
        super().__init__()
        self.name = name
        width = 256 if name == "gru" else 128
        if name == "lstm":
            self.body = nn.LSTM(64, 128, num_layers=2, batch_first=True)
        elif name == "gru":
            self.body = nn.GRU(64, 256, batch_first=True)
        else:
            width, heads, ff, layers, activation = TRANSFORMERS[name]
            layer = nn.TransformerEncoderLayer(width, heads, ff, dropout=0.0, batch_first=True,
                                               activation=activation)
            self.body = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(width, 10)

    def forward(self, x):
        if self.name in TRANSFORMERS:
            return self.head(self.body(x).mean(dim=1))
        out, _ = self.body(x)
        return self.head(out[:, -1])


class _LeNet(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 6, 3, 1, 1), nn.ReLU(), nn.MaxPool2d(2, 2),
                                      nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2, 2))
        self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84),
                                nn.Linear(84, num_classes))

    def forward(self, x):
        return self.fc(torch.flatten(self.features(x), 1))


def _renamed(name, dy_state):
    """DyGraph state_dict entries under PyTorch's names, as NumPy arrays."""
    out = {}
    for key, value in dy_state.items():
        value = value.numpy()
        if name in ("lstm", "gru") and key.startswith("body."):
            # DyGraph's RNNs hold each parameter under Paddle's flat name (PyTorch's too:
            # "body.weight_ih_l0") and its cell's name ("body.0.cell.weight_ih")
            if key.count(".") == 1:
                out[key] = value
            continue
        key = key.replace("._mean", ".running_mean").replace("._variance", ".running_var")
        out[key] = value
    if name in TRANSFORMERS:
        for i in range(TRANSFORMERS[name][3]):
            pre = f"body.layers.{i}.self_attn."
            w = [out.pop(f"{pre}{p}_proj.weight") for p in "qkv"]
            b = [out.pop(f"{pre}{p}_proj.bias") for p in "qkv"]
            out[pre + "in_proj_weight"] = np.concatenate([m.T for m in w])
            out[pre + "in_proj_bias"] = np.concatenate(b)
    return out


def mirror(name, dy_model):
    """A PyTorch module equal to DyGraph's `dy_model` (see benchmarks/models.py)."""
    if name == "resnet18":
        model = _ResNet(10)
    elif name == "resnet50_b64":
        model = _ResNet(10, _Bottleneck, (3, 4, 6, 3))
    elif name == "lenet":
        model = _LeNet(10)
    elif name == "mobilenetv2":
        model = _MobileNetV2(dy_model, 10)
    else:
        model = _SequenceClassifier(name)
    source = _renamed(name, dy_model.state_dict())
    target = model.state_dict()
    linear_weights = {f"{path}.weight" for path, module in model.named_modules()
                      if isinstance(module, nn.Linear)}
    with torch.no_grad():
        for key, tensor in target.items():
            if key.endswith("num_batches_tracked"):
                continue
            value = source.pop(key)
            if key in linear_weights:
                value = value.T  # Linear: [in, out] -> [out, in]
            tensor.copy_(torch.from_numpy(np.ascontiguousarray(value)))
    if source:
        raise ValueError(f"{name}: DyGraph entries without a PyTorch place: {sorted(source)}")
    return model
