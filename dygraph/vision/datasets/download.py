"""Where datasets live on disk, and fetching missing files from mirrors with an md5 check.

The data home is `$DYGRAPH_HOME`, else `~/.cache/dygraph/dataset`; each dataset has a
folder in it (`mnist/`, `fashion-mnist/`). `$DYGRAPH_DATASET_MIRROR` (comma-separated base
URLs) replaces the built-in mirrors: a file is then fetched from `<base>/<folder>/<name>`.

Example:
    >>> import os
    >>> os.path.basename(dataset_dir('mnist'))
    'mnist'
"""

import hashlib
import os
import sys
import urllib.error
import urllib.request

__all__ = ["data_home", "dataset_dir", "find_file", "md5_of", "download", "DownloadError",
           "mirror_urls", "fetch_file"]

# Seconds to wait for a mirror to answer before trying the next one.
DOWNLOAD_TIMEOUT = 30


class DownloadError(RuntimeError):
    """No mirror delivered the file (each attempt's error is in the message)."""


def data_home():
    """The folder that holds downloaded datasets.

    Example:
        >>> isinstance(data_home(), str)
        True
    """
    home = os.environ.get("DYGRAPH_HOME") or os.path.join("~", ".cache", "dygraph", "dataset")
    return os.path.abspath(os.path.expanduser(home))


def dataset_dir(name):
    """The folder of dataset `name` inside the data home."""
    return os.path.join(data_home(), name)


def find_file(folder, name):
    """The path of `name` in `folder`, also accepting it without its '.gz'; None if absent.

    Example:
        >>> find_file('/nonexistent', 'x.gz') is None
        True
    """
    for candidate in (name, name[:-3] if name.endswith(".gz") else None):
        if candidate and os.path.isfile(os.path.join(folder, candidate)):
            return os.path.join(folder, candidate)
    return None


def md5_of(path):
    """The hex md5 digest of a file."""
    digest = hashlib.md5()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def mirror_urls(folder, name, mirrors):
    """The URLs to try for file `name` of dataset `folder`, honouring $DYGRAPH_DATASET_MIRROR.

    Example:
        >>> mirror_urls('mnist', 'a.gz', ['https://m.example/mnist/'])[-1]
        'https://m.example/mnist/a.gz'
    """
    override = os.environ.get("DYGRAPH_DATASET_MIRROR")
    if override:
        bases = [b.strip().rstrip("/") for b in override.split(",") if b.strip()]
        return [f"{base}/{folder}/{name}" for base in bases]
    return [base.rstrip("/") + "/" + name for base in mirrors]


def download(urls, path, md5=None, timeout=DOWNLOAD_TIMEOUT):
    """Fetch the first of `urls` that works into `path`, checking its md5 when given.

    Raises DownloadError listing every URL tried and why it failed.
    """
    os.makedirs(os.path.dirname(path), exist_ok=True)
    errors = []
    part = path + ".part"
    for url in urls:
        print(f"Downloading {url} -> {path}", file=sys.stderr)
        try:
            digest = hashlib.md5()
            with urllib.request.urlopen(url, timeout=timeout) as response, \
                    open(part, "wb") as out:
                for chunk in iter(lambda response=response: response.read(1 << 20), b""):
                    digest.update(chunk)
                    out.write(chunk)
            if md5 is not None and digest.hexdigest() != md5:
                errors.append(f"{url}: md5 {digest.hexdigest()} does not match the expected "
                              f"{md5}")
                continue
            os.replace(part, path)
            return path
        except (urllib.error.URLError, OSError, ValueError) as exc:
            errors.append(f"{url}: {getattr(exc, 'reason', exc)}")
        finally:
            if os.path.exists(part):
                os.remove(part)
    raise DownloadError(f"could not download {os.path.basename(path)}:\n  "
                        + "\n  ".join(errors))


def fetch_file(owner, data_file, folder, name, urls, md5, allow_download):
    """The path of a dataset file: `data_file` when given (it must exist), else
    `<data home>/<folder>/<name>`, downloaded (md5-checked) when missing and
    `allow_download`. Offline or with downloads off, the error says where to put the file.

    Example:
        >>> fetch_file('Demo', None, 'demo', 'x.tgz', [], None, False)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        FileNotFoundError: Demo: x.tgz is missing and download=False...
    """
    if data_file is not None:
        if not os.path.isfile(data_file):
            raise FileNotFoundError(f"{owner}: data file {data_file!r} does not exist")
        return data_file
    path = os.path.join(dataset_dir(folder), name)
    found = os.path.isfile(path)
    if found and (md5 is None or md5_of(path) == md5):
        return path
    hint = (f"Put the file at {path} (set $DYGRAPH_HOME to use another data home), or pass "
            f"its path as data_file=")
    if found and not allow_download:
        raise ValueError(f"{owner}: {path} has md5 {md5_of(path)}, not the expected {md5} "
                         f"(an interrupted copy?). Replace it, pass download=True to fetch "
                         f"it again, or pass its path as data_file= to use it unchecked.")
    if not allow_download:
        raise FileNotFoundError(f"{owner}: {name} is missing and download=False. {hint}.")
    try:
        return download(urls, path, md5)
    except DownloadError as exc:
        raise RuntimeError(f"{owner}: {name} could not be downloaded (offline?). {hint}, or "
                           f"check the network connection.\n{exc}") from None
