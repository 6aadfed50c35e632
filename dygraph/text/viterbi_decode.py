"""Viterbi decoding of tag sequences (`paddle.text.viterbi_decode` / `ViterbiDecoder`),
written with DyGraph's ops so that it runs wherever the tensors live.

A path y_0 .. y_{L-1} of a sequence of length L scores
`sum_t potentials[t, y_t] + sum_t transitions[y_t, y_{t+1}]`; with `include_bos_eos_tag`,
the last tag is the start tag and the second to last the stop tag, and the score also
gets `transitions[start, y_0] + transitions[stop, y_{L-1}]` (Paddle adds the stop tag's
row, not its column). `paths` is as long as the longest sequence; positions past a
sequence's length get tag 0.

Example:
    >>> import dygraph
    >>> potentials = dygraph.to_tensor([[[1.0, 0.0], [0.0, 2.0]]])
    >>> transitions = dygraph.to_tensor([[0.0, 0.0], [0.0, 0.0]])
    >>> scores, paths = viterbi_decode(potentials, transitions, dygraph.to_tensor([2]),
    ...                                include_bos_eos_tag=False)
    >>> scores.numpy().tolist(), paths.numpy().tolist()
    ([3.0], [[0, 1]])
"""

import dygraph
from dygraph.nn import Layer
from dygraph.tensor.tensor import Tensor

__all__ = ["viterbi_decode", "ViterbiDecoder"]


def _check(potentials, transitions, lengths):
    for name, value in (("potentials", potentials), ("transition_params", transitions),
                        ("lengths", lengths)):
        if not isinstance(value, Tensor):
            raise TypeError(f"viterbi_decode: {name} should be a Tensor, but got "
                            f"{type(value).__name__}")
    if len(potentials.shape) != 3:
        raise ValueError(f"viterbi_decode: potentials should be [batch, length, num_tags], "
                         f"but got shape {potentials.shape}")
    num_tags = potentials.shape[2]
    if transitions.shape != [num_tags, num_tags]:
        raise ValueError(f"viterbi_decode: transition_params should be [{num_tags}, "
                         f"{num_tags}] for {num_tags} tags, but got shape "
                         f"{transitions.shape}")
    if lengths.shape != [potentials.shape[0]]:
        raise ValueError(f"viterbi_decode: lengths should be [{potentials.shape[0]}] (one "
                         f"per sequence), but got shape {lengths.shape}")


def viterbi_decode(potentials, transition_params, lengths, include_bos_eos_tag=True,
                   name=None):
    """(scores [batch], paths [batch, max(lengths)] int64) of the best tag sequences, for
    emission `potentials` [batch, length, num_tags], `transition_params`
    [num_tags, num_tags] and `lengths` [batch].

    Example:
        >>> import dygraph
        >>> scores, paths = viterbi_decode(dygraph.rand([2, 3, 4]), dygraph.rand([4, 4]),
        ...                                dygraph.to_tensor([3, 1]))
        >>> scores.shape, paths.shape, paths.numpy()[1, 1:].tolist()
        ([2], [2, 3], [0, 0])
    """
    _check(potentials, transition_params, lengths)
    with dygraph.no_grad():
        batch = potentials.shape[0]
        lengths = lengths.astype("int64")
        if batch == 0:
            raise ValueError("viterbi_decode: potentials hold no sequence (batch size 0)")
        steps = int(lengths.max().item())
        if steps > potentials.shape[1] or int(lengths.min().item()) < 1:
            raise ValueError(f"viterbi_decode: lengths should lie in [1, "
                             f"{potentials.shape[1]}], but got {lengths.numpy().tolist()}")
        trans = transition_params.unsqueeze(0)
        alpha = potentials[:, 0]
        if include_bos_eos_tag:
            alpha = alpha + transition_params[-1].unsqueeze(0)
        history = []
        for t in range(1, steps):
            candidates = alpha.unsqueeze(2) + trans  # [batch, from, to]
            history.append(candidates.argmax(axis=1))
            stepped = candidates.max(axis=1) + potentials[:, t]
            alpha = dygraph.where((lengths > t).unsqueeze(1), stepped, alpha)
        if include_bos_eos_tag:
            alpha = alpha + transition_params[-2].unsqueeze(0)
        scores, best = alpha.max(axis=1), alpha.argmax(axis=1)
        zero = dygraph.zeros_like(best)
        current, columns = best, []
        for t in range(steps - 1, -1, -1):
            current = dygraph.where(lengths - 1 == t, best, current)
            inside = lengths > t
            columns.append(dygraph.where(inside, current, zero))
            if t > 0:
                previous = dygraph.take_along_axis(history[t - 1], current.unsqueeze(1),
                                                   axis=1).squeeze(1)
                current = dygraph.where(inside, previous, current)
        paths = dygraph.stack(columns[::-1], axis=1)
    return scores, paths


class ViterbiDecoder(Layer):
    """A layer holding `transitions` that decodes `(potentials, lengths)` with
    `viterbi_decode`.

    Example:
        >>> import dygraph
        >>> decoder = ViterbiDecoder(dygraph.rand([3, 3]), include_bos_eos_tag=False)
        >>> scores, paths = decoder(dygraph.rand([1, 4, 3]), dygraph.to_tensor([4]))
        >>> paths.shape
        [1, 4]
    """

    def __init__(self, transitions, include_bos_eos_tag=True, name=None):
        super().__init__()
        self.transitions = transitions
        self.include_bos_eos_tag = include_bos_eos_tag

    def forward(self, potentials, lengths):
        """(scores, paths)."""
        return viterbi_decode(potentials, self.transitions, lengths,
                              self.include_bos_eos_tag)
