"""A differential test of DyGraph against PaddlePaddle, with Paddle's answers recorded.

The harness generates cases from the signatures of Paddle's public names (dtypes, 0-D,
0-size and broadcast shapes, negative axes, keyword defaults, invalid inputs, gradients,
in-place variants), runs them in Paddle and records the answers under tests/data/parity/.
The test suite replays the recordings against DyGraph without Paddle
(tests/parity/test_recorded_parity.py).

    python -m tools.paddle_diff.record             # run the cases in Paddle, rewrite the data
    python -m tools.paddle_diff.report             # the parity table and every difference

Modules, one concept each: ``names`` (which public names, per namespace), ``values``
(seeded inputs), ``cases`` (cases from a signature), ``execute`` (run one case in a
framework), ``store`` (the recorded files), ``record`` (the Paddle worker and its driver),
``compare`` (answer against answer), ``replay`` (the recorded cases against DyGraph, and
the known differences), ``report`` (the table). Classes: ``classes`` (what class cases
share, and their dispatch), ``layers`` (``nn.Layer``), ``optimizers`` (``optimizer`` and
``optimizer.lr``), ``datasets`` (``io``).
"""
