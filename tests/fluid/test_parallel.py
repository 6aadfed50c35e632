"""parallel.Env, prepare_context, DataParallel for one process, and the distributed batch
reader's sharding (several processes: tests/distributed/ and seed 001's example)."""

import numpy as np
import pytest

import dygraph
import dygraph.fluid as fluid

P = fluid.dygraph.parallel
LAUNCH_ENV = {"PADDLE_TRAINERS_NUM": "4", "PADDLE_TRAINER_ID": "2",
              "FLAGS_selected_gpus": "2",
              "PADDLE_TRAINER_ENDPOINTS": "127.0.0.1:6170,127.0.0.1:6171,127.0.0.1:6172,"
                                          "127.0.0.1:6173",
              "PADDLE_CURRENT_ENDPOINT": "127.0.0.1:6172"}


def set_env(monkeypatch, values):
    for key in LAUNCH_ENV:
        monkeypatch.delenv(key, raising=False)
    for key, value in values.items():
        monkeypatch.setenv(key, value)


def test_env_defaults_for_one_process(monkeypatch):
    set_env(monkeypatch, {})
    env = P.Env()
    assert (env.nranks, env.local_rank, env.dev_id) == (1, 0, 0)
    assert env.current_endpoint == "" and env.trainer_endpoints == []
    assert fluid.dygraph.ParallelEnv is P.Env


def test_env_from_the_launcher(monkeypatch):
    set_env(monkeypatch, LAUNCH_ENV)
    monkeypatch.setenv("DYGRAPH_DIST_TIMEOUT", "1")  # the other three trainers never start
    if dygraph.distributed.is_initialized():  # a job of 1 another test may have started
        dygraph.distributed.destroy_process_group()
    env = P.Env()
    assert (env.nranks, env.local_rank, env.dev_id) == (4, 2, 2)
    assert env.current_endpoint == "127.0.0.1:6172"
    assert len(env.trainer_endpoints) == 4
    with pytest.raises(RuntimeError, match="PADDLE_TRAINERS_NUM=4 but this process was not "
                       "started by mpirun"):
        P.prepare_context()


def test_data_parallel_with_one_process_is_the_model(monkeypatch):
    set_env(monkeypatch, {})
    with fluid.dygraph.guard():
        strategy = P.prepare_context()
        inner = fluid.dygraph.Linear(3, 2)
        model = P.DataParallel(inner, strategy)
        x = fluid.dygraph.to_variable(np.ones([4, 3], np.float32))
        np.testing.assert_array_equal(model(x).numpy(), inner(x).numpy())
        loss = fluid.layers.mean(model(x))
        assert model.scale_loss(loss) is loss
        loss.backward()
        grad = inner.weight.gradient().copy()
        model.apply_collective_grads()
        np.testing.assert_array_equal(inner.weight.gradient(), grad)
        assert list(model.state_dict()) == ["weight", "bias"]
        assert model.parameters() == inner.parameters()
        model.clear_gradients()
        assert not inner.weight.gradient().any()
    with pytest.raises(ValueError, match="nranks=2 but the job has 1 processes"):
        P.DataParallel(inner, P.ParallelStrategy(nranks=2))


def batches():
    return iter([[i] for i in range(7)])


def test_distributed_batch_reader_shards_by_trainer(monkeypatch, capsys):
    reader = fluid.contrib.reader.distributed_batch_reader
    set_env(monkeypatch, {})
    assert list(reader(batches)()) == [[i] for i in range(7)]
    shards = []
    for trainer in range(3):
        set_env(monkeypatch, {"PADDLE_TRAINERS_NUM": "3", "PADDLE_TRAINER_ID": str(trainer)})
        shards.append(list(reader(batches)()))
    # groups of 3 consecutive batches, one each; the incomplete last group is dropped
    assert shards == [[[0], [3]], [[1], [4]], [[2], [5]]]
    assert capsys.readouterr().out.splitlines() == [
        f"start data reader (trainers_num: 3, trainer_id: {t})" for t in range(3)]
