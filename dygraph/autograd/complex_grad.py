"""Gradients through complex values: which ops follow the convention, and refusal for the rest.

The convention (dygraph/ops/complex.py): for a real loss L of z = a + ib the gradient held
for z is dL/da + i dL/db, so a formula multiplies by the *conjugate* derivative. An Op class
says how its backward stands with complex data through its `complex_grad` attribute:

  "same"        -- the backward already follows the convention: linear maps with real
                   coefficients (reshape, sum, add, indexing...), which need nothing, and
                   ops written for it (conj, real, the FFTs, eig).
  "holomorphic" -- the backward is the real formula g * f'(x) of a function that is
                   holomorphic in each input (exp, sin, pow, multiply, matmul...); on
                   complex data it runs as conj(backward(conj(g))) = g * conj(f'(x)).
  None          -- (the default) no complex gradient: when complex data flows through a
                   recorded node its backward raises a TypeError naming the op, instead of
                   returning a silently wrong gradient. Forward values are unaffected.

Either of the first two may define `backward_complex(m, *grads)`, used instead of
`backward` on complex data where the real formula would not do (a branch that compares
values, abs's z / |z|); under "holomorphic" it is conjugated around like `backward`.

`apply` calls `record_complex` only when a recorded op's output or an input is complex, so
real-dtype ops never come here and the backward engine checks nothing.
"""

from dygraph.framework.errors import op_error, user_frame

__all__ = ["record_complex", "involves_complex"]


def involves_complex(inputs, outs):
    """True when an input Tensor or an output array (`outs`: an array or a tuple) is complex.

    Example:
        >>> import numpy as np, dygraph
        >>> involves_complex([dygraph.ones([2])], np.ones(2, np.complex64))
        True
    """
    for t in inputs:
        if t._data.dtype.kind == "c":
            return True
    for o in (outs if type(outs) is tuple else (outs,)):
        if o.dtype.kind == "c":
            return True
    return False


def record_complex(op):
    """Set up the recorded node `op`, which has complex data, for backward (see module doc).

    The node moves to a subclass of its class, made once per class, whose `backward` runs
    the complex rule; a subclass and not a per-node closure, so that no node refers to
    itself and graphs that are never differentiated are freed as soon as they are dropped.
    """
    cls = type(op)
    variant = _VARIANTS.get(cls)
    if variant is None:
        variant = _VARIANTS[cls] = _variant(cls)
    if variant is not cls:
        if variant.complex_grad is None:
            op.complex_at = user_frame()  # the user's line, for the refusal's message
        op.__class__ = variant


_VARIANTS = {}


def _variant(cls):
    kind = cls.complex_grad
    backward = getattr(cls, "backward_complex", None)
    if kind == "same":
        if backward is None:
            return cls
    elif kind == "holomorphic":
        backward = _conjugated(backward or cls.backward)
    else:
        backward = _refuse
    # Saved programs name it as its base class (its module and qualname, complex_variant
    # for the program format's table to skip it): loading gives the base class.
    return type(cls.__name__, (cls,), {"__slots__": (), "backward": backward,
                                       "__module__": cls.__module__,
                                       "__qualname__": cls.__qualname__,
                                       "complex_variant": True})


def _conj(m, g):
    if g is None or m.data(g).dtype.kind != "c":
        return g  # real: its own conjugate, and no copy
    return m.conj(g)


def _conjugated(backward):
    def conjugated(self, m, *grads):
        grads = tuple(_conj(m, g) for g in grads)
        return tuple(_conj(m, g) for g in backward(self, m, *grads))

    return conjugated


def _refuse(self, m, *grads):
    name = self.name
    raise op_error(name, f"complex inputs have no gradient here (the {name} at "
                   f"{self.complex_at} has complex data and its gradient formula is only "
                   "right for real values); stop the gradient of the complex input "
                   "(stop_gradient=True or .detach()) or compute on its real and imaginary "
                   "parts (dygraph.real / dygraph.imag / dygraph.as_real)", TypeError)
