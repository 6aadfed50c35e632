"""Text (`paddle.text`): the classic NLP datasets Imdb, Imikolov, UCIHousing, Movielens,
Conll05st, WMT14 and WMT16, with Paddle's arguments and item formats.

Example:
    >>> from dygraph.text import UCIHousing
    >>> UCIHousing.FEATURE_NAMES[:3]
    ['CRIM', 'ZN', 'INDUS']
"""

from dygraph.text.datasets import (
    WMT14,
    WMT16,
    Conll05st,
    Imdb,
    Imikolov,
    Movielens,
    UCIHousing,
)

__all__ = ["Conll05st", "Imdb", "Imikolov", "Movielens", "UCIHousing", "WMT14", "WMT16",
           "datasets"]
