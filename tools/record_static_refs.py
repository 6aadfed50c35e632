"""Record Paddle 3.3's results for the static-program cases of tests/static/programs_*.py
into tests/data/static_<module>.json; tests/static/test_recorded_programs.py replays them
on DyGraph without Paddle. The cases fix every weight and input, so the numbers are
Paddle's own. A module marked LEGACY_IR (builders Paddle 3.3 runs only in its older static
mode) is recorded in a child process with FLAGS_enable_pir_api=0. Run it with a Python
that has paddlepaddle (DyGraph is not needed):

    PYTHONPATH=. /tmp/paddle-venv/bin/python tools/record_static_refs.py [module ...]
"""

import importlib
import json
import os
import pathlib
import subprocess
import sys
import warnings

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.static.recorded import encode, run_case  # noqa: E402

MODULES = ("programs_control_flow", "programs_branches_arrays", "programs_builders",
           "programs_static_api", "programs_metrics", "programs_fluid_layers")


def record(module):
    """{case: encoded results} of one cases module, run by Paddle."""
    import paddle

    results = {}
    for name, fn in module.CASES.items():
        paddle.seed(2024)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results[name] = encode(run_case(fn, paddle))
        print(f"{module.__name__}.{name}: recorded")
    return results


def main(names):
    for module_name in names or MODULES:
        if not (ROOT / "tests" / "static" / f"{module_name}.py").exists():
            continue
        module = importlib.import_module(f"tests.static.{module_name}")
        if getattr(module, "LEGACY_IR", False) and os.environ.get("FLAGS_enable_pir_api") != "0":
            env = dict(os.environ, FLAGS_enable_pir_api="0")
            subprocess.run([sys.executable, __file__, module_name], env=env, check=True)
            continue
        out = ROOT / "tests" / "data" / f"static_{module_name.removeprefix('programs_')}.json"
        out.write_text(json.dumps(record(module), indent=1, sort_keys=True) + "\n")
        print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main(sys.argv[1:])
