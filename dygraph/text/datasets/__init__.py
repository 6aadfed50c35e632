"""`paddle.text.datasets`: each dataset reads the original archive or files (given with
`data_file=` and friends, else taken from `$DYGRAPH_HOME/<name>/` and downloaded, md5-checked,
when missing and `download=True`). Offline, a missing file raises an error that says where
to put it.

Example:
    >>> from dygraph.text.datasets import Imdb
    >>> Imdb.FOLDER
    'imdb'
"""

from dygraph.text.datasets.conll05 import Conll05st
from dygraph.text.datasets.imdb import Imdb
from dygraph.text.datasets.imikolov import Imikolov
from dygraph.text.datasets.movielens import Movielens
from dygraph.text.datasets.uci_housing import UCIHousing
from dygraph.text.datasets.wmt import WMT14, WMT16

__all__ = ["Conll05st", "Imdb", "Imikolov", "Movielens", "UCIHousing", "WMT14", "WMT16"]
