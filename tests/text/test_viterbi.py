"""viterbi_decode and ViterbiDecoder against exhaustive search over all tag paths (the
start/stop convention was measured on Paddle 3.3)."""

import itertools

import numpy as np
import pytest

import dygraph
from dygraph.text import ViterbiDecoder, viterbi_decode


def brute_force(potentials, transitions, length, bos_eos):
    best = None
    for path in itertools.product(range(potentials.shape[1]), repeat=length):
        score = sum(potentials[t, path[t]] for t in range(length))
        score += sum(transitions[path[t], path[t + 1]] for t in range(length - 1))
        if bos_eos:
            score += transitions[-1, path[0]] + transitions[-2, path[-1]]
        if best is None or score > best[0]:
            best = (score, list(path))
    return best


@pytest.mark.parametrize("bos_eos", [True, False])
def test_best_paths_and_scores(bos_eos):
    rng = np.random.default_rng(0)
    potentials = rng.standard_normal((4, 5, 4)).astype(np.float32)
    transitions = rng.standard_normal((4, 4)).astype(np.float32)
    lengths = np.array([5, 2, 1, 4])
    scores, paths = viterbi_decode(dygraph.to_tensor(potentials),
                                   dygraph.to_tensor(transitions),
                                   dygraph.to_tensor(lengths), bos_eos)
    assert paths.shape == [4, 5] and paths.dtype == dygraph.int64
    for b, length in enumerate(lengths):
        score, path = brute_force(potentials[b], transitions, length, bos_eos)
        assert scores.numpy()[b] == pytest.approx(score, abs=1e-5)
        assert paths.numpy()[b].tolist() == path + [0] * (5 - length)


def test_paths_are_as_long_as_the_longest_sequence_and_layer_form():
    transitions = dygraph.rand([3, 3])
    decoder = ViterbiDecoder(transitions, include_bos_eos_tag=False)
    scores, paths = decoder(dygraph.rand([2, 6, 3]), dygraph.to_tensor([3, 2]))
    assert scores.shape == [2] and paths.shape == [2, 3]
    assert decoder.transitions is transitions


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match=r"transition_params should be \[3, 3\]"):
        viterbi_decode(dygraph.rand([1, 2, 3]), dygraph.rand([2, 2]), dygraph.to_tensor([2]))
    with pytest.raises(ValueError, match=r"lengths should lie in \[1, 2\]"):
        viterbi_decode(dygraph.rand([1, 2, 3]), dygraph.rand([3, 3]), dygraph.to_tensor([3]))
    with pytest.raises(TypeError, match="potentials should be a Tensor"):
        viterbi_decode(np.zeros((1, 2, 3)), dygraph.rand([3, 3]), dygraph.to_tensor([2]))
