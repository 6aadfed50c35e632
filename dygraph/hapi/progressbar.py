"""The progress line of `Model.fit`/`evaluate` in Paddle's format.

verbose=1 redraws one bar in place:
    step 2/4 [==============>...............] - loss: 3.0804 - acc: 0.0781 - ETA: 0s - 23ms/step
verbose=2 prints one line per logged step:
    step 2/4 - loss: 2.5877 - acc: 0.0469 - 10ms/step

Example:
    >>> import io
    >>> out = io.StringIO()
    >>> bar = ProgressBar(num=4, verbose=2, file=out)
    >>> bar.update(2, [('loss', 0.5)])
    >>> out.getvalue().split(' - ')[:2]
    ['step 2/4', 'loss: 0.5000']
"""

import sys
import time

import numpy as np

__all__ = ["ProgressBar"]


def _format_value(value):
    if isinstance(value, (list, tuple, np.ndarray)):
        value = np.asarray(value).reshape(-1)
        return " ".join(_format_value(v) for v in value)
    if isinstance(value, (float, np.floating)):
        return f"{value:.4f}" if abs(value) > 1e-3 or value == 0 else f"{value:.4e}"
    return str(value)


class ProgressBar:
    """Step counter with values, time per step and ETA; `num` None for an unknown length."""

    def __init__(self, num=None, width=30, verbose=1, start=True, file=None):
        self.num, self.width, self.verbose = num, width, verbose
        self.file = file if file is not None else sys.stdout
        self._last_width = 0
        self._start = time.time() if start else None

    def start(self):
        """Restart the clock (a new epoch or evaluation)."""
        self._start = time.time()

    def update(self, step, values=None):
        """Show step `step` with `values`, a list of (name, value) pairs."""
        now = time.time()
        per_step = (now - self._start) / step if step and self._start else 0.0
        unit = f"{per_step * 1000:.0f}ms/step" if per_step < 1 else f"{per_step:.0f}s/step"
        parts = [f"{name}: {_format_value(value)}" for name, value in (values or [])]
        total = f"/{self.num}" if self.num else ""
        if self.verbose == 1:
            line = f"step {step}{total}"
            if self.num:
                done = int(self.width * step / self.num)
                bar = "=" * max(done - 1, 0) + (">" if done < self.width else "=")
                line += f" [{bar}{'.' * (self.width - len(bar))}]"
            line += "".join(f" - {p}" for p in parts)
            if self.num and step < self.num:
                line += f" - ETA: {int(per_step * (self.num - step))}s"
            line += f" - {unit}"
            padding = " " * max(self._last_width - len(line), 0)
            self._last_width = len(line)
            end = "\n" if self.num and step >= self.num else ""
            self.file.write(f"\r{line}{padding}{end}")
        else:
            self.file.write(" - ".join([f"step {step}{total}"] + parts + [unit]) + "\n")
        self.file.flush()
