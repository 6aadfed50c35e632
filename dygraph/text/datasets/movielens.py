"""MovieLens 1M ratings, from `ml-1m.zip` (movies.dat, users.dat and ratings.dat, fields
separated by '::', Latin-1).

Each rating is drawn into 'test' with probability `test_ratio` by a NumPy RandomState
seeded with `rand_seed`, the same draws as Paddle's (which seeds NumPy's global
generator). Title words and categories are numbered in sorted order (Paddle numbers them in
set order, which changes from run to run).

Example:
    >>> Movielens.AGES
    [1, 18, 25, 35, 45, 50, 56]
"""

import re
import zipfile

import numpy as np

from dygraph.io.dataset import Dataset
from dygraph.text.datasets._common import check_choice, fetch_file

__all__ = ["Movielens", "MovieInfo", "UserInfo"]

_TITLE_YEAR = re.compile(r"^(.*)\((\d+)\)$")


class MovieInfo:
    """A movie: id, categories and title (without the year).

    Example:
        >>> MovieInfo('3', ['Comedy'], 'Heat').value({'Comedy': 0}, {'heat': 5})
        [[3], [0], [5]]
    """

    def __init__(self, index, categories, title):
        self.index, self.categories, self.title = int(index), categories, title

    def value(self, categories_dict, movie_title_dict):
        """[[id], [category ids], [title word ids]]."""
        return [[self.index], [categories_dict[c] for c in self.categories],
                [movie_title_dict[w.lower()] for w in self.title.split()]]

    def __repr__(self):
        return (f"<MovieInfo id({self.index}), title({self.title}), "
                f"categories({self.categories})>")


class UserInfo:
    """A user: id, gender, age bracket (index into Movielens.AGES) and job id.

    Example:
        >>> UserInfo('7', 'F', '25', '4').value()
        [[7], [1], [2], [4]]
    """

    def __init__(self, index, gender, age, job_id):
        self.index, self.is_male = int(index), gender == "M"
        self.age, self.job_id = Movielens.AGES.index(int(age)), int(job_id)

    def value(self):
        """[[id], [0 male / 1 female], [age bracket], [job id]]."""
        return [[self.index], [0 if self.is_male else 1], [self.age], [self.job_id]]

    def __repr__(self):
        gender = "M" if self.is_male else "F"
        return (f"<UserInfo id({self.index}), gender({gender}), "
                f"age({Movielens.AGES[self.age]}), job({self.job_id})>")


class Movielens(Dataset):
    """`dataset[i]` is 8 int arrays: user id, gender, age bracket, job, movie id, category
    ids, title word ids, and the rating (float, scaled to `2 * stars - 5`).

    Example:
        >>> ds = Movielens(mode='test', download=False)  # doctest: +SKIP
    """

    FOLDER = "movielens"
    URL = "https://dataset.bj.bcebos.com/movielens%2Fml-1m.zip"
    MD5 = "c4d9eecfca2ab87c1945afe126590906"
    AGES = [1, 18, 25, 35, 45, 50, 56]

    def __init__(self, data_file=None, mode="train", test_ratio=0.1, rand_seed=0,
                 download=True):
        self.mode = check_choice("Movielens", "mode", mode, ("train", "test"))
        self.data_file = fetch_file("Movielens", data_file, self.FOLDER, "ml-1m.zip",
                                    [self.URL], self.MD5, download)
        self.test_ratio, self.rand_seed = test_ratio, rand_seed
        with zipfile.ZipFile(self.data_file) as package:
            self._load_meta(package)
            self._load_ratings(package)

    @staticmethod
    def _lines(package, name):
        with package.open(f"ml-1m/{name}") as f:
            return [line.decode("latin-1").strip() for line in f if line.strip()]

    def _load_meta(self, package):
        self.movie_info, self.user_info = {}, {}
        words, categories = set(), set()
        for line in self._lines(package, "movies.dat"):
            movie_id, title, kinds = line.split("::")
            match = _TITLE_YEAR.match(title)
            title = match.group(1) if match else title
            self.movie_info[int(movie_id)] = MovieInfo(movie_id, kinds.split("|"), title)
            categories.update(kinds.split("|"))
            words.update(w.lower() for w in title.split())
        self.movie_title_dict = {w: i for i, w in enumerate(sorted(words))}
        self.categories_dict = {c: i for i, c in enumerate(sorted(categories))}
        for line in self._lines(package, "users.dat"):
            uid, gender, age, job, _ = line.split("::")
            self.user_info[int(uid)] = UserInfo(uid, gender, age, job)

    def _load_ratings(self, package):
        draws = np.random.RandomState(self.rand_seed)
        is_test, self.data = self.mode == "test", []
        for line in self._lines(package, "ratings.dat"):
            if (draws.random_sample() < self.test_ratio) != is_test:
                continue
            uid, movie_id, stars, _ = line.split("::")
            movie = self.movie_info[int(movie_id)]
            self.data.append(self.user_info[int(uid)].value()
                             + movie.value(self.categories_dict, self.movie_title_dict)
                             + [[float(stars) * 2 - 5.0]])

    def __getitem__(self, idx):
        return tuple(np.array(part) for part in self.data[idx])

    def __len__(self):
        return len(self.data)
