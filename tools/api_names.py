"""Record which PaddlePaddle public names DyGraph has, for tests/api/test_api_names.py.

Run with paddlepaddle installed (it is only needed here, never by the tests):

    python tools/api_names.py            # rewrite tests/data/api_names.json
    python tools/api_names.py --missing  # also list the names we lack, per namespace

The namespaces and the exclusions (vendor devices, fused GPU-only kernels, fp8,
auto-parallel, legacy typed tensors) follow ../shared/tools/api_coverage.py, so the counts
agree with it. The JSON keeps, per namespace, the Paddle names we have and how many Paddle
has; the test then checks that every recorded name still resolves, without Paddle.
"""

import importlib
import inspect
import json
import pathlib
import re
import sys
import warnings

NAMESPACES = ["", "nn", "nn.functional", "linalg", "optimizer", "optimizer.lr", "io",
              "vision.transforms", "vision.models", "metric", "jit", "static", "distributed",
              "amp", "autograd", "fft", "signal"]
EXCLUDE = re.compile(
    r"(?i)(ipu|xpu|flash_?att|flashmask|moe_|fp8|float8|fused|shard|mesh|placement|^partial$|"
    r"^replicate$|dtensor|reshard|parallelize|to_distributed|distmodel|distattr|^strategy$|"
    r"(colwise|rowwise|conv|context|sequence)parallel|prepare(context|layer)|splitpoint|"
    r"localLayer|local_map|entry$|inmemorydataset|queuedataset|"
    r"^(bfloat16|bool|byte|char|double|float|half|int|long|short)tensor$|pstring|raw$|"
    r"cuda_rng|gloo_|nccl|compat|signal_handler|mmapstorage|top_p_sampling|sparse|"
    r"selected_rows|coalesce|crows|^cols$|^indices$|^values$|^nnz$|to_dense|dense_dim|"
    r"is_dist|num_shard|get_map_tensor|set_vocab|set_string_list|process_mesh|"
    r"reconstruct_from_)")
OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "api_names.json"


def public(obj):
    names = getattr(obj, "__all__", None) or [n for n in dir(obj) if not n.startswith("_")]
    out = set()
    for name in names:
        if name.startswith("_") or EXCLUDE.search(name):
            continue
        try:
            value = getattr(obj, name)
        except Exception:  # noqa: BLE001 - a lazy attribute that fails counts as absent
            continue
        if not inspect.ismodule(value):
            out.add(name)
    return out


def resolve(root, path):
    obj = root
    for part in path.split(".") if path else []:
        try:
            obj = getattr(obj, part)
        except AttributeError:
            try:
                return importlib.import_module(f"{root.__name__}.{path}")
            except ImportError:
                return None
    return obj


def main():
    warnings.filterwarnings("ignore")
    import paddle

    import dygraph

    record, lines = {}, []
    total_have = total_all = 0
    spaces = [(ns, resolve(paddle, ns), resolve(dygraph, ns)) for ns in NAMESPACES]
    for ns, theirs, ours in spaces:
        if theirs is None:
            continue
        want = public(theirs)
        have = sorted(n for n in want if ours is not None and hasattr(ours, n))
        record[ns or "paddle"] = {"paddle_count": len(want), "have": have}
        lines.append((ns or "(top)", len(have), len(want), sorted(want - set(have))))
    want = {n for n in dir(paddle.Tensor) if not n.startswith("_") and not EXCLUDE.search(n)}
    have = sorted(n for n in want if hasattr(dygraph.Tensor, n))
    record["Tensor"] = {"paddle_count": len(want), "have": have}
    lines.append(("Tensor methods", len(have), len(want), sorted(want - set(have))))
    for name, n_have, n_all, missing in lines:
        total_have += n_have
        total_all += n_all
        print(f"{name:22s} {n_have:4d}/{n_all:4d}  {100 * n_have / max(1, n_all):5.1f}%")
        if "--missing" in sys.argv and missing:
            print("   missing:", " ".join(missing))
    print(f"total {total_have}/{total_all} = {100 * total_have / total_all:.1f}%")
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
