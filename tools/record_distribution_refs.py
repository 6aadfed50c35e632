"""Record Paddle 3.3's results for the paddle.distribution cases into
tests/data/distribution_refs.json.

The cases (tests/distribution/cases.py) build distributions and transforms from fixed
parameters and call their methods; tests/distribution/test_paddle_parity.py replays them on
DyGraph without Paddle and compares values, dtypes, shapes and exception types (random
draws: shapes and dtypes only). Run it with a Python that has paddlepaddle (DyGraph is not
needed):

    /tmp/paddle-venv/bin/python tools/record_distribution_refs.py
"""

import json
import pathlib
import sys
import warnings

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import paddle  # noqa: E402 - after the path above

from tests.distribution.cases import CASES, run_case  # noqa: E402

OUT = ROOT / "tests" / "data" / "distribution_refs.json"


def main():
    warnings.filterwarnings("ignore")
    paddle.seed(0)
    refs = {"paddle": paddle.__version__,
            "cases": {case["id"]: run_case(case, paddle) for case in CASES}}
    OUT.write_text(json.dumps(refs, indent=1) + "\n")
    print(f"wrote {OUT}: {len(CASES)} cases")


if __name__ == "__main__":
    main()
