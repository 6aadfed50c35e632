"""The strong-Wolfe line search of LBFGS (Nocedal & Wright, algorithms 3.5 and 3.6, with
cubic interpolation), on flat float64 NumPy vectors.

Example:
    >>> import numpy as np
    >>> f = lambda x, t, d: (float(((x + t * d) ** 2).sum()), 2 * (x + t * d))
    >>> x = np.array([2.0]); g = 2 * x
    >>> loss, grad, t, evals = strong_wolfe(f, x, 1.0, -g, 4.0, g, float(g @ -g))
    >>> round(t, 6), round(loss, 6)
    (0.5, 0.0)
"""

import math

import numpy as np

__all__ = ["strong_wolfe", "cubic_interpolate"]


def cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), clipped to bounds
    (default the interval between x1 and x2); the bisection when the cubic has none.

    Example:
        >>> round(cubic_interpolate(0.0, 1.0, -2.0, 2.0, 1.0, 2.0), 6)
        1.0
    """
    lo, hi = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = math.sqrt(d2_square)
        if x1 <= x2:
            pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(pos, lo), hi)
    return (lo + hi) / 2.0


def strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                 max_ls=25):
    """Find a step t along d satisfying the strong Wolfe conditions; obj_func(x, t, d)
    returns (loss, flat gradient) at x + t d. Returns (loss, gradient, t, evaluations).
    """
    d_norm = np.abs(d).max()
    g = g.copy()
    f_new, g_new = obj_func(x, t, d)
    evals = 1
    gtd_new = float(g_new @ d)
    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    done = False
    ls_iter = 0
    # Bracketing: grow the step until an interval holds a point meeting the conditions.
    while ls_iter < max_ls:
        if f_new > f + c1 * t * gtd or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                              bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.copy(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = float(g_new @ d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0.0, t], [f, f_new], [g, g_new]
        bracket_gtd = [gtd, gtd_new]
    # Zoom: shrink the bracket by cubic interpolation until the conditions hold.
    insuf_progress = False
    low, high = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1],
                              bracket_f[1], bracket_gtd[1])
        # Keep away from the ends of the bracket unless progress stalls.
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                t = max(bracket) - eps if abs(t - max(bracket)) < abs(t - min(bracket)) \
                    else min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = float(g_new @ d)
        ls_iter += 1
        if f_new > f + c1 * t * gtd or f_new >= bracket_f[low]:
            bracket[high], bracket_f[high] = t, f_new
            bracket_g[high], bracket_gtd[high] = g_new.copy(), gtd_new
            low, high = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:
                bracket[high], bracket_f[high] = bracket[low], bracket_f[low]
                bracket_g[high], bracket_gtd[high] = bracket_g[low], bracket_gtd[low]
            bracket[low], bracket_f[low] = t, f_new
            bracket_g[low], bracket_gtd[low] = g_new.copy(), gtd_new
    t = bracket[low]
    return bracket_f[low], bracket_g[low], t, evals
