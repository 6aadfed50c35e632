"""Record Paddle 3.3's answers for paddle.utils.require_version and the top-level
paddle.tolist into tests/data/utils_refs.json.

tests/utils/test_require_version.py and tests/tensor/test_tolist.py replay them on DyGraph
without Paddle. require_version compares against the installed Paddle's version, which is
recorded too (DyGraph compares against the Paddle API version it implements). Run it with a
Python that has paddlepaddle:

    /tmp/paddle-venv/bin/python tools/record_utils_refs.py
"""

import json
import pathlib
import warnings

import paddle

warnings.filterwarnings("ignore")
OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "utils_refs.json"

VERSIONS = [["2.0.0"], ["0.0.0"], ["3.3.0"], ["9.0"], ["2.0.0", "3.0.0"], ["2.0.0", "2.1"],
            ["1.2"], ["1"], ["3.3"], ["3.3.0.0"], ["3.3.0.1"], ["a.b"], [1], ["2.0.0", 3],
            ["3.0.0", "2.0.0"], ["0.0.0", None], [""], ["3.3.0rc0"], ["3.3.1"], ["3.3.2"],
            ["3.2.99"], ["3"], ["1.0.0.0.0"], ["1.2.3-beta"], ["3.3.1", "3.3.1"],
            ["3.3.1", "3.3.0"], ["2.6", "3.3"], ["2.6", "3.4"], ["3.3.1.1"], ["2.0", "x"]]
TOLIST = [([[1, 2], [3, 4]], "int64"), ([1.5, -2.25], "float32"), (3.5, "float64"),
          ([True, False], "bool"), ([[0.5]], "float16"), ([], "float32"), (7, "int32")]


def outcome(call):
    try:
        value = call()
    except BaseException as exc:  # the exception's type and text are what is recorded
        return {"raises": type(exc).__name__, "message": str(exc)}
    return {"returns": value}


def main():
    cases = [{"args": args, **outcome(lambda a=args: paddle.utils.require_version(*a))}
             for args in VERSIONS]
    tolist = [{"data": data, "dtype": dtype,
               **outcome(lambda d=data, t=dtype: paddle.tolist(paddle.to_tensor(d, dtype=t)))}
              for data, dtype in TOLIST]
    tolist.append({"data": [1, 2], "dtype": None, "of_list": True,
                   **outcome(lambda: paddle.tolist([1, 2]))})
    refs = {"paddle": paddle.__version__, "require_version": cases, "tolist": tolist}
    OUT.write_text(json.dumps(refs, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
