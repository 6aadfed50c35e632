"""fluid.clip: the 1.x gradient-clipping classes on the 2.x ones.

`need_clip`, as in late 1.x, is a function of the parameter returning whether its gradient
is clipped; the others pass through and do not count towards a global norm.

Example:
    >>> import dygraph
    >>> import dygraph.fluid as fluid
    >>> p = dygraph.to_tensor([0.0, 0.0], stop_gradient=False)
    >>> clip = fluid.clip.GradientClipByGlobalNorm(clip_norm=1.0)
    >>> clip([(p, dygraph.to_tensor([3.0, 4.0]))])[0][1].numpy()
    array([0.6, 0.8], dtype=float32)
"""

from dygraph.nn import clip as _clip

__all__ = ["GradientClipByValue", "GradientClipByNorm", "GradientClipByGlobalNorm"]


class _Selective:
    """Clip only the pairs whose parameter `need_clip(param)` accepts."""

    _need_clip = None

    def _clip(self, params_grads):
        if self._need_clip is None:
            return super()._clip(params_grads)
        chosen = [i for i, (param, _) in enumerate(params_grads) if self._need_clip(param)]
        clipped = super()._clip([params_grads[i] for i in chosen])
        out = list(params_grads)
        for i, pair in zip(chosen, clipped):
            out[i] = pair
        return out


class GradientClipByValue(_Selective, _clip.ClipGradByValue):
    """Clip each gradient element into [min, max] (min defaults to -max).

    Example:
        >>> import dygraph
        >>> p = dygraph.to_tensor([0.0, 0.0], stop_gradient=False)
        >>> GradientClipByValue(1.0)([(p, dygraph.to_tensor([-3.0, 0.5]))])[0][1].numpy()
        array([-1. ,  0.5], dtype=float32)
    """

    def __init__(self, max, min=None, need_clip=None):  # noqa: A002 - 1.x argument names
        super().__init__(max, min)
        self._need_clip = need_clip


class GradientClipByNorm(_Selective, _clip.ClipGradByNorm):
    """Scale each gradient so that its own L2 norm is at most clip_norm.

    Example:
        >>> import dygraph
        >>> p = dygraph.to_tensor([0.0, 0.0], stop_gradient=False)
        >>> GradientClipByNorm(2.5)([(p, dygraph.to_tensor([3.0, 4.0]))])[0][1].numpy()
        array([1.5, 2. ], dtype=float32)
    """

    def __init__(self, clip_norm, need_clip=None):
        super().__init__(clip_norm)
        self._need_clip = need_clip


class GradientClipByGlobalNorm(_Selective, _clip.ClipGradByGlobalNorm):
    """Scale all gradients together so that their joint L2 norm is at most clip_norm.

    Example:
        >>> import dygraph
        >>> a = dygraph.to_tensor([0.0], stop_gradient=False)
        >>> b = dygraph.to_tensor([0.0], stop_gradient=False)
        >>> clip = GradientClipByGlobalNorm(1.0, need_clip=lambda p: p is a)
        >>> [g.numpy() for _, g in clip([(a, dygraph.to_tensor([3.0])),
        ...                              (b, dygraph.to_tensor([4.0]))])]
        [array([1.], dtype=float32), array([4.], dtype=float32)]
    """

    def __init__(self, clip_norm, group_name="default_group", need_clip=None):
        super().__init__(clip_norm, group_name)
        self._need_clip = need_clip
