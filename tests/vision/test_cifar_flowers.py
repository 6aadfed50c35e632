"""Cifar10/Cifar100 and Flowers on small real archives in the original formats, the
restricted unpickler, and the errors for missing files."""

import io
import os
import pickle
import tarfile

import numpy as np
import pytest
from PIL import Image

from dygraph.vision import transforms as T
from dygraph.vision.datasets import Cifar10, Cifar100, Flowers
from dygraph.vision.datasets.safe_pickle import safe_load


def add_member(archive, name, payload):
    info = tarfile.TarInfo(name)
    info.size = len(payload)
    archive.addfile(info, io.BytesIO(payload))


def cifar_archive(path, top, batches):
    """A tar.gz with pickled batches {name: (data [N, 3072] uint8, labels, label key)}."""
    with tarfile.open(path, "w:gz") as archive:
        add_member(archive, f"{top}/batches.meta", pickle.dumps({b"label_names": [b"a"]}))
        for name, (data, labels, key) in batches.items():
            blob = pickle.dumps({b"data": data, key: labels, b"batch_label": b"x"}, protocol=2)
            add_member(archive, f"{top}/{name}", blob)
    return str(path)


def images(n, seed):
    return np.random.default_rng(seed).integers(0, 256, (n, 3072), dtype=np.uint8)


def test_cifar10_reads_every_batch_of_its_mode(tmp_path):
    train1, train2, test = images(3, 0), images(2, 1), images(4, 2)
    path = cifar_archive(tmp_path / "c10.tar.gz", "cifar-10-batches-py", {
        "data_batch_1": (train1, [0, 1, 2], b"labels"),
        "data_batch_2": (train2, [3, 4], b"labels"),
        "test_batch": (test, [9, 8, 7, 6], b"labels")})
    train = Cifar10(data_file=path, mode="train", backend="cv2")
    assert len(train) == 5
    image, label = train[4]
    assert image.shape == (32, 32, 3) and image.dtype == np.float32
    np.testing.assert_array_equal(image, train2[1].reshape(3, 32, 32).transpose(1, 2, 0))
    assert label.dtype == np.int64 and label.shape == () and int(label) == 4
    tests = Cifar10(data_file=path, mode="test", backend="pil",
                    transform=T.Compose([T.ToTensor()]))
    tensor, label = tests[0]
    assert len(tests) == 4 and tensor.shape == [3, 32, 32] and int(label) == 9
    np.testing.assert_allclose(tensor.numpy() * 255, test[0].reshape(3, 32, 32), atol=1e-3)
    assert isinstance(Cifar10(data_file=path, mode="test", backend="pil")[1][0], Image.Image)


def test_cifar100_uses_fine_labels(tmp_path):
    path = cifar_archive(tmp_path / "c100.tar.gz", "cifar-100-python", {
        "train": (images(2, 3), [55, 99], b"fine_labels"),
        "test": (images(1, 4), [12], b"fine_labels")})
    ds = Cifar100(data_file=path, mode="train", backend="cv2")
    assert [int(ds[i][1]) for i in range(len(ds))] == [55, 99]
    assert len(Cifar100(data_file=path, mode="test", backend="cv2")) == 1


class Exploit:
    """Unpickling this would call os.system."""

    def __reduce__(self):
        return (os.system, ("touch pwned",))


def test_malicious_pickle_is_refused_without_running(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    blob = pickle.dumps({b"data": images(1, 0), b"labels": [Exploit()]})
    with pytest.raises(pickle.UnpicklingError, match="refusing to unpickle the global"):
        safe_load(io.BytesIO(blob))
    path = str(tmp_path / "evil.tar.gz")
    with tarfile.open(path, "w:gz") as archive:
        add_member(archive, "cifar-10-batches-py/test_batch", blob)
    with pytest.raises(pickle.UnpicklingError, match="system"):
        Cifar10(data_file=path, mode="test", backend="cv2")
    assert not (tmp_path / "pwned").exists()
    arrays = {b"x": np.arange(4.0), "s": "text", b"n": [1, 2.5, None, True]}
    loaded = safe_load(io.BytesIO(pickle.dumps(arrays, protocol=2)))
    np.testing.assert_array_equal(loaded[b"x"], np.arange(4.0))
    assert loaded["s"] == "text" and loaded[b"n"] == [1, 2.5, None, True]


def test_cifar_errors(tmp_path, monkeypatch):
    monkeypatch.setenv("DYGRAPH_HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="cifar-10-python.tar.gz is missing and "
                                                "download=False"):
        Cifar10(mode="test", download=False)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        Cifar10(data_file=str(tmp_path / "nope.tar.gz"))
    with pytest.raises(ValueError, match="mode should be 'train' or 'test'"):
        Cifar10(mode="valid")
    bad = cifar_archive(tmp_path / "bad.tar.gz", "c", {
        "test_batch": (np.zeros((2, 10), np.uint8), [0, 1], b"labels")})
    with pytest.raises(ValueError, match=r"uint8 \[N, 3072\] array"):
        Cifar10(data_file=bad, mode="test", backend="cv2")


def flowers_files(tmp_path, count=6):
    """102flowers.tgz with `count` JPEGs, imagelabels.mat and setid.mat (Paddle's format)."""
    savemat = pytest.importorskip("scipy.io").savemat
    data = str(tmp_path / "102flowers.tgz")
    colours = {}
    with tarfile.open(data, "w:gz") as archive:
        for index in range(1, count + 1):
            colour = (index * 40 % 256, 100, 200)
            colours[index] = colour
            buffer = io.BytesIO()
            Image.new("RGB", (12, 8), colour).save(buffer, format="JPEG", quality=95)
            add_member(archive, f"jpg/image_{index:05d}.jpg", buffer.getvalue())
    labels = str(tmp_path / "imagelabels.mat")
    savemat(labels, {"labels": np.array([[11, 12, 13, 14, 15, 16]])})
    setid = str(tmp_path / "setid.mat")
    savemat(setid, {"trnid": np.array([[1, 2]]), "valid": np.array([[3]]),
                    "tstid": np.array([[4, 5, 6]])})
    return data, labels, setid, colours


def test_flowers_reads_split_labels_and_images(tmp_path):
    data, labels, setid, colours = flowers_files(tmp_path)
    train = Flowers(data, labels, setid, mode="train", backend="cv2")
    assert len(train) == 3  # Paddle's 'train' is the split the file calls 'tstid'
    image, label = train[1]
    assert image.shape == (8, 12, 3) and image.dtype == np.float32
    assert label.tolist() == [15] and label.dtype == np.int64
    np.testing.assert_allclose(image.mean(axis=(0, 1)), colours[5], atol=3)
    test = Flowers(data, labels, setid, mode="test", backend="pil",
                   transform=T.Resize((4, 4)))
    assert len(test) == 2 and test[0][0].size == (4, 4) and test[0][1].tolist() == [11]
    assert len(Flowers(data, labels, setid, mode="valid")) == 1
    with pytest.raises(ValueError, match="'train', 'valid' or 'test'"):
        Flowers(data, labels, setid, mode="dev")


def test_flowers_missing_files_offline(tmp_path, monkeypatch):
    monkeypatch.setenv("DYGRAPH_HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="102flowers.tgz is missing"):
        Flowers(mode="train", download=False)


def test_flowers_in_dataloader_workers(tmp_path):
    data, labels, setid, colours = flowers_files(tmp_path)
    from dygraph.io import DataLoader

    train = Flowers(data, labels, setid, mode="train", backend="cv2")
    batches = list(DataLoader(train, batch_size=1, num_workers=2))
    assert [b[1].numpy().reshape(-1).tolist() for b in batches] == [[14], [15], [16]]
    assert batches[0][0].shape == [1, 8, 12, 3]


def voc_archive(path, ids=("2007_000032", "2007_000033"), val=("2007_000033",)):
    members = {}
    for i, name in enumerate(ids):
        image, mask = io.BytesIO(), io.BytesIO()
        Image.new("RGB", (6, 4), (10 * i, 20, 30)).save(image, format="JPEG", quality=95)
        Image.fromarray(np.full((4, 6), i + 1, np.uint8), mode="L").save(mask, format="PNG")
        members[f"VOCdevkit/VOC2012/JPEGImages/{name}.jpg"] = image.getvalue()
        members[f"VOCdevkit/VOC2012/SegmentationClass/{name}.png"] = mask.getvalue()
    split = "VOCdevkit/VOC2012/ImageSets/Segmentation/{}.txt"
    members[split.format("trainval")] = "\n".join(ids).encode() + b"\n"
    members[split.format("val")] = "\n".join(val).encode() + b"\n"
    members[split.format("train")] = ids[0].encode() + b"\n"
    with tarfile.open(path, "w") as archive:
        for name, payload in members.items():
            add_member(archive, name, payload)
    return str(path)


def test_voc2012_images_and_masks(tmp_path, monkeypatch):
    from dygraph.vision.datasets import VOC2012

    path = voc_archive(tmp_path / "voc.tar")
    train = VOC2012(path, mode="train", backend="cv2")
    assert len(train) == 2
    image, mask = train[1]
    assert image.shape == (4, 6, 3) and image.dtype == np.float32
    assert mask.shape == (4, 6) and mask.dtype == np.float32 and (mask == 2).all()
    valid = VOC2012(path, mode="valid", backend="pil", transform=T.Resize((2, 3)))
    image, mask = valid[0]
    assert len(valid) == 1 and image.size == (3, 2) and mask.size == (6, 4)
    assert len(VOC2012(path, mode="test", backend="cv2")) == 1
    monkeypatch.setenv("DYGRAPH_HOME", str(tmp_path / "home"))
    with pytest.raises(FileNotFoundError, match="VOCtrainval_11-May-2012.tar is missing"):
        VOC2012(download=False)
