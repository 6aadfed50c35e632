"""Compare DyGraph's answer to a case with Paddle's recorded one.

Values are compared with a tolerance by dtype, dtypes and shapes exactly, exceptions by
class (DyGraph's error may be an instance of several, one of them Paddle's), gradients by
value and by which inputs get one, in-place results by aliasing and the input's values.
"""

import math

import numpy as np

# (rtol, atol) by dtype kind and size; integers and bools compare exactly
TOLERANCES = {"float16": (1e-2, 1e-3), "float32": (1e-4, 1e-5), "complex64": (1e-4, 1e-5),
              "float64": (1e-7, 1e-9), "complex128": (1e-7, 1e-9)}


def kind(spec):
    """The kind of a value spec: tensor, seq, py, other or none."""
    if spec is None:
        return "none"
    return next(k for k in ("tensor", "seq", "py", "keys", "other") if k in spec)


def tensors_differ(want, got, values=True):
    """Why two arrays differ, or None.

    >>> tensors_differ(np.float32([1, 2]), np.float64([1, 2]))
    'dtype float64, Paddle float32'
    """
    if got.dtype != want.dtype:
        return f"dtype {got.dtype}, Paddle {want.dtype}"
    if got.shape != want.shape:
        return f"shape {list(got.shape)}, Paddle {list(want.shape)}"
    if not values:
        return None
    rtol, atol = TOLERANCES.get(want.dtype.name, (0, 0))
    if want.dtype.kind in "fc":
        same = np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    else:
        same = np.array_equal(got, want)
    if not same:
        return "values differ"
    return None


def specs_differ(want, got, values=True, where="out"):
    """Why two value specs differ, as a list of reasons (empty when they agree).

    >>> specs_differ({"py": 1.0}, {"py": 1.0}), specs_differ({"py": 1}, {"py": True})
    ([], ['out: True (bool), Paddle 1 (int)'])
    """
    wk, gk = kind(want), kind(got)
    if wk != gk:
        return [f"{where}: {gk}, Paddle {wk}"]
    if wk == "tensor":
        why = tensors_differ(want["tensor"], got["tensor"], values)
        return [f"{where}: {why}"] if why else []
    if wk == "seq":
        if len(want["seq"]) != len(got["seq"]):
            return [f"{where}: {len(got['seq'])} items, Paddle {len(want['seq'])}"]
        return [why for i, (w, g) in enumerate(zip(want["seq"], got["seq"]))
                for why in specs_differ(w, g, values, f"{where}[{i}]")]
    if wk == "py":
        w, g = want["py"], got["py"]
        if type(w) is not type(g):
            return [f"{where}: {g!r} ({type(g).__name__}), Paddle {w!r} ({type(w).__name__})"]
        if isinstance(w, float):
            same = (math.isnan(w) and math.isnan(g)) or math.isclose(w, g, rel_tol=1e-6,
                                                                     abs_tol=1e-9)
        else:
            same = w == g
        return [] if same or not values else [f"{where}: {g!r}, Paddle {w!r}"]
    if wk == "keys":
        return keys_differ(want["keys"], got["keys"], where)
    return []


def keys_differ(want, got, where):
    """How two state dicts' keys (with their dtypes and shapes) differ.

    >>> keys_differ({"w": "float32[2]", "b": "int"}, {"w": "float64[2]", "c": "int"}, "state")
    ["state: lacks ['b'], has more ['c']", 'state: w float64[2], Paddle float32[2]']
    """
    out = []
    lacks, more = sorted(set(want) - set(got)), sorted(set(got) - set(want))
    if lacks or more:
        out.append(f"{where}: " + ", ".join(
            text for text in (lacks and f"lacks {lacks}", more and f"has more {more}") if text))
    out += [f"{where}: {k} {got[k]}, Paddle {want[k]}" for k in want
            if k in got and got[k] != want[k]]
    return out


def differences(want, got, random=False):
    """Every way DyGraph's answer ``got`` differs from Paddle's ``want``.

    >>> ok = {"out": {"tensor": np.ones(2)}}
    >>> differences(ok, ok), differences(ok, {"error": "TypeError", "bases": []})
    ([], ['raises TypeError, Paddle returns'])
    """
    if got.get("missing"):
        return ["missing in DyGraph"]
    if "error" in want or "error" in got:
        if "error" not in got:
            return [f"returns, Paddle raises {want['error']}"]
        if "error" not in want:
            return [f"raises {got['error']}, Paddle returns"]
        if want["error"] not in [got["error"]] + got.get("bases", []):
            return [f"raises {got['error']}, Paddle {want['error']}"]
        if want.get("message") and not got.get("message"):
            return ["raises without a message"]
        return []
    values = not random
    if "parts" in want:  # a class case: one spec per part looked at
        if "parts" not in got:
            return [f"answers {sorted(got)}, Paddle parts"]
        return [why for part, spec in want["parts"].items()
                for why in specs_differ(spec, got["parts"].get(part), values, part)]
    out = specs_differ(want["out"], got["out"], values)
    if "alias" in want and want["alias"] != got.get("alias"):
        out.append(f"result is the input: {got.get('alias')}, Paddle {want['alias']}")
    if "after" in want:
        out += specs_differ(want["after"], got.get("after"), values, "input after the call")
    if "grads" in want:
        out += grad_differences(want["grads"], got.get("grads"), values)
    return out


def grad_differences(want, got, values):
    """How the gradients differ: a backward that raises, an input that gets one or not."""
    if isinstance(want, dict) or isinstance(got, dict):
        w = want.get("error") if isinstance(want, dict) else None
        g = got.get("error") if isinstance(got, dict) else None
        return [] if w == g else [f"backward raises {g}, Paddle {w}"]
    out = []
    for i, (w, g) in enumerate(zip(want, got)):
        if (w is None) != (g is None):
            out.append(f"grad[{i}]: {'none' if g is None else 'given'}, Paddle "
                       f"{'none' if w is None else 'given'}")
        elif w is not None:
            out += specs_differ(w, g, values, f"grad[{i}]")
    return out
