"""Run by the launcher (2 ranks, no --log_dir): each rank prints what the job told it."""

import dygraph.distributed as dist
import dygraph.fluid as fluid


def main():
    env = fluid.dygraph.parallel.Env()
    group = dist.init_parallel_env()
    print(f"rank {env.local_rank} of {env.nranks}: endpoint {env.current_endpoint} device "
          f"{env.dev_id} group {group.rank}/{group.nranks}", flush=True)


if __name__ == "__main__":
    main()
