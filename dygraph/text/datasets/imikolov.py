"""The Penn Treebank language-model data (Mikolov's `simple-examples.tgz`): n-grams or
sentence pairs of word ids.

The vocabulary counts the words of ptb.train.txt and ptb.valid.txt (as bytes) plus one
`<s>` and one `<e>` per line, keeps those seen more than `min_word_freq` times (most
frequent first, ties in byte order) and ends with `<unk>`, as Paddle's does ('<s>', '<e>'
and '<unk>' are str keys, the words bytes).

Example:
    >>> Imikolov.FILES['valid']
    'simple-examples/data/ptb.valid.txt'
"""

import collections
import tarfile

import numpy as np

from dygraph.io.dataset import Dataset
from dygraph.text.datasets._common import check_choice, fetch_file

__all__ = ["Imikolov"]


def _sort_key(item):
    word, count = item
    return -count, word.encode() if isinstance(word, str) else word


class Imikolov(Dataset):
    """`data_type` 'NGRAM': `dataset[i]` is a tuple of `window_size` word ids (int64 0-D
    arrays) from `<s> sentence <e>`; 'SEQ': (source ids `<s> sentence`, target ids
    `sentence <e>`), sentences longer than `window_size` (when > 0) left out. Mode 'train'
    reads ptb.train.txt, 'test' ptb.test.txt.

    Example:
        >>> ds = Imikolov(data_type='NGRAM', window_size=5, download=False)  # doctest: +SKIP
    """

    FOLDER = "imikolov"
    URL = "https://dataset.bj.bcebos.com/imikolov%2Fsimple-examples.tgz"
    MD5 = "30177ea32e27c525793142b6bf2c8e2d"
    FILES = {"train": "simple-examples/data/ptb.train.txt",
             "valid": "simple-examples/data/ptb.valid.txt",
             "test": "simple-examples/data/ptb.test.txt"}

    def __init__(self, data_file=None, data_type="NGRAM", window_size=-1, mode="train",
                 min_word_freq=50, download=True):
        self.data_type = check_choice("Imikolov", "data_type", data_type, ("NGRAM", "SEQ"),
                                      str.upper)
        self.mode = check_choice("Imikolov", "mode", mode, ("train", "test"))
        if self.data_type == "NGRAM" and window_size < 1:
            raise ValueError(f"Imikolov: data_type 'NGRAM' needs window_size >= 1, but got "
                             f"{window_size}")
        self.window_size, self.min_word_freq = window_size, min_word_freq
        self.data_file = fetch_file("Imikolov", data_file, self.FOLDER, "simple-examples.tgz",
                                    [self.URL], self.MD5, download)
        with tarfile.open(self.data_file) as archive:
            members = {m.name.lstrip("./"): m for m in archive.getmembers() if m.isfile()}
            lines = {}
            for split, name in self.FILES.items():
                if name not in members:
                    raise ValueError(f"Imikolov: {self.data_file} has no {name}")
                lines[split] = archive.extractfile(members[name]).read().splitlines()
        self.word_idx = self._build_word_dict(lines["train"] + lines["valid"])
        self.data = self._examples(lines[self.mode])

    def _build_word_dict(self, lines):
        freq = collections.Counter()
        for line in lines:
            freq.update(line.split())
        freq["<s>"] += len(lines)
        freq["<e>"] += len(lines)
        freq.pop(b"<unk>", None)
        kept = sorted((item for item in freq.items() if item[1] > self.min_word_freq),
                      key=_sort_key)
        word_idx = {word: i for i, (word, _) in enumerate(kept)}
        word_idx["<unk>"] = len(kept)
        return word_idx

    def _examples(self, lines):
        unk, examples = self.word_idx["<unk>"], []
        for line in lines:
            ids = [self.word_idx.get(w, unk) for w in line.split()]
            if self.data_type == "NGRAM":
                ids = [self.word_idx.get("<s>", unk), *ids, self.word_idx.get("<e>", unk)]
                n = self.window_size
                examples.extend(tuple(ids[i - n:i]) for i in range(n, len(ids) + 1))
            else:
                source = [self.word_idx.get("<s>", unk), *ids]
                if self.window_size > 0 and len(source) > self.window_size:
                    continue
                examples.append((source, [*ids, self.word_idx.get("<e>", unk)]))
        return examples

    def __getitem__(self, idx):
        return tuple(np.array(part, dtype=np.int64) for part in self.data[idx])

    def __len__(self):
        return len(self.data)
