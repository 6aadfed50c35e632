"""paddle.static.accuracy and auc on fixed predictions, in a program and (accuracy)
eagerly. Run by Paddle (tools/record_static_refs.py) and DyGraph (see recorded.py)."""

import numpy as np

from tests.static.recorded import Cases, raises

CASES = Cases()
case = CASES.case

_SCORES = np.array([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2], [0.3, 0.3, 0.4], [0.2, 0.2, 0.6],
                    [0.6, 0.1, 0.3]], "float32")
_LABELS = np.array([[1], [1], [2], [0], [0]], "int64")


@case
def accuracy_top_k(paddle):
    paddle.enable_static()
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        scores = paddle.static.data("scores", [-1, 3], "float32")
        label = paddle.static.data("label", [-1, 1], "int64")
        accs = [paddle.static.accuracy(scores, label, k=k) for k in (1, 2, 3)]
    got = paddle.static.Executor().run(main, feed={"scores": _SCORES, "label": _LABELS},
                                       fetch_list=accs)
    paddle.disable_static()
    eager = paddle.static.accuracy(paddle.to_tensor(_SCORES), paddle.to_tensor(_LABELS), k=2)
    return {"static": got, "shape": list(accs[0].shape), "eager": eager.numpy()}


@case
def auc_of_a_batch(paddle):
    rng = np.random.default_rng(3)
    positive = rng.random(24).astype("float32")
    positive[:2] = [1.0, 0.0]
    labels = (rng.random((24, 1)) > 0.4).astype("int64")
    paddle.enable_static()
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        two = paddle.static.data("two", [-1, 2], "float32")
        one = paddle.static.data("one", [-1, 1], "float32")
        label = paddle.static.data("label", [-1, 1], "int64")
        wide = paddle.static.auc(two, label)
        narrow = paddle.static.auc(one, label, num_thresholds=9)
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        scores = paddle.static.data("scores", [-1, 2], "float32")
        float_label = paddle.static.data("float_label", [-1, 1], "float32")
        bad_label = raises(lambda: paddle.static.auc(scores, float_label))
    exe = paddle.static.Executor()
    feed = {"two": np.stack([1 - positive, positive], 1), "one": positive[:, None],
            "label": labels}
    runs = [exe.run(main, feed=feed, fetch_list=[wide[0], narrow[0], narrow[1], narrow[2]])
            for _ in range(2)]  # each run's statistics start from zero
    return {"runs": runs, "n_results": len(wide), "bad_label": bad_label,
            "shapes": [list(v.shape) for v in narrow]}
