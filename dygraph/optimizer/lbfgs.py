"""L-BFGS: a quasi-Newton method from the last `history_size` steps and gradient changes,
optionally with a strong-Wolfe line search. `step(closure)` runs up to max_iter
iterations; the closure clears the gradients, computes the loss, calls backward and returns
the loss. Paddle's algorithm (the same as torch's); the parameters are handled as one flat
float64 vector, and weight decay and gradient clipping apply to each evaluated gradient.

Example:
    >>> import numpy as np
    >>> import dygraph
    >>> from dygraph.framework.parameter import Parameter
    >>> w = Parameter(np.array([3.0, -2.0]))
    >>> opt = dygraph.optimizer.LBFGS(parameters=[w], line_search_fn='strong_wolfe')
    >>> def closure():
    ...     opt.clear_grad()
    ...     loss = ((w - 1.0) ** 2).sum()
    ...     loss.backward()
    ...     return loss
    >>> _ = opt.step(closure); w.numpy().round(6)
    array([1., 1.])
"""

import numpy as np

from dygraph.autograd.grad_mode import enable_grad, no_grad
from dygraph.framework.errors import op_error
from dygraph.ops.manipulation.args import xp_of
from dygraph.optimizer.line_search import strong_wolfe
from dygraph.optimizer.optimizer import Optimizer

__all__ = ["LBFGS"]


class LBFGS(Optimizer):
    """L-BFGS with Paddle's defaults (lr 1, max_iter 20, max_eval max_iter * 5 / 4,
    tolerance_grad 1e-7, tolerance_change 1e-9, history_size 100); line_search_fn is None
    (fixed step lr) or 'strong_wolfe'. One parameter group.

    Example:
        >>> import numpy as np
        >>> from dygraph.framework.parameter import Parameter
        >>> w = Parameter(np.array([2.0]))
        >>> opt = LBFGS(parameters=[w], max_iter=5)
        >>> def closure():
        ...     opt.clear_grad(); loss = (w * w).sum(); loss.backward(); return loss
        >>> float(opt.step(closure)), float(w.numpy()[0])  # loss before the step; minimum
        (4.0, 0.0)
    """

    def __init__(self, learning_rate=1.0, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        if line_search_fn not in (None, "strong_wolfe"):
            raise op_error("LBFGS", f"line_search_fn must be None or 'strong_wolfe', got "
                           f"{line_search_fn!r}")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        if len(self._param_groups) != 1:
            raise op_error("LBFGS", "LBFGS takes one parameter group")
        self.max_iter = int(max_iter)
        self.max_eval = int(max_eval) if max_eval is not None else self.max_iter * 5 // 4
        self.tolerance_grad, self.tolerance_change = tolerance_grad, tolerance_change
        self.history_size, self.line_search_fn = int(history_size), line_search_fn
        self.state = {"func_evals": 0, "n_iter": 0}

    # -- the flat view of the parameters ----------------------------------------------------
    def _params(self):
        return [p for p in self._param_groups[0]["params"] if not p._sg]

    def _flat_grad(self):
        group = self._param_groups[0]
        params = self._params()
        pairs = [(p, p._grad) for p in params]
        if group["grad_clip"] is not None:
            present = group["grad_clip"]([(p, g) for p, g in pairs if g is not None])
            clipped = {id(p): g for p, g in present}
            pairs = [(p, clipped.get(id(p))) for p, _ in pairs]
        parts = []
        for p, g in pairs:
            grad = (np.zeros(p._data.shape) if g is None
                    else np.asarray(g.numpy(), dtype=np.float64))
            regularizer = getattr(p, "regularizer", None) or self.regularization
            if regularizer is not None:
                grad = regularizer.apply_to_array(np.asarray(p.numpy(), np.float64), grad, np)
            parts.append(grad.ravel())
        return np.concatenate(parts) if parts else np.zeros(0)

    def _flat_params(self):
        return np.concatenate([np.asarray(p.numpy(), np.float64).ravel()
                               for p in self._params()])

    def _set_flat(self, flat):
        offset = 0
        for p in self._params():
            n = p._data.size
            # The flat vector lives on the host; the parameter may be on a GPU.
            p._data[...] = xp_of(p._data).asarray(flat[offset:offset + n].reshape(p._data.shape))
            p._version[0] += 1
            offset += n

    def _evaluate(self, closure):
        with enable_grad():
            loss = closure()
        return loss, float(np.asarray(loss.numpy() if hasattr(loss, "numpy") else loss))

    def _directional(self, closure, x, t, d):
        self._set_flat(x + t * d)
        _, loss = self._evaluate(closure)
        grad = self._flat_grad()
        self._set_flat(x)
        return loss, grad

    # -- the algorithm ----------------------------------------------------------------------
    @no_grad()
    def step(self, closure):
        """Run up to max_iter L-BFGS iterations; returns the closure's first loss.

        Example:
            >>> import numpy as np
            >>> from dygraph.framework.parameter import Parameter
            >>> w = Parameter(np.array([1.0]))
            >>> opt = LBFGS(parameters=[w])
            >>> def closure():
            ...     opt.clear_grad(); loss = ((w - 3.0) ** 2).sum(); loss.backward()
            ...     return loss
            >>> _ = opt.step(closure); round(float(w.numpy()[0]), 6)
            3.0
        """
        if closure is None or not callable(closure):
            raise op_error("LBFGS.step", "LBFGS needs a closure that computes the loss and "
                           "its gradients", TypeError)
        state, lr = self.state, float(self.get_lr())
        orig_loss, loss = self._evaluate(closure)
        evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if flat_grad.size == 0 or np.abs(flat_grad).max() <= self.tolerance_grad:
            return orig_loss
        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps = state.get("old_dirs", []), state.get("old_stps", [])
        ro, h_diag = state.get("ro", []), state.get("H_diag", 1.0)
        prev_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")
        n_iter = 0
        while n_iter < self.max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d, old_dirs, old_stps, ro, h_diag = -flat_grad, [], [], [], 1.0
            else:
                d, h_diag = self._direction(flat_grad, prev_grad, d * t, old_dirs, old_stps,
                                            ro, h_diag)
            prev_grad, prev_loss = flat_grad.copy(), loss
            t = (min(1.0, 1.0 / np.abs(flat_grad).sum()) * lr if state["n_iter"] == 1
                 else lr)
            gtd = float(flat_grad @ d)
            if gtd > -self.tolerance_change:
                break
            ls_evals = 0
            if self.line_search_fn is not None:
                x0 = self._flat_params()
                loss, flat_grad, t, ls_evals = strong_wolfe(
                    lambda x, step, direction: self._directional(closure, x, step, direction),
                    x0, t, d, loss, flat_grad, gtd)
                self._set_flat(x0 + t * d)
                opt_cond = np.abs(flat_grad).max() <= self.tolerance_grad
            else:
                self._set_flat(self._flat_params() + t * d)
                opt_cond = False
                if n_iter != self.max_iter:
                    _, loss = self._evaluate(closure)
                    flat_grad = self._flat_grad()
                    opt_cond = np.abs(flat_grad).max() <= self.tolerance_grad
                    ls_evals = 1
            evals += ls_evals
            state["func_evals"] += ls_evals
            if n_iter == self.max_iter or evals >= self.max_eval or opt_cond:
                break
            if np.abs(d * t).max() <= self.tolerance_change:
                break
            if abs(loss - prev_loss) < self.tolerance_change:
                break
        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=h_diag,
                     prev_flat_grad=prev_grad, prev_loss=prev_loss)
        return orig_loss

    def _direction(self, grad, prev_grad, s, old_dirs, old_stps, ro, h_diag):
        """The two-loop recursion: -H grad from the stored curvature pairs."""
        y = grad - prev_grad
        ys = float(y @ s)
        if ys > 1e-10:
            if len(old_dirs) == self.history_size:
                old_dirs.pop(0)
                old_stps.pop(0)
                ro.pop(0)
            old_dirs.append(y)
            old_stps.append(s)
            ro.append(1.0 / ys)
            h_diag = ys / float(y @ y)
        al = [0.0] * len(old_dirs)
        q = -grad
        for i in range(len(old_dirs) - 1, -1, -1):
            al[i] = float(old_stps[i] @ q) * ro[i]
            q = q - al[i] * old_dirs[i]
        r = q * h_diag
        for i in range(len(old_dirs)):
            be_i = float(old_dirs[i] @ r) * ro[i]
            r = r + old_stps[i] * (al[i] - be_i)
        return r, h_diag

    def state_dict(self):
        """The base optimizer state plus the L-BFGS history under 'LBFGS'.

        Example:
            >>> import numpy as np
            >>> from dygraph.framework.parameter import Parameter
            >>> sorted(LBFGS(parameters=[Parameter(np.ones(1))]).state_dict()['LBFGS'])
            ['func_evals', 'n_iter']
        """
        state = super().state_dict()
        state["LBFGS"] = dict(self.state)
        return state

    def set_state_dict(self, state_dict):
        """Restore what state_dict() returned."""
        state_dict = dict(state_dict)
        self.state = dict(state_dict.pop("LBFGS", {"func_evals": 0, "n_iter": 0}))
        super().set_state_dict(state_dict)
