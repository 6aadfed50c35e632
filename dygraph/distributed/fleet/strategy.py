"""DistributedStrategy: the options of a fleet job, with Paddle 3.3's names and defaults.

DyGraph trains with data parallelism over MPI (`DataParallel`), and honours the options
that apply to it: `find_unused_parameters`, `fuse_grad_size_in_MB` and
`last_comm_group_size_MB` (DataParallel's bucket sizes), `sync_batch_norm` (BatchNorm
layers become SyncBatchNorm) and `hybrid_configs['dp_degree']`. Any other option set to a
value other than its default is named in one warning when fleet uses the strategy, as it
does not change what DyGraph runs (static-graph passes, parameter servers, AMP through the
strategy: use paddle.amp.auto_cast and GradScaler instead). Model, pipeline, sharding and
sequence parallel degrees above 1 raise NotImplementedError.

Example:
    >>> s = DistributedStrategy()
    >>> s.fuse_grad_size_in_MB, s.amp_configs['init_loss_scaling']
    (32, 32768.0)
    >>> s.amp_configs = {'init_loss_scaling': 1024}
    >>> s.amp_configs['init_loss_scaling'], s.amp_configs['incr_ratio']
    (1024.0, 2.0)
"""

import copy
import warnings

__all__ = ["DistributedStrategy", "HONOURED"]

# Paddle 3.3's defaults, read from a DistributedStrategy() of Paddle itself (float fields
# are stored as float32 there, hence 0.800000011920929 and the like).
_DEFAULTS = {
    "a_sync": True,
    "a_sync_configs": {
        "k_steps": -1, "max_merge_var_num": 1, "send_queue_size": 16,
        "independent_recv_thread": False, "min_send_grad_num_before_recv": 1,
        "thread_pool_size": 1, "send_wait_times": 1, "runtime_split_send_recv": False,
        "launch_barrier": True, "heter_worker_device_guard": "cpu", "lr_decay_steps": 10,
        "use_ps_gpu": 0, "use_gpu_graph": 0},
    "adam_d2sum": False,
    "adaptive_localsgd": False,
    "adaptive_localsgd_configs": {"init_k_steps": 1, "begin_step": 1},
    "amp": False,
    "amp_configs": {
        "init_loss_scaling": 32768.0, "incr_every_n_steps": 1000,
        "decr_every_n_nan_or_inf": 2, "incr_ratio": 2.0, "decr_ratio": 0.800000011920929,
        "use_dynamic_loss_scaling": True, "custom_white_list": [], "custom_black_list": [],
        "custom_black_varnames": [], "use_pure_fp16": False, "use_fp16_guard": True,
        "use_optimizer_fp16": False, "use_pure_bf16": False},
    "asp": False,
    "auto": False,
    "auto_search": False,
    "conv_workspace_size_limit": 512,
    "cudnn_batchnorm_spatial_persistent": False,
    "cudnn_exhaustive_search": False,
    "dgc": False,
    "dgc_configs": {"rampup_begin_step": 0, "rampup_step": 1, "sparsity": []},
    "elastic": False,
    "find_unused_parameters": False,
    "fleet_desc_configs": {},
    "fp16_allreduce": False,
    "fs_client_param": {},
    "fuse_all_reduce_ops": True,
    "fuse_grad_merge": False,
    "fuse_grad_size_in_MB": 32,
    "fuse_grad_size_in_num": 8,
    "gradient_merge": False,
    "gradient_merge_configs": {"k_steps": 1, "avg": True},
    "gradient_scale_configs": {"scale_strategy": "avg", "scale_gradient": False},
    "heter_ccl_mode": False,
    "hierarchical_allreduce_inter_nranks": 1,
    "hybrid_configs": {
        "dp_degree": -1, "mp_degree": 1, "pp_degree": 1, "sharding_degree": 1,
        "sep_degree": 1, "ep_degree": 1, "moe_sharding_degree": 1, "cp_degree": 1,
        "cp_sharding_degree": 1, "enable_optimizer_timer": False, "split_norm_comm": False,
        **{f"{k}_configs": {} for k in (
            "mp", "pp", "sharding", "dp", "sep", "dp_sep", "pp_tp", "ep", "moe_sharding",
            "default_comm_group", "cp", "cp_sharding", "dp_cp", "cp_mp")}},
    "is_fl_ps_mode": False,
    "is_with_coordinator": False,
    "lamb": False,
    "lamb_configs": {"lamb_weight_decay": 0.009999999776482582,
                     "exclude_from_weight_decay": []},
    "lars": False,
    "lars_configs": {"lars_coeff": 0.0010000000474974513,
                     "lars_weight_decay": 0.0005000000237487257, "epsilon": 0.0,
                     "exclude_from_weight_decay": []},
    "last_comm_group_size_MB": 1.0,
    "localsgd": False,
    "localsgd_configs": {"k_steps": 1, "begin_step": 1},
    "nccl_comm_num": 1,
    "pipeline": False,
    "pipeline_configs": {"micro_batch_size": 1, "accumulate_steps": 1,
                         "schedule_mode": "1F1B", "p2p_cache_shape": True,
                         "enable_partial_send_recv": True},
    "qat": False,
    "qat_configs": {"channel_wise_abs_max": True, "weight_bits": 8, "activation_bits": 8,
                    "not_quant_pattern": [], "algo": ""},
    "recompute": False,
    "recompute_configs": {"checkpoints": [], "enable_offload": False,
                          "checkpoint_shape": [], "enable_tuning": False,
                          "refined_ops_patterns": []},
    "semi_auto": False,
    "sharding": False,
    "sharding_configs": {
        "sharding_segment_strategy": "segment_broadcast_MB", "segment_broadcast_MB": 32.0,
        "segment_anchors": [], "sharding_degree": 8, "mp_degree": 1, "dp_degree": 1,
        "hybrid_dp": False, "gradient_merge_acc_step": 1, "optimize_offload": False,
        "pp_allreduce_in_optimize": False, "pp_degree": 1, "optimize_cast": False,
        "_dp_as_optimizer_sharding": False, "stage": 1, "enable_tuning": False,
        "use_calc_stream": False},
    "sparse_table_configs": {},
    "split_data": True,
    "sync_batch_norm": False,
    "sync_nccl_allreduce": True,
    "tensor_parallel": False,
    "tensor_parallel_configs": {"tensor_parallel_degree": 1, "tensor_init_seed": -1},
    "trainer_desc_configs": {"dump_fields_path": "", "dump_fields": [], "dump_param": [],
                             "stat_var_names": [], "trainer": "", "device_worker": "",
                             "local_sparse": [], "remote_sparse": []},
    "use_hierarchical_allreduce": False,
    "without_graph_optimization": True,
}

# The options DyGraph's data parallelism acts on (hybrid_configs: its dp_degree, and the
# other degrees staying 1).
HONOURED = ("find_unused_parameters", "fuse_grad_size_in_MB", "last_comm_group_size_MB",
            "sync_batch_norm", "hybrid_configs")

_PARALLEL_DEGREES = ("mp_degree", "pp_degree", "sharding_degree", "sep_degree", "ep_degree",
                     "moe_sharding_degree", "cp_degree", "cp_sharding_degree")


class DistributedStrategy:
    """The options of a fleet job (see the module docstring for the ones DyGraph acts on).
    Setting a `*_configs` dict updates the given keys and keeps the others; an unknown
    option or key is an error.

    Example:
        >>> s = DistributedStrategy()
        >>> s.find_unused_parameters = True
        >>> s.hybrid_configs = {'dp_degree': 2}
        >>> s.hybrid_configs['dp_degree'], s.hybrid_configs['mp_degree']
        (2, 1)
    """

    def __init__(self):
        object.__setattr__(self, "_values", copy.deepcopy(_DEFAULTS))

    def __getattr__(self, name):
        values = self.__dict__.get("_values")
        if values is not None and name in values:
            value = values[name]
            return copy.deepcopy(value) if isinstance(value, (dict, list)) else value
        raise AttributeError(f"'DistributedStrategy' object has no attribute {name!r}")

    def __setattr__(self, name, value):
        if name not in _DEFAULTS:
            raise TypeError(f"{name} is not an option of DistributedStrategy; its options "
                            f"are {', '.join(sorted(_DEFAULTS))}")
        default = _DEFAULTS[name]
        if isinstance(default, dict):
            if not isinstance(value, dict):
                raise TypeError(f"DistributedStrategy.{name} takes a dict, got "
                                f"{type(value).__name__}")
            if default:
                unknown = sorted(set(value) - set(default))
                if unknown:
                    raise ValueError(f"DistributedStrategy.{name}: unknown key(s) "
                                     f"{', '.join(unknown)}; the keys are "
                                     f"{', '.join(sorted(default))}")
            merged = self._values[name]
            for key, item in value.items():
                base = default.get(key)
                merged[key] = float(item) if isinstance(base, float) and isinstance(
                    item, int) and not isinstance(item, bool) else copy.deepcopy(item)
            return
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise TypeError(f"DistributedStrategy.{name} takes a bool, got {value!r}")
        elif isinstance(default, (int, float)) and (
                isinstance(value, bool) or not isinstance(value, (int, float))):
            raise TypeError(f"DistributedStrategy.{name} takes a number, got {value!r}")
        self._values[name] = type(default)(value)

    def changed(self):
        """The options whose value differs from Paddle's default, by name.

        Example:
            >>> s = DistributedStrategy(); s.amp = True
            >>> s.changed()
            ['amp']
        """
        return sorted(n for n in _DEFAULTS if self._values[n] != _DEFAULTS[n])

    def warn_unhonoured(self):
        """Warn (once per strategy) naming the changed options DyGraph does not act on.

        Example:
            >>> import warnings
            >>> s = DistributedStrategy(); s.recompute = True
            >>> with warnings.catch_warnings(record=True) as w:
            ...     warnings.simplefilter('always'); s.warn_unhonoured(); s.warn_unhonoured()
            >>> len(w), 'recompute' in str(w[0].message)
            (1, True)
        """
        if self.__dict__.get("_warned"):
            return
        object.__setattr__(self, "_warned", True)
        ignored = [n for n in self.changed() if n not in HONOURED]
        if ignored:
            warnings.warn(
                f"DistributedStrategy: {', '.join(ignored)} changed from Paddle's default, "
                f"but DyGraph's data parallelism does not act on "
                f"{'them' if len(ignored) > 1 else 'it'} (it honours "
                f"{', '.join(HONOURED)})", UserWarning, stacklevel=3)

    def data_parallel_degree(self, world_size):
        """The number of data-parallel ranks: hybrid_configs['dp_degree'] (-1: all of
        `world_size`); NotImplementedError for model, pipeline, sharding or sequence
        parallel degrees above 1.

        Example:
            >>> DistributedStrategy().data_parallel_degree(4)
            4
        """
        hybrid = self._values["hybrid_configs"]
        other = {k: hybrid[k] for k in _PARALLEL_DEGREES if hybrid.get(k, 1) not in (1, -1)}
        if other or self._values["tensor_parallel"] or self._values["pipeline"] or \
                self._values["sharding"]:
            detail = ", ".join(f"{k}={v}" for k, v in other.items()) or "tensor_parallel, " \
                "pipeline or sharding"
            raise NotImplementedError(
                f"fleet: {detail}: DyGraph trains with data parallelism only (no model, "
                f"pipeline, sharding or sequence parallel layers)")
        dp = hybrid["dp_degree"]
        if dp not in (-1, world_size):
            raise ValueError(f"fleet: hybrid_configs['dp_degree']={dp}, but the job has "
                             f"{world_size} processes (data parallelism uses all of them)")
        return world_size

    def __repr__(self):
        changed = {n: self._values[n] for n in self.changed()}
        return f"DistributedStrategy(changed from defaults: {changed})"
