"""Which public names the differential test covers, per namespace, and how each is treated.

Function namespaces are modules of the framework (``""`` is the top level); ``Tensor``
holds the methods. Names that change process state (static mode, the default dtype,
the random seed), touch files or wrap other code are skipped; names that draw random
numbers are compared by dtype and shape only.
"""

import inspect
import re

# namespace label -> attribute path under the framework module
FUNCTION_NAMESPACES = {"paddle": "", "nn.functional": "nn.functional", "linalg": "linalg",
                       "fft": "fft"}

# Names whose call changes the process, reads files or takes code rather than tensors.
SKIP = frozenset("""
enable_static disable_static set_default_dtype get_default_dtype set_printoptions seed
set_rng_state get_rng_state set_cuda_rng_state get_cuda_rng_state save load batch summary
flops set_grad_enabled is_grad_enabled enable_grad no_grad grad disable_signal_handler
set_flags get_flags in_dynamic_mode create_parameter increment from_dlpack to_dlpack
check_shape iinfo finfo tolist shape set_device get_device to_tensor as_tensor from_numpy
""".split())
RANDOM = re.compile(r"rand|normal|uniform|bernoulli|multinomial|poisson|dropout|shuffle|"
                    r"binomial|standard_gamma|cauchy_|geometric_|exponential_|gumbel|rrelu|"
                    r"sample|empty|lowrank")


def resolve(module, path):
    """Return the attribute at a dotted ``path`` under ``module`` (the module for ``""``).

    >>> import math
    >>> resolve(math, "") is math
    True
    """
    obj = module
    for part in path.split(".") if path else []:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def public_functions(namespace):
    """The sorted public function names of a namespace module that the test covers.

    >>> import math
    >>> "sqrt" in public_functions(math)
    True
    """
    names = getattr(namespace, "__all__", None) or dir(namespace)
    out = []
    for name in names:
        value = getattr(namespace, name, None)
        if name.startswith("_") or name in SKIP or inspect.isclass(value):
            continue
        if inspect.isfunction(value) or inspect.isbuiltin(value):
            out.append(name)
    return sorted(set(out))


def is_random(name):
    """Whether ``name`` draws random numbers (its values are not compared).

    >>> is_random("randn"), is_random("add")
    (True, False)
    """
    return bool(RANDOM.search(name))


def lookup(namespace, name, fw):
    """The function ``name`` of a function namespace in framework ``fw`` (None if absent).

    >>> import dygraph
    >>> lookup("linalg", "inv", dygraph) is dygraph.linalg.inv
    True
    """
    module = resolve(fw, FUNCTION_NAMESPACES.get(namespace, ""))
    return getattr(module, name, None) if module is not None else None
