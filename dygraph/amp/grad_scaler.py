"""GradScaler (dynamic loss scaling) and `decorate` for mixed-precision training.

Example:
    >>> import dygraph
    >>> net = dygraph.nn.Linear(2, 1)
    >>> opt = dygraph.optimizer.SGD(0.1, parameters=net.parameters())
    >>> scaler = GradScaler(init_loss_scaling=1024)
    >>> loss = net(dygraph.ones([4, 2])).mean()
    >>> scaler.scale(loss).backward()
    >>> scaler.minimize(opt, loss); opt.clear_grad()
    >>> scaler.get_loss_scaling()
    1024.0
"""

import numpy as np

from dygraph.autograd.grad_mode import no_grad
from dygraph.backend import get_array_module

__all__ = ["GradScaler", "AmpScaler", "decorate"]


class GradScaler:
    """Scale the loss so low-precision gradients do not underflow, unscale the gradients
    before the update, skip steps whose gradients hold inf or NaN, and adapt the scale:
    times `incr_ratio` after `incr_every_n_steps` good steps, times `decr_ratio` after
    `decr_every_n_nan_or_inf` bad ones (with `use_dynamic_loss_scaling`)."""

    def __init__(self, enable=True, init_loss_scaling=65536.0, incr_ratio=2.0,
                 decr_ratio=0.5, incr_every_n_steps=2000, decr_every_n_nan_or_inf=1,
                 use_dynamic_loss_scaling=True):
        if incr_ratio <= 1.0:
            raise ValueError(f"GradScaler: incr_ratio must be > 1.0, got {incr_ratio}")
        if not 0.0 < decr_ratio < 1.0:
            raise ValueError(f"GradScaler: decr_ratio must be in (0, 1), got {decr_ratio}")
        self._enable = bool(enable)
        self._scale = float(init_loss_scaling)
        self._init_scale = float(init_loss_scaling)
        self._incr_ratio, self._decr_ratio = float(incr_ratio), float(decr_ratio)
        self._incr_every, self._decr_every = int(incr_every_n_steps), int(decr_every_n_nan_or_inf)
        self._dynamic = bool(use_dynamic_loss_scaling)
        self._good_steps = self._bad_steps = 0
        self._found_inf = False
        self._unscaled = set()

    def scale(self, var):
        """The loss times the current scale (unchanged when disabled). Inside jit.to_static
        a function that scales runs eagerly: the scale and the inf checks live here."""
        if self._enable:
            from dygraph.jit.train_step import refuse_in_trace

            refuse_in_trace("GradScaler.scale")
        return var * self._scale if self._enable else var

    @staticmethod
    def _params(optimizer):
        return [p for p in optimizer._parameter_list if p._grad is not None]

    def unscale_(self, optimizer):
        """Multiply `optimizer`'s gradients by 1 / scale, in place, and note inf/NaN.

        The inverse scale, the product and the finite check are computed in float32 at
        least: in float16 the default scale 65536 is itself inf (float16 ends at 65504),
        so dividing float16 gradients by it would zero them all and find no overflow.
        float16 gradients are cast back after the check.
        """
        if not self._enable or id(optimizer) in self._unscaled:
            return
        found, on_device = False, []
        with no_grad():
            for p in self._params(optimizer):
                g = p._grad._data
                xp = get_array_module(g)
                work = np.result_type(g.dtype, np.float32)
                inv = work.type(1.0) / work.type(self._scale)
                if g.dtype == work:
                    g *= inv
                    unscaled = g
                else:
                    unscaled = g.astype(work) * inv
                    g[...] = unscaled
                if xp is np:
                    found = found or not bool(xp.isfinite(unscaled).all())
                else:  # on a GPU the flags are read once, together (a read waits for it)
                    on_device.append(xp.isfinite(unscaled).all())
        if on_device:
            found = found or not bool(get_array_module(on_device[0]).stack(on_device).all())
        self._found_inf = found
        self._unscaled.add(id(optimizer))

    def step(self, optimizer):
        """Unscale (unless done) and update, skipping the update when a gradient is
        inf or NaN."""
        if not self._enable:
            optimizer.step()
            return
        self.unscale_(optimizer)
        if not self._found_inf:
            optimizer.step()

    def update(self):
        """Adapt the scale to the last step (dynamic loss scaling)."""
        if self._enable and self._dynamic:
            if self._found_inf:
                self._good_steps = 0
                self._bad_steps += 1
                if self._bad_steps >= self._decr_every:
                    self._scale = max(self._scale * self._decr_ratio, 1.0)
                    self._bad_steps = 0
            else:
                self._bad_steps = 0
                self._good_steps += 1
                if self._good_steps >= self._incr_every:
                    self._scale *= self._incr_ratio
                    self._good_steps = 0
        self._found_inf = False
        self._unscaled.clear()

    def minimize(self, optimizer, *args, **kwargs):
        """step() and update() in one call, as Paddle's minimize."""
        self.step(optimizer)
        self.update()

    # -- settings and state --------------------------------------------------------------
    def is_enable(self):
        """Whether scaling is on."""
        return self._enable

    def is_use_dynamic_loss_scaling(self):
        """Whether the scale adapts."""
        return self._dynamic

    def get_loss_scaling(self):
        """The current scale."""
        return self._scale

    def get_init_loss_scaling(self):
        """The scale given at construction."""
        return self._init_scale

    def set_init_loss_scaling(self, value):
        """Restart from scale `value`."""
        self._init_scale = self._scale = float(value)

    def state_dict(self):
        """The scaler's state, for checkpoints."""
        return {"scale": self._scale, "incr_ratio": self._incr_ratio,
                "decr_ratio": self._decr_ratio, "incr_every_n_steps": self._incr_every,
                "decr_every_n_nan_or_inf": self._decr_every, "incr_count": self._good_steps,
                "decr_count": self._bad_steps,
                "use_dynamic_loss_scaling": self._dynamic} if self._enable else {}

    def load_state_dict(self, state_dict):
        """Restore a `state_dict()`."""
        if not self._enable:
            return
        self._scale = float(np.asarray(state_dict["scale"]).reshape(-1)[0])
        self._incr_ratio = float(state_dict["incr_ratio"])
        self._decr_ratio = float(state_dict["decr_ratio"])
        self._incr_every = int(state_dict["incr_every_n_steps"])
        self._decr_every = int(state_dict["decr_every_n_nan_or_inf"])
        self._good_steps = int(state_dict["incr_count"])
        self._bad_steps = int(state_dict["decr_count"])
        self._dynamic = bool(state_dict["use_dynamic_loss_scaling"])


AmpScaler = GradScaler


def decorate(models, optimizers=None, level="O1", dtype="float16", master_weight=None,
             save_dtype=None, master_grad=False, excluded_layers=None):
    """Prepare models (and optimizers) for auto_cast at `level`: O2 casts the models'
    parameters to `dtype` (normalisation layers stay float32) and, with `master_weight`
    (the default for O2), makes the optimizers update float32 master copies. O1 returns
    them unchanged. Returns what it was given (one model or a list, and the optimizers).

    Example:
        >>> import dygraph
        >>> net = decorate(dygraph.nn.Linear(2, 2), level='O2')
        >>> net.weight.dtype
        dygraph.float16
    """
    if level not in ("O1", "O2"):
        raise ValueError(f"decorate: level must be 'O1' or 'O2', got {level!r}")
    if dtype not in ("float16", "bfloat16"):
        raise ValueError(f"decorate: dtype must be 'float16' or 'bfloat16', got {dtype!r}")
    model_list = models if isinstance(models, (list, tuple)) else [models]
    opt_list = (optimizers if isinstance(optimizers, (list, tuple))
                else [] if optimizers is None else [optimizers])
    if level == "O2":
        from dygraph import nn

        # As Paddle: normalisation layers keep float32 parameters (BatchNorm does anyway).
        keep = [nn.LayerNorm, nn.GroupNorm, nn.InstanceNorm1D, nn.InstanceNorm2D,
                nn.InstanceNorm3D]
        extra = excluded_layers if isinstance(excluded_layers, (list, tuple)) else (
            [] if excluded_layers is None else [excluded_layers])
        for model in model_list:
            getattr(model, dtype)(keep + list(extra))
        for opt in opt_list:
            opt._multi_precision = master_weight is not False
    if optimizers is None:
        return models
    return models, optimizers
