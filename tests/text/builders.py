"""Small real files in the formats of Paddle's text datasets, for the tests."""

import gzip
import io
import tarfile
import zipfile

import numpy as np


def add_member(archive, name, payload):
    info = tarfile.TarInfo(name)
    info.size = len(payload)
    archive.addfile(info, io.BytesIO(payload))


def tar_of(path, members):
    with tarfile.open(path, "w:gz") as archive:
        for name, payload in members.items():
            add_member(archive, name, payload)
    return str(path)


def housing(path, rows=10, seed=0):
    data = np.random.default_rng(seed).uniform(0, 50, (rows, 14)).round(3)
    with open(path, "w") as f:
        for row in data:
            f.write(" ".join(f"{v:.3f}" for v in row) + "\n")
    return str(path), data


IMDB_REVIEWS = {
    "aclImdb/train/pos/0_9.txt": b"A great, great film!\n",
    "aclImdb/train/pos/1_8.txt": b"Great acting; the plot is great.",
    "aclImdb/train/neg/2_1.txt": b"The plot is dull. Dull!",
    "aclImdb/test/pos/3_10.txt": b"great film",
    "aclImdb/test/neg/4_2.txt": b"dull, the film is dull",
    "aclImdb/train/unsup/5_0.txt": b"ignored words here",
}


def imdb(path):
    return tar_of(path, IMDB_REVIEWS)


PTB_TRAIN = b"the cat sat\nthe dog sat on the mat the end\na cat\n"
PTB_VALID = b"the cat ran\nthe dog\n"


def imikolov(path):
    return tar_of(path, {"./simple-examples/data/ptb.train.txt": PTB_TRAIN,
                         "./simple-examples/data/ptb.valid.txt": PTB_VALID,
                         "./simple-examples/data/ptb.test.txt": b"unused\n"})


def movielens(path, ratings=40):
    movies = "1::Toy Story (1995)::Animation|Comedy\n2::Heat (1995)::Action|Crime\n"
    users = "1::M::25::4::12345\n2::F::1::10::54321\n"
    lines = [f"{1 + i % 2}::{1 + (i // 2) % 2}::{1 + i % 5}::97830{i}\n"
             for i in range(ratings)]
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("ml-1m/movies.dat", movies.encode("latin-1"))
        z.writestr("ml-1m/users.dat", users.encode("latin-1"))
        z.writestr("ml-1m/ratings.dat", "".join(lines).encode("latin-1"))
    return str(path)


# Two sentences; the first has two predicates (columns 2 and 3 of the props file).
CONLL_WORDS = "The\ncat\nsat\nand\nslept\n\nDogs\nbark\n\n"
CONLL_PROPS = ("-\t(A0*\t(A0*\n-\t*)\t*)\nsit\t(V*)\t*\n-\t*\t*\nsleep\t*\t(V*)\n\n"
               "-\t(A0*)\nbark\t(V*)\n\n")


def conll05(folder):
    data = tar_of(folder / "conll05st-tests.tar.gz", {
        "conll05st-release/test.wsj/words/test.wsj.words.gz":
            gzip.compress(CONLL_WORDS.encode()),
        "conll05st-release/test.wsj/props/test.wsj.props.gz":
            gzip.compress(CONLL_PROPS.encode())})
    files = {"word_dict_file": "<unk>\nthe\nThe\ncat\nsat\nbos\neos\nDogs\nbark\n",
             "verb_dict_file": "sit\nsleep\nbark\n",
             "target_dict_file": "B-A0\nI-A0\nB-V\nI-V\nO\n",
             "emb_file": "0.1 0.2\n"}
    paths = {"data_file": data}
    for key, text in files.items():
        paths[key] = str(folder / key)
        with open(paths[key], "w") as f:
            f.write(text)
    return paths


def wmt14(path):
    src_dict = b"<s>\n<e>\n<unk>\nhello\nworld\ncat\n"
    trg_dict = b"<s>\n<e>\n<unk>\nbonjour\nmonde\nchat\n"
    train = b"hello world\tbonjour monde\nhello cat\tbonjour chat\nbad line\n"
    test = b"world\tmonde\n"
    return tar_of(path, {"wmt14/src.dict": src_dict, "wmt14/trg.dict": trg_dict,
                         "wmt14/train/train": train, "wmt14/test/test": test,
                         "wmt14/gen/gen": test})


WMT16_TRAIN = (b"a man runs\tein mann rennt\na dog runs\tein hund rennt\n"
               b"a man\tein mann\n")


def wmt16(path):
    return tar_of(path, {"wmt16/train": WMT16_TRAIN,
                         "wmt16/test": b"a cat runs\teine katze rennt\n",
                         "wmt16/val": b"a dog\tein hund\n"})
