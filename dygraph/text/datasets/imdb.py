"""IMDB movie reviews (sentiment), from `aclImdb_v1.tar.gz`.

Reviews are lower-cased, stripped of ASCII punctuation and split on whitespace, as bytes
(so `word_idx` keys are bytes, as in Paddle). The vocabulary holds the words seen more than
`cutoff` times over the train and test reviews, most frequent first (ties in byte order),
then `<unk>`. Positive reviews come first with label 0, then negative ones with label 1.

Example:
    >>> Imdb.URL.endswith('aclImdb_v1.tar.gz')
    True
"""

import collections
import re
import string
import tarfile

import numpy as np

from dygraph.io.dataset import Dataset
from dygraph.text.datasets._common import check_choice, fetch_file

__all__ = ["Imdb"]

_REVIEW = re.compile(r"aclImdb/(train|test)/(pos|neg)/.*\.txt$")
_PUNCTUATION = string.punctuation.encode("latin-1")


class Imdb(Dataset):
    """`dataset[i]` is (word ids int64 [length], label int64 [1]).

    Example:
        >>> ds = Imdb(mode='test', cutoff=150, download=False)  # doctest: +SKIP
    """

    FOLDER = "imdb"
    URL = "https://dataset.bj.bcebos.com/imdb%2FaclImdb_v1.tar.gz"
    MD5 = "7c2ac02c03563afcf9b574c7e56c153a"

    def __init__(self, data_file=None, mode="train", cutoff=150, download=True):
        self.mode = check_choice("Imdb", "mode", mode, ("train", "test"))
        self.data_file = fetch_file("Imdb", data_file, self.FOLDER, "aclImdb_v1.tar.gz",
                                    [self.URL], self.MD5, download)
        reviews = self._tokenize()
        self.word_idx = self._build_word_dict(reviews, cutoff)
        unk = self.word_idx["<unk>"]
        self.docs, self.labels = [], []
        for polarity, label in (("pos", 0), ("neg", 1)):
            for words in reviews[(self.mode, polarity)]:
                self.docs.append([self.word_idx.get(w, unk) for w in words])
                self.labels.append(label)

    def _tokenize(self):
        """{(split, polarity): [words of each review, in archive order]}."""
        reviews = collections.defaultdict(list)
        with tarfile.open(self.data_file) as archive:
            for member in archive:
                match = _REVIEW.match(member.name)
                if match and member.isfile():
                    text = archive.extractfile(member).read().rstrip(b"\n\r")
                    words = text.translate(None, _PUNCTUATION).lower().split()
                    reviews[(match.group(1), match.group(2))].append(words)
        if not reviews:
            raise ValueError(f"Imdb: {self.data_file} holds no aclImdb/<split>/<pos|neg>/*.txt "
                             f"reviews")
        return reviews

    @staticmethod
    def _build_word_dict(reviews, cutoff):
        freq = collections.Counter(w for docs in reviews.values() for d in docs for w in d)
        kept = sorted((item for item in freq.items() if item[1] > cutoff),
                      key=lambda item: (-item[1], item[0]))
        word_idx = {word: i for i, (word, _) in enumerate(kept)}
        word_idx["<unk>"] = len(kept)
        return word_idx

    def __getitem__(self, idx):
        return np.array(self.docs[idx], dtype=np.int64), np.array([self.labels[idx]],
                                                                   dtype=np.int64)

    def __len__(self):
        return len(self.docs)
