"""dygraph.distributed.fleet in one process: DistributedStrategy's defaults and checks,
the topology, role makers, fleet.util and the data generators. Paddle 3.3's values were
read from Paddle itself."""

import io
import sys
import warnings

import numpy as np
import pytest

import dygraph as paddle
from dygraph.distributed import fleet


def test_strategy_has_paddles_defaults_and_checks_what_is_set():
    s = fleet.DistributedStrategy()
    assert (s.a_sync, s.amp, s.find_unused_parameters, s.fuse_grad_size_in_MB,
            s.last_comm_group_size_MB, s.sync_batch_norm, s.nccl_comm_num) == (
        True, False, False, 32, 1.0, False, 1)
    assert s.gradient_merge_configs == {"k_steps": 1, "avg": True}
    assert s.hybrid_configs["dp_degree"] == -1 and s.hybrid_configs["mp_degree"] == 1
    assert s.amp_configs["decr_ratio"] == pytest.approx(0.8)
    s.amp_configs = {"init_loss_scaling": 1024}
    assert s.amp_configs["init_loss_scaling"] == 1024.0 and s.amp_configs["incr_ratio"] == 2.0
    with pytest.raises(ValueError, match="amp_configs: unknown key.s. bogus"):
        s.amp_configs = {"bogus": 1}
    with pytest.raises(TypeError, match="not_an_option is not an option"):
        s.not_an_option = 1
    with pytest.raises(TypeError, match="takes a bool"):
        s.amp = "yes"
    copy = s.amp_configs
    copy["incr_ratio"] = 9.0  # a copy: the strategy changes only through assignment
    assert s.amp_configs["incr_ratio"] == 2.0


def test_strategy_warns_once_about_options_it_does_not_honour():
    s = fleet.DistributedStrategy()
    s.recompute = True
    s.find_unused_parameters = True  # honoured: not named
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fleet.Fleet().init(is_collective=True, strategy=s)
        fleet.Fleet().distributed_optimizer(
            paddle.optimizer.SGD(parameters=paddle.nn.Linear(1, 1).parameters()), s)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1 and "recompute" in messages[0], messages
    assert "find_unused_parameters" not in messages[0].split("honours")[0]


def test_other_parallelisms_are_refused():
    s = fleet.DistributedStrategy()
    s.hybrid_configs = {"mp_degree": 2}
    with pytest.raises(NotImplementedError, match="mp_degree=2: DyGraph trains with data"):
        fleet.Fleet().init(is_collective=True, strategy=s)
    s = fleet.DistributedStrategy()
    s.hybrid_configs = {"dp_degree": 4}
    with pytest.raises(ValueError, match="dp_degree'.=4, but the job has 1 processes"):
        fleet.Fleet().init(is_collective=True, strategy=s)


def test_distributed_model_applies_the_strategy():
    s = fleet.DistributedStrategy()
    s.sync_batch_norm = True
    s.find_unused_parameters = True
    s.fuse_grad_size_in_MB = 8
    f = fleet.Fleet().init(is_collective=True, strategy=s)
    model = f.distributed_model(paddle.nn.Sequential(paddle.nn.Linear(2, 2),
                                                     paddle.nn.BatchNorm1D(2)))
    assert type(model).__name__ == "DataParallel"
    assert type(model._layers[1]).__name__ == "SyncBatchNorm"
    assert model.find_unused_parameters and model._bucket_sizes == (8, 1.0)
    assert f.get_hybrid_communicate_group().get_parallel_mode() == \
        paddle.distributed.ParallelMode.DATA_PARALLEL


def test_module_level_functions_answer_from_the_job():
    fleet.init(is_collective=True)
    assert (fleet.worker_index(), fleet.worker_num(), fleet.is_first_worker(),
            fleet.is_worker(), fleet.is_server(), fleet.server_num(), fleet.node_num()) == (
        0, 1, True, True, False, 0, 1)
    assert fleet.worker_endpoints() == ["127.0.0.1:6170"]
    assert fleet.worker_endpoints(to_string=True) == "127.0.0.1:6170"
    assert fleet.server_endpoints() == []
    assert fleet.local_rank() is None and fleet.local_device_ids() is None
    np.testing.assert_array_equal(fleet.all_reduce(np.array([1, 2])), [1, 2])
    fleet.barrier_worker()
    assert fleet.Role.WORKER == 1 and fleet.Role.COORDINATOR == 5


def test_role_makers_refuse_parameter_servers(monkeypatch):
    with pytest.raises(NotImplementedError, match="parameter-server training"):
        fleet.UserDefinedRoleMaker(server_endpoints=["127.0.0.1:6000"])
    with pytest.raises(ValueError, match="current_id=3 is not one of the 2 workers"):
        fleet.UserDefinedRoleMaker(current_id=3, worker_num=2)
    with pytest.raises(ValueError, match="the role maker says worker 1 of 2"):
        fleet.Fleet().init(fleet.UserDefinedRoleMaker(
            is_collective=True, current_id=1, worker_endpoints=["a:1", "a:2"]))
    monkeypatch.setenv("TRAINING_ROLE", "PSERVER")
    with pytest.raises(NotImplementedError, match="PaddleCloudRoleMaker: parameter-server"):
        fleet.PaddleCloudRoleMaker()


def test_topology_lays_ranks_out_as_paddle():
    topo = fleet.CommunicateTopology(["data", "pipe", "sharding", "sep", "model"],
                                     [2, 1, 1, 1, 2])
    assert topo.get_rank(data=1, pipe=0, sharding=0, sep=0, model=1) == 3
    assert str(topo.get_coord(3)) == "Coordinate(data=1, pipe=0, sharding=0, sep=0, model=1)"
    assert topo.get_axis_list("data", 0) == [0, 1]
    assert topo.get_comm_list("model") == [[0, 1], [2, 3]]
    assert topo.get_comm_list("data") == [[0, 2], [1, 3]]
    assert topo.get_fused_ranks(["data", "model"]) == [[0, 1, 2, 3]]
    assert topo.get_rank_from_stage(1, pipe=0) == 1 and topo.world_size() == 4
    default = fleet.CommunicateTopology()
    assert default.get_hybrid_group_names() == ["data", "pipe", "sharding", "sep", "context",
                                                "model"]
    with pytest.raises(ValueError, match="no axis 'expert'"):
        topo.get_dim("expert")
    with pytest.raises(ValueError, match="topology has 4 ranks, the job 1"):
        fleet.HybridCommunicateGroup(topo)


def test_util_shards_files_as_paddle():
    assert fleet.util.get_file_shard(["a", "b", "c"]) == ["a", "b", "c"]
    with pytest.raises(TypeError, match="files should be a list"):
        fleet.util.get_file_shard("a")
    with pytest.raises(NotImplementedError, match="comm_world='server' needs parameter"):
        fleet.util.all_reduce([1], comm_world="server")


class _Words(fleet.MultiSlotDataGenerator):
    def generate_sample(self, line):
        def samples():
            words = [int(w) for w in line.split()]
            yield [("words", words), ("label", [words[0] % 2])]
        return samples


def test_data_generators_write_paddles_multislot_format(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("1926 8 17\n3 4\n"))
    _Words().run_from_stdin()
    assert capsys.readouterr().out == "3 1926 8 17 1 0\n2 3 4 1 1\n"
    g = fleet.MultiSlotDataGenerator()
    assert g._gen_str([("x", [1]), ("y", [1.5])]) == "1 1 1 1.5\n"
    assert g._proto_info == [("x", "uint64"), ("y", "float")]
    with pytest.raises(ValueError, match="slot 0 is 'z', but the first sample named it 'x'"):
        g._gen_str([("z", [1]), ("y", [2])])
    with pytest.raises(ValueError, match="slot 'x' is empty"):
        g._gen_str([("x", []), ("y", [2])])
    assert fleet.MultiSlotStringDataGenerator()._gen_str([("w", ["a"])]) == "1 a\n"
