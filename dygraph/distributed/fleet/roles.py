"""Roles of a fleet job: Role, and the role makers that describe this process's place in
it. DyGraph runs collective (data-parallel) jobs, so every process is a worker; the
parameter-server roles (servers, heter workers, coordinators) are refused with
NotImplementedError.

PaddleCloudRoleMaker reads Paddle's launch variables (PADDLE_TRAINER_ID,
PADDLE_TRAINERS_NUM, PADDLE_TRAINER_ENDPOINTS, PADDLE_CURRENT_ENDPOINT), which
`init_parallel_env` fills in under mpirun; UserDefinedRoleMaker takes them as arguments.

Example:
    >>> role = PaddleCloudRoleMaker(is_collective=True)
    >>> role._worker_index(), role._worker_num(), role._is_first_worker()
    (0, 1, True)
"""

import os

from dygraph.distributed.parallel_env import env_rank, env_world_size

__all__ = ["Role", "PaddleCloudRoleMaker", "UserDefinedRoleMaker"]


class Role:
    """The roles of a fleet process (DyGraph's are all WORKER).

    Example:
        >>> Role.WORKER, Role.SERVER, Role.COORDINATOR
        (1, 2, 5)
    """

    WORKER = 1
    SERVER = 2
    HETER_WORKER = 3
    ALL = 4
    COORDINATOR = 5


_PS_VARIABLES = ("PADDLE_PSERVERS_IP_PORT_LIST", "PADDLE_PSERVER_ENDPOINTS")


def _refuse_ps(what):
    raise NotImplementedError(
        f"{what}: parameter-server training (servers, heter workers, coordinators) is not "
        f"supported; DyGraph trains collectively: fleet.init(is_collective=True)")


class PaddleCloudRoleMaker:
    """This process's role, from Paddle's launch variables: a worker among
    PADDLE_TRAINERS_NUM (1 when unset). `is_collective=False` is accepted for a job without
    parameter servers; one with them (TRAINING_ROLE=PSERVER, PADDLE_PSERVERS_IP_PORT_LIST)
    raises NotImplementedError.

    Example:
        >>> PaddleCloudRoleMaker(is_collective=True)._get_trainer_endpoints()
        ['127.0.0.1:6170']
    """

    def __init__(self, is_collective=False, **kwargs):
        if os.environ.get("TRAINING_ROLE", "TRAINER") not in ("TRAINER", "WORKER") or any(
                os.environ.get(v) for v in _PS_VARIABLES):
            _refuse_ps(type(self).__name__)
        self._is_collective = bool(is_collective)
        self._kwargs = kwargs
        self._current_id = env_rank()
        self._trainers_num = env_world_size()
        endpoints = os.environ.get("PADDLE_TRAINER_ENDPOINTS", "")
        self._endpoints = [e for e in endpoints.split(",") if e] or ["127.0.0.1:6170"]

    def _worker_index(self):
        return self._current_id

    def _worker_num(self):
        return self._trainers_num

    def _role_id(self):
        return self._current_id

    def _is_worker(self):
        return True

    def _is_server(self):
        return False

    def _is_coordinator(self):
        return False

    def _is_heter_worker(self):
        return False

    def _is_first_worker(self):
        return self._current_id == 0

    def _server_num(self):
        return 0

    def _server_index(self):
        return -1

    def _get_pserver_endpoints(self):
        return []

    def _get_trainer_endpoints(self):
        return list(self._endpoints)

    def _get_trainer_endpoint(self):
        mine = os.environ.get("PADDLE_CURRENT_ENDPOINT")
        if mine:
            return mine
        return self._endpoints[self._current_id] if self._current_id < len(
            self._endpoints) else ""

    def _node_num(self):
        return len({e.rsplit(":", 1)[0] for e in self._endpoints}) or 1

    _get_node_num = _node_num

    def _get_local_rank(self):
        return os.environ.get("PADDLE_RANK_IN_NODE")

    def _get_local_device_ids(self):
        return os.environ.get("PADDLE_LOCAL_DEVICE_IDS")

    def _get_world_device_ids(self):
        return os.environ.get("PADDLE_WORLD_DEVICE_IDS")

    def to_string(self):
        """A one-line description of the role.

        Example:
            >>> print(PaddleCloudRoleMaker(is_collective=True).to_string())
            role: 1, current_id: 0, worker_endpoints: ['127.0.0.1:6170'], server_endpoints: []
        """
        return (f"role: {Role.WORKER}, current_id: {self._current_id}, worker_endpoints: "
                f"{self._endpoints}, server_endpoints: []")


class UserDefinedRoleMaker(PaddleCloudRoleMaker):
    """A role given in code: `current_id` (this worker's index), `worker_endpoints` or
    `worker_num`, and `role` (Role.WORKER). Server endpoints or another role raise
    NotImplementedError; the index must be the rank the job gave this process.

    Example:
        >>> role = UserDefinedRoleMaker(is_collective=True, current_id=0,
        ...                             worker_endpoints=['127.0.0.1:6170'])
        >>> role._worker_index(), role._worker_num()
        (0, 1)
    """

    def __init__(self, is_collective=False, init_gloo=False, **kwargs):
        super().__init__(is_collective=is_collective)
        if kwargs.get("server_endpoints") or kwargs.get("role", Role.WORKER) != Role.WORKER:
            _refuse_ps("UserDefinedRoleMaker")
        endpoints = list(kwargs.get("worker_endpoints") or [])
        self._current_id = int(kwargs.get("current_id", self._current_id))
        self._trainers_num = int(kwargs.get("worker_num", len(endpoints) or
                                            self._trainers_num))
        if endpoints:
            self._endpoints = endpoints
        if not 0 <= self._current_id < self._trainers_num:
            raise ValueError(f"UserDefinedRoleMaker: current_id={self._current_id} is not "
                             f"one of the {self._trainers_num} workers")
