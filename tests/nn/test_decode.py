"""BeamSearchDecoder and dynamic_decode: exact top sequences of a Markov-chain "cell"
against brute force, finishing and lengths, and a custom Decoder with impute_finished.
(The decoder was also matched to Paddle 3.3's on GRU and LSTM cells while written.)"""

import itertools

import numpy as np

import dygraph
import dygraph.nn as nn

# Transition log-probabilities of a chain over tokens 0-2 (row = previous token); token 3
# is an end token that is (almost) never chosen.
TRANS = np.log(np.array([[0.1, 0.6, 0.3, 1e-9], [0.5, 0.15, 0.35, 1e-9], [0.3, 0.3, 0.4, 1e-9],
                         [0.25, 0.25, 0.25, 0.25]]))


class ChainCell(nn.Layer):
    """Outputs the next-token log-probabilities of the previous token; the state counts steps."""

    def forward(self, tokens, state):
        logits = dygraph.to_tensor(TRANS[tokens.numpy()])
        return logits, state + 1.0


def test_beam_search_finds_the_best_sequences():
    decoder = nn.BeamSearchDecoder(ChainCell(), start_token=0, end_token=3, beam_size=3)
    ids, states, lengths = nn.dynamic_decode(decoder, dygraph.zeros([1, 1]), max_step_num=1,
                                             return_length=True)
    assert ids.shape == [1, 2, 3]
    scored = sorted(((TRANS[0, a] + TRANS[a, b], (a, b))
                     for a, b in itertools.product(range(3), repeat=2)), reverse=True)[:3]
    got = [tuple(ids.numpy()[0, :, k]) for k in range(3)]
    assert got == [seq for _, seq in scored]
    np.testing.assert_allclose(states.log_probs.numpy()[0], [s for s, _ in scored], rtol=1e-6)
    np.testing.assert_array_equal(lengths.numpy(), [[2, 2, 2]])
    np.testing.assert_array_equal(states.cell_states.numpy(), np.full((1, 3, 1), 2.0))


def test_beams_that_emit_the_end_token_stop_growing():
    decoder = nn.BeamSearchDecoder(ChainCell(), start_token=0, end_token=1, beam_size=2)
    ids, states, lengths = nn.dynamic_decode(decoder, dygraph.zeros([2, 1]), max_step_num=5,
                                             return_length=True)
    steps = ids.shape[1]
    assert steps == 6
    done, lengths = states.finished.numpy(), lengths.numpy()
    assert done.any()
    for b in range(2):
        for k in range(2):
            seq = list(ids.numpy()[b, :, k])
            if done[b, k]:  # the end token closes the beam; it then only repeats
                assert seq[lengths[b, k] - 1] == 1 and set(seq[lengths[b, k]:]) <= {1}
            else:
                assert lengths[b, k] == steps and 1 not in seq


def test_tile_beam_merge_with_batch():
    x = dygraph.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    out = nn.BeamSearchDecoder.tile_beam_merge_with_batch(x, 3)
    np.testing.assert_array_equal(out.numpy(), np.repeat(x.numpy(), 3, axis=0))


class CountDown(nn.decode.Decoder):
    """Emits its state and decrements it; a sequence finishes when its state hits 0."""

    def initialize(self, inits):
        return inits, inits, dygraph.to_tensor(inits.numpy() <= 0)

    def step(self, time, inputs, states, **kwargs):
        nxt = states - 1.0
        return states, nxt, nxt, dygraph.to_tensor(nxt.numpy() <= 0)


def test_dynamic_decode_tracks_finished_for_plain_decoders():
    start = dygraph.to_tensor([3.0, 1.0])
    out, final, lengths = nn.dynamic_decode(CountDown(), start, impute_finished=True,
                                            return_length=True)
    np.testing.assert_array_equal(out.numpy(), [[3, 2, 1], [1, 0, 0]])
    np.testing.assert_array_equal(lengths.numpy(), [3, 1])
    np.testing.assert_array_equal(final.numpy(), [0, 0])  # the finished state was kept
    out, _ = nn.dynamic_decode(CountDown(), start, output_time_major=True)
    assert out.shape == [3, 2]
