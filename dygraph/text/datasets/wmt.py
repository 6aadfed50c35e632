"""WMT14 (English-French, Paddle's preprocessed subset) and WMT16 (English-German,
Multi30k) translation pairs of word ids.

WMT14 reads `wmt14.tgz`, whose `src.dict`/`trg.dict` give the vocabularies (the first
`dict_size` lines) and whose `<mode>/<mode>` files hold tab-separated sentence pairs; pairs
longer than 80 ids are left out. WMT16 reads `wmt16.tar.gz` (`wmt16/train`, `test`, `val`)
and builds each vocabulary from the training sentences of its language: `<s>`, `<e>`,
`<unk>`, then the most frequent words (ties in first-seen order). (Paddle counts the source
language's words for both vocabularies, and caches them in files; here each is counted from
its own language, in memory.)

Example:
    >>> WMT14.START, WMT14.END, WMT14.UNK_IDX
    ('<s>', '<e>', 2)
"""

import collections
import tarfile

import numpy as np

from dygraph.io.dataset import Dataset
from dygraph.text.datasets._common import check_choice, fetch_file

__all__ = ["WMT14", "WMT16"]


class _Pairs(Dataset):
    """Translation pairs: `dataset[i]` is (source ids, `<s>` + target ids, target ids +
    `<e>`), int64 arrays."""

    def __getitem__(self, idx):
        return (np.array(self.src_ids[idx], dtype=np.int64),
                np.array(self.trg_ids[idx], dtype=np.int64),
                np.array(self.trg_ids_next[idx], dtype=np.int64))

    def __len__(self):
        return len(self.src_ids)

    def _add(self, src_ids, trg_ids, start, end):
        self.src_ids.append(src_ids)
        self.trg_ids.append([start, *trg_ids])
        self.trg_ids_next.append([*trg_ids, end])


def _pairs(lines):
    for line in lines:
        parts = line.decode().strip().split("\t")
        if len(parts) == 2:
            yield parts[0].split(), parts[1].split()


def _check_size(owner, name, size):
    if size <= 0:
        raise ValueError(f"{owner}: {name} should be a positive number, but got {size}")


class WMT14(_Pairs):
    """WMT14 English-French; mode 'train', 'test' or 'gen'. `get_dict(reverse)` gives the
    (source, target) dictionaries, id-to-word when `reverse`.

    Example:
        >>> ds = WMT14(mode='test', dict_size=30000, download=False)  # doctest: +SKIP
    """

    FOLDER = "wmt14"
    URL = "http://paddlemodels.bj.bcebos.com/wmt/wmt14.tgz"
    MD5 = "0791583d57d5beb693b9414c5b36798c"
    START, END, UNK, UNK_IDX = "<s>", "<e>", "<unk>", 2

    def __init__(self, data_file=None, mode="train", dict_size=-1, download=True):
        self.mode = check_choice("WMT14", "mode", mode, ("train", "test", "gen"))
        _check_size("WMT14", "dict_size", dict_size)
        self.dict_size = dict_size
        self.data_file = fetch_file("WMT14", data_file, self.FOLDER, "wmt14.tgz", [self.URL],
                                    self.MD5, download)
        self.src_ids, self.trg_ids, self.trg_ids_next = [], [], []
        with tarfile.open(self.data_file) as archive:
            files = [m for m in archive.getmembers() if m.isfile()]
            self.src_dict = self._read_dict(archive, files, "src.dict")
            self.trg_dict = self._read_dict(archive, files, "trg.dict")
            suffix = f"{self.mode}/{self.mode}"
            for member in (m for m in files if m.name.endswith(suffix)):
                for src, trg in _pairs(archive.extractfile(member)):
                    src_ids = [self.src_dict.get(w, self.UNK_IDX)
                               for w in [self.START, *src, self.END]]
                    trg_ids = [self.trg_dict.get(w, self.UNK_IDX) for w in trg]
                    if len(src_ids) <= 80 and len(trg_ids) <= 80:
                        self._add(src_ids, trg_ids, self.trg_dict[self.START],
                                  self.trg_dict[self.END])

    def _read_dict(self, archive, files, suffix):
        found = [m for m in files if m.name.endswith(suffix)]
        if len(found) != 1:
            raise ValueError(f"WMT14: {self.data_file} should hold one *{suffix} file, but "
                             f"holds {len(found)}")
        lines = archive.extractfile(found[0]).read().splitlines()[:self.dict_size]
        return {line.strip().decode(): i for i, line in enumerate(lines)}

    def get_dict(self, reverse=False):
        """(source dict, target dict), id-to-word when `reverse`."""
        if reverse:
            return ({v: k for k, v in self.src_dict.items()},
                    {v: k for k, v in self.trg_dict.items()})
        return self.src_dict, self.trg_dict


class WMT16(_Pairs):
    """WMT16 English-German; mode 'train', 'test' or 'val'; `lang` ('en' or 'de') is the
    source language. `get_dict(lang, reverse)` gives the dictionary of a language.

    Example:
        >>> ds = WMT16(mode='val', src_dict_size=50, trg_dict_size=50,
        ...            download=False)  # doctest: +SKIP
    """

    FOLDER = "wmt16"
    URL = "http://paddlemodels.bj.bcebos.com/wmt/wmt16.tar.gz"
    MD5 = "0c38be43600334966403524a40dcd81e"
    TOTAL_WORDS = {"en": 11250, "de": 19220}
    MARKS = ("<s>", "<e>", "<unk>")

    def __init__(self, data_file=None, mode="train", src_dict_size=-1, trg_dict_size=-1,
                 lang="en", download=True):
        self.mode = check_choice("WMT16", "mode", mode, ("train", "test", "val"))
        self.lang = check_choice("WMT16", "lang", lang, ("en", "de"))
        _check_size("WMT16", "src_dict_size", src_dict_size)
        _check_size("WMT16", "trg_dict_size", trg_dict_size)
        other = "de" if self.lang == "en" else "en"
        self.src_dict_size = min(src_dict_size, self.TOTAL_WORDS[self.lang])
        self.trg_dict_size = min(trg_dict_size, self.TOTAL_WORDS[other])
        self.data_file = fetch_file("WMT16", data_file, self.FOLDER, "wmt16.tar.gz",
                                    [self.URL], self.MD5, download)
        with tarfile.open(self.data_file) as archive:
            train = list(_pairs(archive.extractfile("wmt16/train")))
            data = train if self.mode == "train" else \
                list(_pairs(archive.extractfile(f"wmt16/{self.mode}")))
        self._dicts = {self.lang: self._build_dict(train, self.lang, src_dict_size),
                       other: self._build_dict(train, other, trg_dict_size)}
        self.src_dict, self.trg_dict = self._dicts[self.lang], self._dicts[other]
        start, end, unk = (self.src_dict[m] for m in self.MARKS)
        self.src_ids, self.trg_ids, self.trg_ids_next = [], [], []
        for en, de in data:
            src, trg = (en, de) if self.lang == "en" else (de, en)
            self._add([start, *(self.src_dict.get(w, unk) for w in src), end],
                      [self.trg_dict.get(w, unk) for w in trg], start, end)

    def _build_dict(self, train, lang, size):
        column = 0 if lang == "en" else 1
        counts = collections.Counter(w for pair in train for w in pair[column])
        ranked = sorted(counts.items(), key=lambda item: item[1], reverse=True)
        words = list(self.MARKS) + [w for w, _ in ranked[:max(size - len(self.MARKS), 0)]]
        return {w: i for i, w in enumerate(words)}

    def get_dict(self, lang, reverse=False):
        """The dictionary of language `lang`, id-to-word when `reverse`."""
        word_dict = self._dicts[check_choice("WMT16", "lang", lang, ("en", "de"))]
        return {v: k for k, v in word_dict.items()} if reverse else word_dict
