"""BuildStrategy and CompiledProgram (Paddle's paddle.static.BuildStrategy,
CompiledProgram, and 1.x's ExecutionStrategy): carriers of graph-building options. DyGraph
plans each program itself (pruning, freeing, the rewrites of dygraph/static/rewrite.py), so
the options change nothing, and a CompiledProgram runs as the program it wraps, with
`with_data_parallel` too (one process holds the one device; data parallelism is
dygraph.distributed's).

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph import static
    >>> dygraph.enable_static()
    >>> main = static.Program()
    >>> with static.program_guard(main, static.Program()):
    ...     x = static.data('x', [None, 2])
    ...     y = x * 3.0
    >>> dygraph.disable_static()
    >>> strategy = BuildStrategy(); strategy.fuse_elewise_add_act_ops = True
    >>> compiled = CompiledProgram(main, build_strategy=strategy).with_data_parallel()
    >>> static.Executor().run(compiled, feed={'x': np.ones((1, 2), np.float32)},
    ...                       fetch_list=[y])
    [array([[3., 3.]], dtype=float32)]
"""

import enum

from dygraph.static.program import Program

__all__ = ["BuildStrategy", "ExecutionStrategy", "CompiledProgram"]


class _Options:
    """Typed options: each keeps the type of its default, and unknown names are refused
    (AttributeError), as Paddle's C++-backed strategies do."""

    _defaults = {}

    def __init__(self):
        for name, value in self._defaults.items():
            object.__setattr__(self, name, value.copy() if hasattr(value, "copy") else value)

    def __setattr__(self, name, value):
        if name not in self._defaults:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute {name!r}")
        default = self._defaults[name]
        kinds = (type(default),) if default is not None else (object,)
        if isinstance(default, bool):
            kinds = (bool,)
        elif isinstance(default, int) and not isinstance(default, enum.Enum):
            kinds = (int,)
        if not isinstance(value, kinds) or (kinds == (int,) and isinstance(value, bool)):
            raise TypeError(f"{type(self).__name__}.{name}: expected {kinds[0].__name__}, "
                            f"got {type(value).__name__}")
        object.__setattr__(self, name, value)

    def __repr__(self):
        changed = {k: getattr(self, k) for k, v in self._defaults.items()
                   if getattr(self, k) != v}
        return f"{type(self).__name__}({changed})"


class BuildStrategy(_Options):
    """How Paddle would build the graph of a program (fusions, in-place reuse, reduction
    across devices): recorded, changing nothing here (see the module docstring).

    Example:
        >>> s = BuildStrategy(); s.enable_inplace, s.reduce_strategy
        (True, <ReduceStrategy.AllReduce: 0>)
    """

    class ReduceStrategy(enum.Enum):
        """How gradients are combined across devices."""

        AllReduce = 0
        Reduce = 1
        _NoReduce = 2

    class GradientScaleStrategy(enum.Enum):
        """How the loss gradient is scaled across devices (1.x)."""

        CoeffNumDevice = 0
        One = 1
        Customized = 2

    _defaults = {
        "allow_cuda_graph_capture": False, "async_mode": False, "bkcl_comm_num": 1,
        "build_cinn_pass": False, "cache_runtime_context": False, "debug_graphviz_path": "",
        "enable_addto": False, "enable_auto_fusion": False,
        "enable_backward_optimizer_op_deps": True, "enable_inplace": True,
        "fuse_adamw": False, "fuse_all_optimizer_ops": False, "fuse_all_reduce_ops": True,
        "fuse_bn_act_ops": False, "fuse_bn_add_act_ops": True, "fuse_broadcast_ops": True,
        "fuse_dot_product_attention": False, "fuse_elewise_add_act_ops": False,
        "fuse_gemm_epilogue": False, "fuse_relu_depthwise_conv": False,
        "fuse_resunit": False, "fused_attention": False, "fused_feedforward": False,
        "gradient_scale_strategy": GradientScaleStrategy.CoeffNumDevice,
        "hierarchical_allreduce_inter_nranks": 0, "memory_optimize": None,
        "mkldnn_enabled_op_types": set(), "nccl_comm_num": 1, "num_trainers": 1,
        "onednn_enabled_op_types": set(), "reduce_strategy": ReduceStrategy.AllReduce,
        "sequential_run": False, "sync_batch_norm": False, "trainer_id": 0,
        "trainers_endpoints": [], "use_hierarchical_allreduce": False,
    }


class ExecutionStrategy(_Options):
    """1.x's executor options (threads, scope cleaning): recorded, changing nothing.

    Example:
        >>> e = ExecutionStrategy(); e.num_threads = 4; e.num_threads
        4
    """

    _defaults = {"num_threads": 0, "num_iteration_per_drop_scope": 100,
                 "num_iteration_per_run": 1, "use_thread_barrier": False,
                 "allow_op_delay": False}


class CompiledProgram:
    """A program with build options; an Executor runs it as the program itself.

    Example:
        >>> CompiledProgram(Program()).with_data_parallel(loss_name='loss')._program
        ... # doctest: +ELLIPSIS
        block 0 {...
    """

    def __init__(self, program_or_graph, build_strategy=None):
        if not isinstance(program_or_graph, Program):
            raise TypeError(f"The type of program_to_graph parameter is wrong, expected "
                            f"Graph or Program, but received {type(program_or_graph)}")
        if build_strategy is not None and not isinstance(build_strategy, BuildStrategy):
            raise TypeError(f"build_strategy must be a BuildStrategy, got "
                            f"{type(build_strategy).__name__}")
        self._program = program_or_graph
        self._build_strategy = build_strategy or BuildStrategy()
        self._exec_strategy = None
        self._loss_name = None
        self._places = None

    def with_data_parallel(self, loss_name=None, build_strategy=None, exec_strategy=None,
                           share_vars_from=None, places=None):
        """1.x: run on several devices (one here); returns self."""
        if build_strategy is not None:
            self._build_strategy = build_strategy
        self._exec_strategy = exec_strategy
        self._loss_name = loss_name
        self._places = places
        return self
