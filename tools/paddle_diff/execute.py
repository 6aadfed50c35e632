"""Run one case in a framework (Paddle or DyGraph, passed as a module) and describe the
answer in framework-free terms.

Value specs, used for inputs and answers alike: ``{"tensor": ndarray, "grad": bool}`` (a
tensor; ``grad`` makes it require a gradient), ``{"py": value}`` (a Python value),
``{"seq": [spec, ...]}`` (a list or tuple), ``{"other": type name}`` (anything else).
An answer is ``{"out": spec}`` or ``{"error": exception class name, "message": bool}``,
with ``grads`` (one spec or None per input that requires a gradient) for gradient cases
and ``alias``/``after`` (whether the result is the input, the input's values after the
call) for in-place names.
"""

import numbers
import warnings

import numpy as np


def to_framework(spec, fw):
    """A framework value from a spec.

    >>> import dygraph
    >>> to_framework({"seq": [{"py": 1}, {"py": "a"}]}, dygraph)
    [1, 'a']
    """
    if "tensor" in spec:
        return fw.to_tensor(spec["tensor"], stop_gradient=not spec.get("grad", False))
    if "seq" in spec:
        return [to_framework(item, fw) for item in spec["seq"]]
    return spec["py"]


def describe(value, fw):
    """A spec from a framework value.

    >>> import dygraph
    >>> describe((dygraph.to_tensor([1, 2]), 3), dygraph)["seq"][1]
    {'py': 3}
    """
    if isinstance(value, fw.Tensor):
        return {"tensor": np.asarray(value.numpy())}
    if isinstance(value, (list, tuple)):
        return {"seq": [describe(item, fw) for item in value]}
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, str)):
        return {"py": value}
    if isinstance(value, numbers.Number) and not isinstance(value, complex):
        return {"py": value}
    return {"other": type(value).__name__}


def tensors_in(value, fw):
    """The tensors of a (nested) result, in order."""
    if isinstance(value, fw.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in tensors_in(item, fw)]
    return []


def error_answer(exc):
    """The answer for an exception: its class name, whether it has a message, and the
    other exception classes it is an instance of (an error may be both an AssertionError
    and a ValueError, to match both the type Paddle raises and the documented one)."""
    bases = [c.__name__ for c in type(exc).__mro__[1:]
             if c not in (Exception, BaseException, object)]
    answer = {"error": type(exc).__name__, "message": bool(str(exc).strip())}
    return dict(answer, bases=bases) if bases else answer


def gradients(result, inputs, fw):
    """Backward of a weighted sum of the real floating outputs; the inputs' gradients.

    The weights differ per element so that a wrong gradient cannot cancel out.
    """
    outs = [t for t in tensors_in(result, fw) if not t.stop_gradient
            and np.issubdtype(np.asarray(t.numpy()).dtype, np.floating)]
    if not outs:
        return [None for _ in inputs]
    loss = None
    for out in outs:
        size = int(np.prod(out.shape))
        weights = np.linspace(0.5, 1.5, max(size, 1))[:size]
        weights = weights.reshape(out.shape).astype(np.asarray(out.numpy()).dtype)
        term = (out * fw.to_tensor(weights)).sum()
        loss = term if loss is None else loss + term
    loss.backward()
    return [None if t.grad is None else describe(t.grad, fw) for t in inputs]


def run(case, fw, function):
    """Call ``function`` (or the method ``case["name"]`` of the first argument) on the
    case's inputs in framework ``fw``; the answer spec.

    >>> import dygraph
    >>> case = {"name": "add",
    ...         "args": [{"tensor": np.ones(2)}, {"tensor": np.ones(2)}], "kwargs": {}}
    >>> run(case, dygraph, dygraph.add)["out"]["tensor"].tolist()
    [2.0, 2.0]
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        args = [to_framework(s, fw) for s in case["args"]]
        kwargs = {k: to_framework(s, fw) for k, s in case["kwargs"].items()}
        grad_inputs = [a for a, s in zip(args, case["args"]) if s.get("grad")]
        grad_inputs += [kwargs[k] for k, s in case["kwargs"].items() if s.get("grad")]
        try:
            if case.get("kind") == "method":
                result = getattr(args[0], case["name"])(*args[1:], **kwargs)
            else:
                result = function(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - the exception type is the answer
            return error_answer(exc)
        answer = {"out": describe(result, fw)}
        if case["name"].endswith("_") and args and isinstance(args[0], fw.Tensor):
            answer["alias"] = result is args[0]
            answer["after"] = describe(args[0], fw)
        if case.get("grad"):
            try:
                answer["grads"] = gradients(result, grad_inputs, fw)
            except Exception as exc:  # noqa: BLE001 - a failing backward is an answer
                answer["grads"] = error_answer(exc)
        return answer
