"""CoNLL-2005 semantic role labelling (the WSJ test set Paddle ships), from
`conll05st-tests.tar.gz` plus the word, verb and label dictionaries and the embedding file.

Each predicate of a sentence gives one example. Labels use the B-/I-/O scheme; label ids
follow the sorted tag names (Paddle numbers them in set order, which changes between runs),
with 'O' last.

Example:
    >>> sorted(Conll05st.FILES)
    ['data', 'emb', 'target_dict', 'verb_dict', 'word_dict']
"""

import gzip
import tarfile

import numpy as np

from dygraph.io.dataset import Dataset
from dygraph.text.datasets._common import fetch_file

__all__ = ["Conll05st"]

_URL = "http://paddlemodels.bj.bcebos.com/"
_WORDS = "conll05st-release/test.wsj/words/test.wsj.words.gz"
_PROPS = "conll05st-release/test.wsj/props/test.wsj.props.gz"
UNK_IDX = 0


def _bio(column):
    """B-/I-/O tags from one predicate's bracketed column ('(A0*', '*', '*)', ...)."""
    tags, tag, inside = [], "O", False
    for item in column:
        if item == "*":
            tags.append(f"I-{tag}" if inside else "O")
        elif item == "*)":
            tags.append(f"I-{tag}")
            inside = False
        elif "(" in item:
            tag = item[1:item.find("*")]
            tags.append(f"B-{tag}")
            inside = ")" not in item
        else:
            raise ValueError(f"Conll05st: unexpected label {item!r}")
    return tags


class Conll05st(Dataset):
    """`dataset[i]` is 9 int64 arrays of the sentence length: word ids, the ids of the
    words two and one before the verb, the verb, one and two after (each repeated), the
    predicate id (repeated), the context mark (1 within two words of the verb) and the
    label ids. `get_dict()` gives (word, predicate, label) dictionaries, `get_embedding()`
    the embedding file's path.

    Example:
        >>> ds = Conll05st(download=False)  # doctest: +SKIP
    """

    FOLDER = "conll05st"
    FILES = {"data": ("conll05st-tests.tar.gz", "387719152ae52d60422c016e92a742fc"),
             "word_dict": ("wordDict.txt", "ea7fb7d4c75cc6254716f0177a506baa"),
             "verb_dict": ("verbDict.txt", "0d2977293bbb6cbefab5b0f97db1e77c"),
             "target_dict": ("targetDict.txt", "d8c7f03ceb5fc2e5a0fa7503a4353751"),
             "emb": ("emb", "bf436eb0faa1f6f9103017f8be57cdb7")}
    URLS = {"data": _URL + "conll05st/conll05st-tests.tar.gz",
            "word_dict": _URL + "conll05st%2FwordDict.txt",
            "verb_dict": _URL + "conll05st%2FverbDict.txt",
            "target_dict": _URL + "conll05st%2FtargetDict.txt",
            "emb": _URL + "conll05st%2Femb"}

    def __init__(self, data_file=None, word_dict_file=None, verb_dict_file=None,
                 target_dict_file=None, emb_file=None, download=True):
        given = {"data": data_file, "word_dict": word_dict_file,
                 "verb_dict": verb_dict_file, "target_dict": target_dict_file,
                 "emb": emb_file}
        paths = {key: fetch_file("Conll05st", given[key], self.FOLDER, name,
                                 [self.URLS[key]], md5, download)
                 for key, (name, md5) in self.FILES.items()}
        self.data_file, self.emb_file = paths["data"], paths["emb"]
        self.word_dict_file, self.verb_dict_file = paths["word_dict"], paths["verb_dict"]
        self.target_dict_file = paths["target_dict"]
        self.word_dict = self._load_dict(self.word_dict_file)
        self.predicate_dict = self._load_dict(self.verb_dict_file)
        self.label_dict = self._load_label_dict(self.target_dict_file)
        self._load_annotations()

    @staticmethod
    def _load_dict(path):
        with open(path) as f:
            return {line.strip(): i for i, line in enumerate(f)}

    @staticmethod
    def _load_label_dict(path):
        with open(path) as f:
            tags = {line.strip()[2:] for line in f if line.strip()[:2] in ("B-", "I-")}
        labels = {}
        for tag in sorted(tags):
            labels[f"B-{tag}"] = len(labels)
            labels[f"I-{tag}"] = len(labels)
        labels["O"] = len(labels)
        return labels

    def _load_annotations(self):
        self.sentences, self.predicates, self.labels = [], [], []
        with tarfile.open(self.data_file) as archive:
            words = gzip.decompress(archive.extractfile(_WORDS).read()).decode().splitlines()
            props = gzip.decompress(archive.extractfile(_PROPS).read()).decode().splitlines()
        sentence, rows = [], []
        for word, prop in zip(words, props):
            columns = prop.split()
            if columns:
                sentence.append(word.strip())
                rows.append(columns)
                continue
            if rows:  # a blank line ends the sentence
                verbs = [x for x in (row[0] for row in rows) if x != "-"]
                for i in range(1, len(rows[0])):
                    self.sentences.append(sentence)
                    self.predicates.append(verbs[i - 1])
                    self.labels.append(_bio([row[i] for row in rows]))
            sentence, rows = [], []

    def __getitem__(self, idx):
        sentence, labels = self.sentences[idx], self.labels[idx]
        n, verb = len(sentence), labels.index("B-V")
        mark = [0] * n
        context = []
        for offset in (-2, -1, 0, 1, 2):
            position = verb + offset
            if 0 <= position < n:
                mark[position] = 1
                context.append(sentence[position])
            else:
                context.append("bos" if offset < 0 else "eos")
        ids = [self.word_dict.get(w, UNK_IDX) for w in sentence]
        columns = [ids] + [[self.word_dict.get(w, UNK_IDX)] * n for w in context]
        columns.append([self.predicate_dict.get(self.predicates[idx])] * n)
        columns.append(mark)
        columns.append([self.label_dict.get(tag) for tag in labels])
        return tuple(np.array(column, dtype=np.int64) for column in columns)

    def __len__(self):
        return len(self.sentences)

    def get_dict(self):
        """(word_dict, predicate_dict, label_dict)."""
        return self.word_dict, self.predicate_dict, self.label_dict

    def get_embedding(self):
        """The path of the embedding file."""
        return self.emb_file
