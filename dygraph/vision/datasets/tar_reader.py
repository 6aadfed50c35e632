"""Reading members of a tar archive from a dataset, in the main process and in DataLoader
workers alike.

A tarfile handle cannot be shared across processes (forked workers would move each
other's file position), so each process opens its own on first use, and pickling drops it.

Example:
    >>> import io, os, tarfile, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), 'a.tar')
    >>> with tarfile.open(path, 'w') as t:
    ...     info = tarfile.TarInfo('x/y.txt'); info.size = 2
    ...     t.addfile(info, io.BytesIO(b'hi'))
    >>> TarReader(path).read('x/y.txt')
    b'hi'
"""

import os
import tarfile

__all__ = ["TarReader"]


class TarReader:
    """Random access to the files of the tar archive at `path` (names without a leading
    './').

    Example:
        >>> TarReader('/nonexistent.tar').path
        '/nonexistent.tar'
    """

    def __init__(self, path):
        self.path = path
        self._archive, self._pid, self._members = None, None, None

    def _open(self):
        if self._archive is None or self._pid != os.getpid():
            self._archive = tarfile.open(self.path)
            self._pid = os.getpid()
            self._members = {m.name.lstrip("./"): m for m in self._archive.getmembers()
                             if m.isfile()}
        return self._archive

    def names(self):
        """The names of the archive's files."""
        self._open()
        return set(self._members)

    def read(self, name):
        """The bytes of member `name`; KeyError naming the archive when it is absent."""
        archive = self._open()
        if name not in self._members:
            raise KeyError(f"{self.path} has no member {name!r}")
        return archive.extractfile(self._members[name]).read()

    def __getstate__(self):
        return {"path": self.path, "_archive": None, "_pid": None, "_members": None}
