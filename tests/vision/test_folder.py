"""DatasetFolder and ImageFolder over image files that the test writes."""

import numpy as np
import pytest
from PIL import Image

from dygraph.io import DataLoader
from dygraph.vision import get_image_backend, set_image_backend
from dygraph.vision import transforms as T
from dygraph.vision.datasets import DatasetFolder, ImageFolder


@pytest.fixture
def tree(tmp_path):
    colours = {"a_red": (255, 0, 0), "b_blue": (0, 0, 255)}
    for name, rgb in colours.items():
        (tmp_path / name / "sub").mkdir(parents=True)
        for i in range(2):
            img = np.zeros((4, 5, 3), np.uint8) + np.array(rgb, np.uint8)
            folder = tmp_path / name / ("sub" if i else "")
            Image.fromarray(img).save(folder / f"{i}.png")
        (tmp_path / name / "notes.txt").write_text("not an image")
    return tmp_path


@pytest.fixture
def backend():
    saved = get_image_backend()
    yield set_image_backend
    set_image_backend(saved)


def test_dataset_folder_classes_samples_and_loading(tree, backend):
    ds = DatasetFolder(str(tree))
    assert ds.classes == ["a_red", "b_blue"] and ds.class_to_idx == {"a_red": 0, "b_blue": 1}
    assert len(ds) == 4 and ds.targets == [0, 0, 1, 1]
    image, target = ds[2]
    assert isinstance(image, Image.Image) and image.mode == "RGB" and target == 1
    backend("cv2")
    array, _ = DatasetFolder(str(tree))[0]
    assert array.shape == (4, 5, 3) and array[0, 0].tolist() == [255, 0, 0]  # RGB order
    images, targets = next(iter(DataLoader(DatasetFolder(str(tree), transform=T.ToTensor()),
                                           batch_size=4)))
    assert images.shape == [4, 3, 4, 5] and targets.numpy().tolist() == [0, 0, 1, 1]


def test_folder_filters_and_errors(tree):
    texts = DatasetFolder(str(tree), extensions=[".txt"], loader=lambda p: open(p).read())
    assert len(texts) == 2 and texts[0][0] == "not an image"
    only_sub = ImageFolder(str(tree), is_valid_file=lambda p: "sub" in p and p.endswith("png"))
    assert len(only_sub) == 2
    with pytest.raises(ValueError, match="not both"):
        ImageFolder(str(tree), extensions=[".png"], is_valid_file=lambda p: True)
    with pytest.raises(RuntimeError, match="no valid files"):
        DatasetFolder(str(tree), extensions=[".jpg"])


def test_image_folder_returns_a_list(tree):
    ds = ImageFolder(str(tree), transform=T.Resize((2, 2)))
    assert len(ds) == 4
    (sample,) = ds[0]
    assert sample.size == (2, 2)
