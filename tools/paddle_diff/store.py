"""The recorded files: per namespace a JSON index of cases and answers and an ``.npz`` of
their arrays, safe to load (``allow_pickle=False``; no code, no pickles).

The arrays of a namespace are pooled, one flat array per dtype, and a tensor spec names
its slice: ``{"tensor": {"d": dtype, "o": offset, "s": shape}}``. Pooling keeps the files
small: thousands of tiny arrays as npz members would cost more in headers than in data.
"""

import json
import pathlib

import numpy as np

DATA = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "parity"


class Pool:
    """Flat arrays per dtype; ``add`` returns the reference of an array."""

    def __init__(self):
        self.parts, self.sizes = {}, {}

    def add(self, array):
        array = np.asarray(array)  # (ascontiguousarray would make a 0-D array 1-D)
        key = array.dtype.str.lstrip("<>|=")
        self.parts.setdefault(key, []).append(array.ravel())
        offset = self.sizes.get(key, 0)
        self.sizes[key] = offset + array.size
        return {"d": key, "o": offset, "s": list(array.shape)}

    def arrays(self):
        return {k: np.concatenate(v) for k, v in self.parts.items()}


def _map_tensors(obj, convert):
    if isinstance(obj, dict):
        return {k: convert(v) if k == "tensor" else _map_tensors(v, convert)
                for k, v in obj.items()}
    if isinstance(obj, list):
        return [_map_tensors(item, convert) for item in obj]
    return obj


def write(namespace, cases, directory=DATA):
    """Write the cases (with their ``expect`` answers) of one namespace.

    >>> import tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> write("demo", [{"id": "a", "args": [{"tensor": np.arange(3)}]}], d)
    >>> read("demo", d)[0]["args"][0]["tensor"].tolist()
    [0, 1, 2]
    """
    pool = Pool()
    encoded = [_map_tensors(case, pool.add) for case in cases]
    directory.mkdir(parents=True, exist_ok=True)
    lines = ",\n".join(json.dumps(case, separators=(",", ":")) for case in encoded)
    (directory / f"{namespace}.json").write_text(f"[\n{lines}\n]\n")
    np.savez_compressed(directory / f"{namespace}.npz", **pool.arrays())


def read(namespace, directory=DATA):
    """The cases of one namespace, with their arrays."""
    cases = json.loads((directory / f"{namespace}.json").read_text())
    with np.load(directory / f"{namespace}.npz", allow_pickle=False) as npz:
        flat = {k: npz[k] for k in npz.files}

    def convert(ref):
        size = int(np.prod(ref["s"], dtype=np.int64))
        return flat[ref["d"]][ref["o"]:ref["o"] + size].reshape(ref["s"])

    return _map_tensors(cases, convert)


def namespaces(directory=DATA):
    """The namespaces that have recordings, sorted."""
    return sorted(p.stem for p in directory.glob("*.json") if p.stem != "known_differences")
