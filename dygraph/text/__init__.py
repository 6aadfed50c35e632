"""Text (`paddle.text`): the classic NLP datasets Imdb, Imikolov, UCIHousing, Movielens,
Conll05st, WMT14 and WMT16, with Paddle's arguments and item formats, and Viterbi decoding.

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
from dygraph.text.viterbi_decode import ViterbiDecoder, viterbi_decode

__all__ = ["Conll05st", "Imdb", "Imikolov", "Movielens", "UCIHousing", "WMT14", "WMT16",
           "ViterbiDecoder", "viterbi_decode", "datasets"]
