"""Layer: the base class of every model part. It owns parameters, buffers and sublayers.

Assigning a Parameter, a Layer or a Tensor to an attribute registers it (a plain Tensor
becomes a non-persistable buffer, as in Paddle); `register_buffer` adds persistable
buffers. They live in `_parameters`, `_sub_layers` and `_buffers` (MemberDicts that also
mirror them into the instance __dict__, so reading `self.weight` costs a plain attribute
read).

Example:
    >>> import dygraph
    >>> from dygraph.nn.initializer import Constant
    >>> class Scale(dygraph.nn.Layer):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.w = self.create_parameter([1], default_initializer=Constant(2.0))
    ...     def forward(self, x):
    ...         return x * self.w
    >>> Scale()(dygraph.to_tensor([3.0])).numpy()
    array([6.], dtype=float32)
"""

import collections
import re

from dygraph.framework import dtype as _dt
from dygraph.framework.parameter import Parameter, unique_name
from dygraph.framework.step_calls import made_at_each_run
from dygraph.nn.layer.layer_members import LayerTreeMixin, MemberDict
from dygraph.nn.layer.layer_state import LayerStateMixin
from dygraph.nn.param_attr import make_parameter
from dygraph.tensor.tensor import Tensor

__all__ = ["Layer"]

_CASE_BREAK = re.compile(r"(?<=.)(?=[A-Z][a-z])|(?<=[a-z])(?=[A-Z])")
# Full names of every Layer made so far: a name_scope equal to one of them is a parent's
# full_name(), so the child's name nests under it ('mnist_0/simple_img_conv_pool_0').
_FULL_NAMES = set()
_STORES = ("_parameters", "_sub_layers", "_buffers")


def _snake_case(name):
    """'SimpleImgConvPool' -> 'simple_img_conv_pool', 'Conv2D' -> 'conv2d', 'MNIST' -> 'mnist'."""
    return _CASE_BREAK.sub("_", name).lower()


def _indent(text, spaces):
    lines = text.split("\n")
    return "\n".join([lines[0]] + [" " * spaces + line for line in lines[1:]])


class HookRemoveHelper:
    """Handle returned by register_forward_pre_hook / register_forward_post_hook.

    Example:
        >>> import dygraph
        >>> handle = dygraph.nn.Layer().register_forward_pre_hook(lambda layer, x: None)
        >>> handle.remove()
    """

    _next_id = [0]

    def __init__(self, hooks):
        self._hooks = hooks
        self._hook_id = HookRemoveHelper._next_id[0]
        HookRemoveHelper._next_id[0] += 1

    def remove(self):
        """Unregister the hook (a second call does nothing)."""
        self._hooks.pop(self._hook_id, None)


class _HookOptions:
    """A forward hook registered with with_kwargs or always_call."""

    def __init__(self, fn, with_kwargs=False, always_call=False):
        self.fn, self.with_kwargs, self.always_call = fn, with_kwargs, always_call

    def call_after(self, layer, inputs, kwargs, outputs):
        if self.with_kwargs:
            return self.fn(layer, inputs, kwargs, outputs)
        return self.fn(layer, inputs, outputs)


class Layer(LayerTreeMixin, LayerStateMixin):
    """Base class of layers and models: subclass it, create parameters and sublayers in
    `__init__`, and compute in `forward`; calling the layer runs hooks and `forward`.

    `name_scope` prefixes parameter names (default: the class name in snake_case), so a
    Linear's weight is 'linear_0.w_0'. A name_scope equal to another layer's full_name()
    (the 1.x idiom `Child(self.full_name())`) nests: 'mnist_0/simple_img_conv_pool_0'.
    `dtype` is the default dtype of parameters made by create_parameter.

    Example:
        >>> import dygraph
        >>> Layer('mnist').full_name().startswith('mnist_')
        True
    """

    def __init__(self, name_scope=None, dtype="float32"):
        scope = _snake_case(type(self).__name__)
        if name_scope is not None:
            name_scope = str(name_scope)
            scope = f"{name_scope}/{scope}" if name_scope in _FULL_NAMES else name_scope
        full_name = unique_name(scope)
        _FULL_NAMES.add(full_name)
        if dtype is None:
            dtype = _dt.get_default_dtype()
        # Written to __dict__ directly: __setattr__ needs these stores to exist already.
        d = self.__dict__
        d.update(training=True, _full_name=full_name, _dtype=_dt.convert_dtype(dtype).name,
                 _built=False, _non_persistable_buffer_names_set=set(), _loaddict_holder={},
                 _forward_pre_hooks=collections.OrderedDict(),
                 _forward_post_hooks=collections.OrderedDict())
        for store in _STORES:
            d[store] = MemberDict(d)

    # -- calling ---------------------------------------------------------------------------
    def __call__(self, *inputs, **kwargs):
        if self._forward_pre_hooks:
            inputs, kwargs = self._run_pre_hooks(inputs, kwargs)
        if not self._built:
            self._run_build_once(inputs, kwargs)
        if not self._forward_post_hooks:
            return self.forward(*inputs, **kwargs)
        try:
            outputs = self.forward(*inputs, **kwargs)
        except BaseException:
            for hook in list(self._forward_post_hooks.values()):
                if getattr(hook, "always_call", False):
                    hook.call_after(self, inputs, kwargs, None)
            raise
        for hook in list(self._forward_post_hooks.values()):
            result = (hook.call_after(self, inputs, kwargs, outputs)
                      if isinstance(hook, _HookOptions) else hook(self, inputs, outputs))
            if result is not None:
                outputs = result
        return outputs

    def _run_pre_hooks(self, inputs, kwargs):
        for hook in list(self._forward_pre_hooks.values()):
            if isinstance(hook, _HookOptions) and hook.with_kwargs:
                result = hook.fn(self, inputs, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise TypeError(f"a forward pre-hook registered with_kwargs=True "
                                        f"must return None or (args, kwargs), got "
                                        f"{type(result).__name__}")
                    inputs, kwargs = result
                    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
                continue
            fn = hook.fn if isinstance(hook, _HookOptions) else hook
            result = fn(self, inputs)
            if result is not None:
                inputs = result if isinstance(result, tuple) else (result,)
        return inputs, kwargs

    def _run_build_once(self, inputs, kwargs):
        # 1.x layers create input-dependent parameters in build_once(*inputs) before the
        # first forward (FC infers its input size); 2.x spells the hook _build_once.
        self._build_once(*inputs, **kwargs)
        build_once = getattr(self, "build_once", None)
        if build_once is not None:
            build_once(*inputs, **kwargs)
        self._built = True

    def _build_once(self, *inputs, **kwargs):
        """Hook run once before the first forward; subclasses may override it."""

    def forward(self, *inputs, **kwargs):
        """The computation; every subclass defines it."""
        raise NotImplementedError(f"{type(self).__name__} does not define forward()")

    def backward(self, *inputs):
        """Layers get gradients from autograd; a backward method is an error."""
        raise ValueError("Layer shouldn't implement backward")

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """Call `hook(layer, inputs)` before forward; a non-None result replaces the inputs
        (a single value is wrapped in a tuple). With with_kwargs=True the hook is
        `hook(layer, inputs, kwargs)` and returns None or (inputs, kwargs); prepend=True
        runs it before the hooks already registered. Returns a handle with remove().

        Example:
            >>> import dygraph
            >>> from dygraph.nn import Sequential
            >>> net = Sequential()
            >>> h = net.register_forward_pre_hook(lambda layer, inp: inp[0] * 2)
            >>> net(dygraph.to_tensor([1.0])).numpy()
            array([2.], dtype=float32)
        """
        return self._add_hook(self._forward_pre_hooks, hook, prepend,
                              _HookOptions(hook, with_kwargs) if with_kwargs else hook)

    @staticmethod
    def _add_hook(hooks, hook, prepend, stored):
        if not callable(hook):
            raise TypeError(f"a forward hook must be callable, got {type(hook).__name__}")
        handle = HookRemoveHelper(hooks)
        hooks[handle._hook_id] = stored
        if prepend:
            hooks.move_to_end(handle._hook_id, last=False)
        return handle

    def register_forward_post_hook(self, hook, *, prepend=False, with_kwargs=False,
                                   always_call=False):
        """Call `hook(layer, inputs, outputs)` after forward; a non-None result replaces
        the outputs. With with_kwargs=True the hook is `hook(layer, inputs, kwargs,
        outputs)`; prepend=True runs it first; always_call=True also runs it (with outputs
        None) when forward raises. Returns a handle with remove().

        Example:
            >>> import dygraph
            >>> from dygraph.nn import Sequential
            >>> net = Sequential()
            >>> h = net.register_forward_post_hook(lambda layer, inp, out: out + 1)
            >>> net(dygraph.to_tensor([1.0])).numpy()
            array([2.], dtype=float32)
        """
        stored = (_HookOptions(hook, with_kwargs, always_call)
                  if with_kwargs or always_call else hook)
        return self._add_hook(self._forward_post_hooks, hook, prepend, stored)

    # -- modes and names -------------------------------------------------------------------
    def train(self):
        """Put this layer and all sublayers in training mode (Dropout, BatchNorm care).

        Example:
            >>> Layer().train().training
            True
        """
        for layer in self.sublayers(include_self=True):
            layer.training = True
        return self

    def eval(self):
        """Put this layer and all sublayers in evaluation mode.

        Example:
            >>> Layer().eval().training
            False
        """
        for layer in self.sublayers(include_self=True):
            layer.training = False
        return self

    def full_name(self):
        """The unique name of this layer, e.g. 'linear_0'.

        Example:
            >>> Layer('demo_net').full_name().startswith('demo_net_')
            True
        """
        return self._full_name

    def extra_repr(self):
        """Extra text for repr (layer settings); subclasses override it."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        sub_lines = [f"({name}): {_indent(repr(layer), 2)}"
                     for name, layer in self._sub_layers.items()]
        text = type(self).__name__ + "("
        if len(extra_lines) == 1:
            text += extra_lines[0]
        elif extra_lines:
            text += "\n  " + "\n  ".join(extra_lines) + "\n"
        if sub_lines:
            text += "\n  " + "\n  ".join(sub_lines) + "\n"
        return text + ")"

    # -- creation --------------------------------------------------------------------------
    def create_parameter(self, shape, attr=None, dtype=None, is_bias=False,
                         default_initializer=None):
        """Make a Parameter named after this layer ('linear_0.w_0', 'linear_0.b_0').

        `attr` is a ParamAttr, a name, an Initializer, None (defaults) or False (no
        parameter: returns None). Without an initializer weights get XavierUniform and
        biases Constant(0). The parameter is returned, not registered: assign it.

        Example:
            >>> layer = Layer('doc_layer')
            >>> w = layer.create_parameter([2, 3])
            >>> w.name.startswith(layer.full_name() + '.w_'), w.dtype
            (True, dygraph.float32)
        """
        if isinstance(attr, str) and attr == "":
            attr = None
        return make_parameter(shape, attr, dtype if dtype is not None else self._dtype,
                              is_bias, default_initializer, prefix=self._full_name)

    def create_tensor(self, name=None, persistable=None, dtype=None):
        """An empty Tensor named after this layer, for values filled in later.

        Example:
            >>> Layer('doc_t').create_tensor('tmp').name.endswith('.tmp')
            True
        """
        np_dtype = _dt.convert_dtype(dtype if dtype is not None else self._dtype).np_dtype
        from dygraph.ops.creation.constructors import zeros

        tensor = zeros([0], np_dtype)
        tensor.name = (f"{self._full_name}.{name}" if name is not None
                       else unique_name(f"{self._full_name}._generated_var"))
        tensor.persistable = bool(persistable)
        return tensor

    create_variable = create_tensor

    # -- registration ----------------------------------------------------------------------
    def _check_new_name(self, kind, name, store):
        if "_parameters" not in self.__dict__:
            raise RuntimeError(f"{type(self).__name__}: call super().__init__() before "
                               f"adding a {kind}")
        if not isinstance(name, str):
            raise TypeError(f"the name of a {kind} must be a str, got {type(name).__name__}")
        if "." in name:
            raise KeyError(f"the name of a {kind} cannot contain '.', got {name!r}")
        if name == "":
            raise KeyError(f"the name of a {kind} cannot be empty")
        if name not in store and hasattr(self, name):
            raise KeyError(f"attribute {name!r} already exists on {type(self).__name__}")

    def add_parameter(self, name, parameter):
        """Register `parameter` (a Parameter or None) as `self.<name>`; returns it.

        Example:
            >>> layer = Layer()
            >>> w = layer.add_parameter('w', layer.create_parameter([2]))
            >>> [n for n, _ in layer.named_parameters()]
            ['w']
        """
        self._check_new_name("parameter", name, self._parameters)
        if parameter is not None and not isinstance(parameter, Parameter):
            raise TypeError(f"add_parameter: {name!r} must be a Parameter or None, got "
                            f"{type(parameter).__name__}")
        if parameter is not None:
            self._adopt_loaded(name, parameter)
        self._parameters[name] = parameter
        return parameter

    def add_sublayer(self, name, sublayer):
        """Register `sublayer` (a Layer or None) as `self.<name>`; returns it.

        Example:
            >>> parent = Layer()
            >>> child = parent.add_sublayer('child', Layer())
            >>> [n for n, _ in parent.named_children()]
            ['child']
        """
        if sublayer is not None and not isinstance(sublayer, Layer):
            raise TypeError(f"add_sublayer: {name!r} must be a Layer or None, got "
                            f"{type(sublayer).__name__}")
        if not isinstance(name, str):
            raise TypeError(f"the name of a sublayer must be a str, got {type(name).__name__}")
        self._sub_layers[name] = sublayer
        return sublayer

    def register_buffer(self, name, tensor, persistable=True):
        """Register a Tensor that is state but not trained (running statistics, say).
        Persistable buffers go into state_dict.

        Example:
            >>> import dygraph
            >>> layer = Layer()
            >>> layer.register_buffer('mean', dygraph.zeros([2]))
            >>> list(layer.state_dict())
            ['mean']
        """
        self._check_new_name("buffer", name, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"register_buffer: {name!r} must be a Tensor or None, got "
                            f"{type(tensor).__name__}")
        if tensor is not None:
            self._adopt_loaded(name, tensor)
        self._buffers[name] = tensor
        if persistable:
            self._non_persistable_buffer_names_set.discard(name)
        else:
            self._non_persistable_buffer_names_set.add(name)

    def __setattr__(self, name, value):
        d = self.__dict__
        if name in _STORES and d.get(name) is not None:
            self._replace_store(name, value)
            return
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise ValueError("call super().__init__() before assigning parameters")
            self._forget(name, self._buffers, self._sub_layers)
            self._adopt_loaded(name, value)
            params[name] = value
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign {type(value).__name__} to parameter {name!r}: "
                                f"expected a Parameter or None")
            params[name] = None
            return
        layers = d.get("_sub_layers")
        if isinstance(value, Layer):
            if layers is None:
                raise ValueError("call super().__init__() before assigning sublayers")
            self._forget(name, params, self._buffers)
            layers[name] = value
            return
        if layers is not None and name in layers:
            if value is not None:
                raise TypeError(f"cannot assign {type(value).__name__} to sublayer {name!r}: "
                                f"expected a Layer or None")
            layers[name] = None
            return
        buffers = d.get("_buffers")
        if isinstance(value, Tensor):
            if buffers is None:
                raise ValueError("call super().__init__() before assigning tensors")
            self._forget(name, params, layers)
            if name not in buffers:
                # Only register_buffer makes persistable buffers, as in Paddle.
                self._non_persistable_buffer_names_set.add(name)
            buffers[name] = value
            return
        if buffers is not None and name in buffers:
            if value is not None:
                raise TypeError(f"cannot assign {type(value).__name__} to buffer {name!r}: "
                                f"expected a Tensor or None")
            buffers[name] = None
            return
        object.__setattr__(self, name, value)

    def _forget(self, name, *stores):
        for store in stores:
            if name in store:
                del store[name]
        self._non_persistable_buffer_names_set.discard(name)

    def _replace_store(self, name, members):
        # Code that rebuilds a store (`self._sub_layers = OrderedDict(...)`) gets a mirrored
        # one, and the names the old store mirrored leave __dict__.
        old = self.__dict__[name]
        if members is old:
            return
        items = list(members.items())
        old.clear()
        self.__dict__[name] = MemberDict(self.__dict__, items)

    def __delattr__(self, name):
        d = self.__dict__
        for store in _STORES:
            values = d.get(store)
            if values is not None and name in values:
                del values[name]
                self._non_persistable_buffer_names_set.discard(name)
                return
        object.__delattr__(self, name)

    def __setstate__(self, state):
        # Copies and unpickled layers get their own stores mirroring into their own __dict__
        # (a shallow copy would otherwise write into the original's).
        d = self.__dict__
        d.update(state)
        for store in _STORES:
            if d.get(store) is not None:
                d[store] = MemberDict(d, list(d[store].items()))

    @made_at_each_run(drops=lambda self, set_to_zero: () if set_to_zero
                      else self.parameters())
    def clear_gradients(self, set_to_zero=True):
        """Reset the gradients of all trainable parameters: zero them (default) or drop them.

        Example:
            >>> import dygraph
            >>> layer = Layer()
            >>> layer.w = layer.create_parameter([1])
            >>> (layer.w * 2).sum().backward(); layer.clear_gradients()
            >>> layer.w.grad.numpy()
            array([0.], dtype=float32)
        """
        for param in self.parameters():
            if param.trainable:
                param._reset_grad(set_to_zero)

    def _adopt_loaded(self, name, tensor):
        """Give a tensor registered after set_state_dict the value that was loaded for it."""
        holder = self._loaddict_holder
        if not holder:
            return
        key = name if name in holder else tensor._name
        if key in holder:
            self._write_state(tensor, holder.pop(key), key)

