"""dygraph.text datasets on small real files in Paddle's formats (see builders.py). The
expected items were also checked against Paddle 3.3's datasets on the same files."""

import numpy as np
import pytest

import dygraph
from dygraph.text import (
    WMT14,
    WMT16,
    Conll05st,
    Imdb,
    Imikolov,
    Movielens,
    UCIHousing,
)
from tests.text import builders


def test_uci_housing_normalises_and_splits(tmp_path):
    path, raw = builders.housing(tmp_path / "housing.data")
    train, test = UCIHousing(path, "train"), UCIHousing(path, mode="TEST")
    assert len(train) == 8 and len(test) == 2
    features, price = test[1]
    assert features.shape == (13,) and features.dtype == np.float32 and price.shape == (1,)
    spread = raw[:, :13].max(0) - raw[:, :13].min(0)
    np.testing.assert_allclose(features, (raw[9, :13] - raw[:, :13].mean(0)) / spread,
                               rtol=1e-5)
    assert price[0] == np.float32(raw[9, 13])
    loader = dygraph.io.DataLoader(train, batch_size=4)
    x, y = next(iter(loader))
    assert x.shape == [4, 13] and y.shape == [4, 1]


def test_imdb_vocabulary_labels_and_ids(tmp_path):
    path = builders.imdb(tmp_path / "aclImdb_v1.tar.gz")
    train = Imdb(path, "train", cutoff=1)
    # Counted over train and test reviews (not 'unsup'): great 5, the 3, dull 4, film 3,
    # plot 2, is 3; words seen once fall under <unk>.
    assert train.word_idx == {b"great": 0, b"dull": 1, b"film": 2, b"is": 3, b"the": 4,
                              b"plot": 5, "<unk>": 6}
    assert len(train) == 3 and [int(train[i][1][0]) for i in range(3)] == [0, 0, 1]
    words, label = train[0]  # "A great, great film!"
    assert words.tolist() == [6, 0, 0, 2] and words.dtype == np.int64 and label.shape == (1,)
    test = Imdb(path, "test", cutoff=1)
    assert test[1][0].tolist() == [1, 4, 2, 3, 1]  # "dull, the film is dull"


def test_imikolov_ngrams_and_sequences(tmp_path):
    path = builders.imikolov(tmp_path / "simple-examples.tgz")
    ngram = Imikolov(path, "NGRAM", window_size=3, mode="train", min_word_freq=1)
    # the 6, <s> 5, <e> 5, cat 3, dog 2, sat 2; the rest are <unk> (6).
    assert ngram.word_idx == {b"the": 0, "<e>": 1, "<s>": 2, b"cat": 3, b"dog": 4,
                              b"sat": 5, "<unk>": 6}
    assert [t.tolist() for t in ngram[0]] == [2, 0, 3]  # <s> the cat
    assert len(ngram) == 3 + 8 + 2
    seq = Imikolov(path, "SEQ", mode="train", min_word_freq=1)
    source, target = seq[2]  # "a cat"
    assert source.tolist() == [2, 6, 3] and target.tolist() == [6, 3, 1]
    assert len(Imikolov(path, "SEQ", window_size=3, min_word_freq=1)) == 1
    assert len(Imikolov(path, "NGRAM", window_size=2, mode="test", min_word_freq=1)) == 2
    with pytest.raises(ValueError, match="window_size >= 1"):
        Imikolov(path, "NGRAM")
    with pytest.raises(ValueError, match=r"data_type should be one of \['NGRAM', 'SEQ'\]"):
        Imikolov(path, "CHAR", window_size=2)


def test_movielens_split_is_seeded_and_items_hold_ids(tmp_path):
    path = builders.movielens(tmp_path / "ml-1m.zip")
    train, test = Movielens(path, "train", 0.3, 1), Movielens(path, "test", 0.3, 1)
    draws = np.random.RandomState(1).random_sample(40) < 0.3
    assert len(test) == draws.sum() and len(train) + len(test) == 40
    first_test = int(np.flatnonzero(draws)[0])
    item = test[0]
    assert len(item) == 8
    user, gender, age, job, movie, categories, title, rating = (p.tolist() for p in item)
    assert user == [1 + first_test % 2] and gender == [first_test % 2]
    assert age == [2 if user == [1] else 0] and job == [4 if user == [1] else 10]
    assert movie == [1 + (first_test // 2) % 2]
    assert rating == [(1 + first_test % 5) * 2 - 5.0]
    assert test.categories_dict == {"Action": 0, "Animation": 1, "Comedy": 2, "Crime": 3}
    assert test.movie_title_dict == {"heat": 0, "story": 1, "toy": 2}
    expected_title = [2, 1] if movie == [1] else [0]
    assert title == expected_title and categories == ([1, 2] if movie == [1] else [0, 3])


def test_conll05_examples_per_predicate(tmp_path):
    paths = builders.conll05(tmp_path)
    ds = Conll05st(**paths)
    assert len(ds) == 3 and ds.predicates == ["sit", "sleep", "bark"]
    assert ds.labels[0] == ["B-A0", "I-A0", "B-V", "O", "O"]
    assert ds.labels[1] == ["B-A0", "I-A0", "O", "O", "B-V"]
    assert ds.label_dict == {"B-A0": 0, "I-A0": 1, "B-V": 2, "I-V": 3, "O": 4}
    words, n2, n1, verb, p1, p2, predicate, mark, labels = (p.tolist() for p in ds[0])
    assert words == [2, 3, 4, 0, 0]  # The cat sat and(unk) slept(unk)
    assert (n2, n1, verb, p1, p2) == ([2] * 5, [3] * 5, [4] * 5, [0] * 5, [0] * 5)
    assert predicate == [0] * 5 and mark == [1, 1, 1, 1, 1] and labels == [0, 1, 2, 4, 4]
    last = [p.tolist() for p in ds[2]]  # "Dogs bark": no words after the verb -> eos
    assert last[1] == [5, 5] and last[4] == [6, 6] and last[7] == [1, 1]
    assert ds.get_embedding() == paths["emb_file"] and ds.get_dict()[1]["bark"] == 2


def test_wmt14_pairs_and_dictionaries(tmp_path):
    path = builders.wmt14(tmp_path / "wmt14.tgz")
    train = WMT14(path, "train", dict_size=5)
    assert len(train) == 2  # the line without a tab is skipped
    src, trg, trg_next = (p.tolist() for p in train[1])  # hello cat -> bonjour chat
    assert src == [0, 3, 2, 1] and trg == [0, 3, 2] and trg_next == [3, 2, 1]
    assert train.get_dict(reverse=True)[1][4] == "monde"
    assert len(WMT14(path, "gen", dict_size=5)) == 1
    with pytest.raises(ValueError, match="dict_size should be a positive number"):
        WMT14(path, "train")


def test_wmt16_builds_each_language_vocabulary(tmp_path):
    path = builders.wmt16(tmp_path / "wmt16.tar.gz")
    train = WMT16(path, "train", src_dict_size=6, trg_dict_size=6, lang="en")
    # en: a 3, man 2, runs 2, dog 1; de: ein 3, mann 2, rennt 2, hund 1.
    assert train.get_dict("en") == {"<s>": 0, "<e>": 1, "<unk>": 2, "a": 3, "man": 4,
                                    "runs": 5}
    assert train.get_dict("de", reverse=True)[3] == "ein"
    src, trg, trg_next = (p.tolist() for p in train[1])  # a dog runs -> ein hund rennt
    assert src == [0, 3, 2, 5, 1] and trg == [0, 3, 2, 5] and trg_next == [3, 2, 5, 1]
    german = WMT16(path, "val", src_dict_size=6, trg_dict_size=6, lang="de")
    assert [p.tolist() for p in german[0]][0] == [0, 3, 2, 1]  # ein hund
    assert len(WMT16(path, "test", 6, 6)) == 1
    with pytest.raises(ValueError, match=r"mode should be one of \['train', 'test', 'val'\]"):
        WMT16(path, "dev", 6, 6)


@pytest.mark.parametrize("make, name", [
    (lambda: UCIHousing(download=False), "housing.data"),
    (lambda: Imdb(download=False), "aclImdb_v1.tar.gz"),
    (lambda: Imikolov(data_type="SEQ", download=False), "simple-examples.tgz"),
    (lambda: Movielens(download=False), "ml-1m.zip"),
    (lambda: Conll05st(download=False), "conll05st-tests.tar.gz"),
    (lambda: WMT14(dict_size=10, download=False), "wmt14.tgz"),
    (lambda: WMT16(src_dict_size=10, trg_dict_size=10, download=False), "wmt16.tar.gz"),
])
def test_missing_files_offline_say_where_to_put_them(tmp_path, monkeypatch, make, name):
    monkeypatch.setenv("DYGRAPH_HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError, match=f"{name} is missing and download=False. "
                                                f"Put the file at {tmp_path}"):
        make()


def test_a_corrupt_file_in_the_data_home_is_reported(tmp_path, monkeypatch):
    monkeypatch.setenv("DYGRAPH_HOME", str(tmp_path))
    folder = tmp_path / "uci_housing"
    folder.mkdir()
    builders.housing(folder / "housing.data")
    with pytest.raises(ValueError, match="not the expected d4accdce"):
        UCIHousing(download=False)
    assert len(UCIHousing(data_file=str(folder / "housing.data"))) == 8


def test_download_failure_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("DYGRAPH_HOME", str(tmp_path))
    monkeypatch.setattr(UCIHousing, "URL", (tmp_path / "no-server" / "housing.data").as_uri())
    with pytest.raises(RuntimeError, match="could not be downloaded"):
        UCIHousing()


def test_download_is_md5_checked(tmp_path, monkeypatch):
    source, _ = builders.housing(tmp_path / "served.data")
    monkeypatch.setenv("DYGRAPH_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(UCIHousing, "URL", (tmp_path / "served.data").as_uri())
    with pytest.raises(RuntimeError, match="does not match the expected"):
        UCIHousing()
    from dygraph.vision.datasets.download import md5_of

    monkeypatch.setattr(UCIHousing, "MD5", md5_of(source))
    assert len(UCIHousing(mode="test")) == 2
    assert (tmp_path / "home" / "uci_housing" / "housing.data").is_file()
