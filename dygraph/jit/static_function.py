"""`to_static`: a function, a Layer or a Layer's forward, run as a traced static program.

Each call looks up the program traced for its input signature (shapes, with the free
dimensions of `input_spec` left free; dtypes; which inputs need gradients; the training
flags of the layer and its sublayers) and runs it as one differentiable op
(dygraph.jit.run_program), tracing a new program for a new signature. Code that needs a
tensor's value while tracing (an `if` on a tensor that the AST converter could not turn
into `cond`) runs eagerly instead, with a warning that names the construct and the line.

Example:
    >>> import dygraph
    >>> net = to_static(dygraph.nn.Linear(3, 2))
    >>> x = dygraph.ones([4, 3])
    >>> net(x).shape, len(net.forward.program_cache)
    ([4, 2], 1)
"""

import functools
import inspect
import operator
import warnings

from dygraph.autograd import grad_mode
from dygraph.jit import config
from dygraph.jit.guards import Guards, SideEffect
from dygraph.jit.trace import Arg, flatten, tensor_args, trace
from dygraph.static.input_spec import InputSpec
from dygraph.tensor.tensor import Tensor

__all__ = ["to_static", "StaticFunction", "ProgramCache"]

_state = grad_mode.state
_training = operator.attrgetter("training")


class ProgramCache:
    """The programs a StaticFunction traced, by input signature; len() counts them."""

    def __init__(self):
        self._programs = {}
        self.last = None

    def __len__(self):
        return len(self._programs)

    def __iter__(self):
        return iter(self._programs)

    def __contains__(self, key):
        return key in self._programs

    def __getitem__(self, key):
        return self._programs[key]

    def concrete_programs(self):
        """The traced ConcretePrograms."""
        return list(self._programs.values())


def _specs(input_spec):
    if input_spec is None:
        return None
    leaves = []
    flatten(list(input_spec), leaves, lambda v: isinstance(v, (InputSpec, Tensor)))
    return [InputSpec.from_tensor(s) if isinstance(s, Tensor) else s for s in leaves]


def _check_spec(i, t, spec):
    shape = t._data.shape
    if len(shape) != len(spec.shape) or any(d != -1 and d != s
                                             for d, s in zip(spec.shape, shape)):
        raise ValueError(f"to_static: input {i} has shape {list(shape)} but its InputSpec "
                         f"says {list(spec.shape)} (-1: any size)")
    if t._data.dtype != spec.dtype.np_dtype:
        raise TypeError(f"to_static: input {i} has dtype {t._data.dtype.name} but its "
                        f"InputSpec says {spec.dtype.name}")
    return spec.shape


class StaticFunction:
    """What to_static returns for a function (or sets as a Layer's forward)."""

    def __init__(self, function, input_spec=None, layer=None, build_strategy=None,
                 backend=None, full_graph=False):
        self._function = function
        self._input_spec = input_spec
        self._specs = _specs(input_spec)
        self._layer = layer
        self._options = (build_strategy, backend, full_graph)
        self._cache = ProgramCache()
        self._converted = None
        self._fallback = None
        self._modal = None
        self._guards = Guards(function, layer)
        functools.update_wrapper(self, function)

    # -- binding to a layer ------------------------------------------------------------------
    def __get__(self, instance, owner):
        if instance is None:
            return self
        key = f"_jit_bound_{id(self)}"
        bound = instance.__dict__.get(key)
        if bound is None:
            bound = StaticFunction(self._function, self._input_spec, instance,
                                   *self._options)
            instance.__dict__[key] = bound
        return bound

    @property
    def dygraph_function(self):
        """The function as written (bound to its layer, if any)."""
        if self._layer is not None:
            return functools.partial(self._function, self._layer)
        return self._function

    @property
    def program_cache(self):
        return self._cache

    def _call_eagerly(self, args, kwargs):
        if self._layer is not None:
            return self._function(self._layer, *args, **kwargs)
        return self._function(*args, **kwargs)

    # -- calling -------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        state = _state
        if (self._fallback is not None or state.static_program is not None
                or state.amp is not None or not config.is_enabled()):
            # Unconvertible, off, inside another trace or static program (whose program
            # records the ops), or under auto_cast (whose casts a program does not make).
            return self._call_eagerly(args, kwargs)
        if not kwargs and all(isinstance(a, Tensor) for a in args):
            structure, tensors = len(args), args  # the common case, keyed cheaply
        else:
            structure, tensors = tensor_args(args, kwargs)
        key = self._key(structure, tensors)
        concrete = self._cache._programs.get(key)
        if concrete is None or state.grad_on and concrete.stale():
            if type(structure) is int:
                structure = tensor_args(args, kwargs)[0]
            concrete = self._trace(key, structure, tensors)
            if concrete is None:
                return self._call_eagerly(args, kwargs)
        return concrete(tensors)

    def _modes(self):
        if self._layer is None:
            return ()
        if self._modal is None:
            self._modal = [self._layer] + list(self._layer.sublayers())
        return tuple(map(_training, self._modal))

    def _key(self, structure, tensors):
        specs = self._specs
        if specs is None:
            sig = tuple([(t._data.shape, t._data.dtype, t._sg) for t in tensors])
        else:
            sig = tuple([(_check_spec(i, t, specs[i]) if i < len(specs)
                          else t._data.shape, t._data.dtype, t._sg)
                         for i, t in enumerate(tensors)])
        return structure, sig, self._modes(), self._guards.key()

    def _static_form(self):
        if self._converted is None:
            self._converted = config.convert(self._function)
        return self._converted

    def _trace(self, key, structure, leaves):
        specs = self._specs or ()
        args = []
        for i, ((shape, dtype, sg), leaf) in enumerate(zip(key[1], leaves)):
            name = leaf.name if isinstance(leaf, Arg) else None
            if name is None and i < len(specs):
                name = specs[i].name
            args.append(Arg(shape, dtype, sg, name))
        self._modal = None
        name = getattr(self._function, "__qualname__", repr(self._function))
        try:
            function = self._static_form()
            if self._layer is not None:
                function = functools.partial(function, self._layer)
            watched = self._watched()
            versions = [t._version[0] for t in watched]
            concrete = trace(self._checked(function), structure, args)
        except (SideEffect, *config.unsupported_errors()) as exc:
            self._fallback = str(exc)
            config.log(1, f"to_static: {name} falls back to eager: {exc}")
            warnings.warn(f"to_static: {name} runs eagerly: {exc}", UserWarning,
                          stacklevel=3)
            return None
        _refuse_training_step(name, concrete, watched, versions)
        config.log(1, f"to_static: traced {name} for inputs "
                      f"{[(list(a.shape), a.dtype.name) for a in args]}")
        config.log(2, str(concrete.main_program))
        self._cache._programs[key] = self._cache.last = concrete
        return concrete

    def _checked(self, function):
        """`function`, raising SideEffect when a call changes Python state (guards.py)."""
        guards = self._guards

        def checked(*args, **kwargs):
            before = guards.watch(args, kwargs)
            result = function(*args, **kwargs)
            try:
                guards.check(before, args, kwargs)
            except SideEffect:
                guards.undo(before)  # the eager call that follows starts where this one did
                raise
            return result

        return checked

    def _watched(self):
        """Tensors whose in-place change while tracing would mean a training step inside."""
        if self._layer is None:
            return []
        return list(self._layer.parameters()) + list(self._layer.buffers())

    # -- Paddle's StaticFunction API -----------------------------------------------------------
    @property
    def concrete_program(self):
        """The traced program: the one for the input_spec, else the last traced."""
        if self._cache.last is not None:
            return self._cache.last
        if self._specs is None:
            raise ValueError("to_static: no program yet; call the function once or give "
                             "input_spec")
        return self.get_concrete_program(*self._input_spec)[0]

    def get_concrete_program(self, *args, **kwargs):
        """(ConcreteProgram, its compiled op) for these arguments; InputSpecs may stand
        for tensors (their None/-1 dims stay free)."""
        leaves = []
        structure = flatten((tuple(args), dict(kwargs)), leaves,
                            lambda v: isinstance(v, (Tensor, InputSpec)))
        sig = []
        for i, v in enumerate(leaves):
            if isinstance(v, InputSpec):
                sig.append((v.shape, v.dtype.np_dtype, True))
                leaves[i] = Arg(v.shape, v.dtype.np_dtype, True, v.name)
            else:
                sig.append((tuple(v._data.shape), v._data.dtype, v._sg))
        key = (structure, tuple(sig), self._modes())
        concrete = self._cache._programs.get(key)
        if concrete is None:
            concrete = self._trace(key, structure, leaves)
            if concrete is None:
                raise ValueError(f"to_static: this function has no static form: "
                                 f"{self._fallback}")
        return concrete, concrete.compiled

    @property
    def main_program(self):
        return self.concrete_program.main_program

    @property
    def inputs(self):
        return self.concrete_program.inputs

    @property
    def outputs(self):
        return self.concrete_program.outputs

    @property
    def code(self):
        """The source of the function as converted (as written where not converted)."""
        try:
            return inspect.getsource(self._static_form())
        except (OSError, TypeError):
            return inspect.getsource(self._function)

    def rollback(self):
        """Undo to_static: a layer gets its own forward back; returns the plain function."""
        if self._layer is not None:
            self._layer.__dict__.pop("forward", None)
            return self._layer.forward
        return self._function

    def __repr__(self):
        return f"<StaticFunction {getattr(self._function, '__qualname__', '?')}>"


def _refuse_training_step(name, concrete, watched, versions):
    """Optimizer calls are recorded into the program (dygraph.jit.train_step); a parameter
    changed in place while tracing would change once, not at each run: refuse that."""
    if any(t._version[0] != v for t, v in zip(watched, versions)):
        raise RuntimeError(
            f"to_static: {name} updates a parameter or buffer in place while tracing "
            "(set_value, an in-place op), which would happen once instead of at each call; "
            "update it through an optimizer (opt.step() is made at each call) or outside "
            "the converted function")


def to_static(function=None, input_spec=None, build_strategy=None, backend=None,
              full_graph=False, **kwargs):
    """Run `function` (a function, a Layer, or a Layer's forward) as a static program; as a
    decorator, with or without arguments. A Layer gets a static forward and is returned.
    `build_strategy`, `backend` and `full_graph` are accepted for compatibility: there is
    one way to run a program (the Executor's, on NumPy arrays), always the whole function.

    Example:
        >>> import dygraph
        >>> @to_static
        ... def f(x):
        ...     return x * 2 + 1
        >>> f(dygraph.ones([2])).tolist()
        [3.0, 3.0]
    """
    from dygraph.nn import Layer

    def decorate(fn):
        options = (build_strategy, backend, full_graph)
        if isinstance(fn, Layer):
            forward = type(fn).forward
            if isinstance(forward, StaticFunction):
                forward = forward._function
            fn.__dict__["forward"] = StaticFunction(forward, input_spec, fn, *options)
            return fn
        if isinstance(fn, StaticFunction):
            return fn
        if inspect.ismethod(fn) and isinstance(fn.__self__, Layer):
            return StaticFunction(fn.__func__, input_spec, fn.__self__, *options)
        if not callable(fn):
            raise TypeError(f"to_static: expected a function or a Layer, got "
                            f"{type(fn).__name__}")
        return StaticFunction(fn, input_spec, None, *options)

    return decorate if function is None else decorate(function)
