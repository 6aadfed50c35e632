"""Sequence decoding: the Decoder interface, BeamSearchDecoder and dynamic_decode (Paddle's
paddle.nn.decode, dynamic-graph form).

dynamic_decode calls decoder.initialize(inits) once, then decoder.step(time, inputs,
states) until every sequence is finished (or max_step_num), stacks the step outputs along
time and calls decoder.finalize. BeamSearchDecoder keeps beam_size hypotheses per batch
entry: each step scores every (beam, token) extension by its total log-probability, keeps
the best beam_size, reorders the cell states to follow their parent beams, and finalize
backtraces the beams with gather_tree. Beam search picks tokens, so it runs without
gradients through the choices (the cell's outputs keep theirs).
"""

from typing import NamedTuple

import numpy as np

from dygraph import ops as P
from dygraph.framework.errors import op_error
from dygraph.nn.functional import gather_tree, log_softmax
from dygraph.ops.device_constants import index
from dygraph.tensor.tensor import Tensor, to_tensor

__all__ = ["Decoder", "BeamSearchDecoder", "dynamic_decode"]

_KINF = 1e9


def _map(fn, *structs):
    """Apply fn leafwise over matching nested tuples / lists / namedtuples / dicts."""
    first = structs[0]
    if isinstance(first, dict):
        return {k: _map(fn, *(s[k] for s in structs)) for k in first}
    if isinstance(first, tuple) and hasattr(first, "_fields"):
        return type(first)(*(_map(fn, *parts) for parts in zip(*structs)))
    if isinstance(first, (list, tuple)):
        return type(first)(_map(fn, *parts) for parts in zip(*structs))
    return fn(*structs)


def _leaves(struct):
    if isinstance(struct, dict):
        return [leaf for v in struct.values() for leaf in _leaves(v)]
    if isinstance(struct, (list, tuple)):
        return [leaf for v in struct for leaf in _leaves(v)]
    return [struct]


class Decoder:
    """The interface dynamic_decode drives: initialize(inits) -> (inputs, states,
    finished); step(time, inputs, states, **kwargs) -> (outputs, next_states, next_inputs,
    finished); finalize(outputs, final_states, sequence_lengths) -> (outputs, states).

    Example:
        >>> Decoder().tracks_own_finished
        False
    """

    def initialize(self, inits):
        """The first inputs, states and finished flags."""
        raise NotImplementedError

    def step(self, time, inputs, states, **kwargs):
        """One decoding step."""
        raise NotImplementedError

    def finalize(self, outputs, final_states, sequence_lengths):
        """Post-process the stacked outputs (optional)."""
        raise NotImplementedError

    @property
    def tracks_own_finished(self):
        """True when the decoder keeps its own finished flags and lengths."""
        return False


class BeamSearchDecoder(Decoder):
    """Beam search over an RNN cell (see the module doc). embedding_fn turns token ids into
    the cell's inputs; output_fn turns the cell's outputs into vocabulary logits.

    Example:
        >>> import dygraph
        >>> import dygraph.nn as nn
        >>> cell = nn.GRUCell(4, 4)
        >>> decoder = nn.BeamSearchDecoder(cell, start_token=0, end_token=1, beam_size=2,
        ...                                embedding_fn=nn.Embedding(5, 4),
        ...                                output_fn=nn.Linear(4, 5))
        >>> ids, _ = nn.dynamic_decode(decoder, cell.get_initial_states(
        ...     dygraph.zeros([3, 4]), shape=[4]), max_step_num=4)
        >>> ids.shape[0], ids.shape[2]
        (3, 2)
    """

    class OutputWrapper(NamedTuple):
        scores: Tensor
        predicted_ids: Tensor
        parent_ids: Tensor

    class StateWrapper(NamedTuple):
        cell_states: object
        log_probs: Tensor
        finished: Tensor
        lengths: Tensor

    def __init__(self, cell, start_token, end_token, beam_size, embedding_fn=None,
                 output_fn=None):
        if int(beam_size) < 1:
            raise op_error("BeamSearchDecoder", f"beam_size must be >= 1, got {beam_size}")
        self.cell, self.embedding_fn, self.output_fn = cell, embedding_fn, output_fn
        self.start_token, self.end_token = int(start_token), int(end_token)
        self.beam_size = int(beam_size)

    @staticmethod
    def tile_beam_merge_with_batch(x, beam_size):
        """[batch, ...] -> [batch * beam_size, ...], each entry repeated beam_size times.

        Example:
            >>> import dygraph
            >>> x = dygraph.to_tensor([[1], [2]])
            >>> BeamSearchDecoder.tile_beam_merge_with_batch(x, 2).numpy().ravel()
            array([1, 1, 2, 2])
        """
        return P.repeat_interleave(x, int(beam_size), axis=0)

    def _split(self, x):
        return P.reshape(x, [-1, self.beam_size, *x.shape[1:]])

    def _merge(self, x):
        return P.reshape(x, [-1, *x.shape[2:]])

    def _expand(self, x):
        return P.reshape(P.repeat_interleave(x, self.beam_size, axis=0),
                         [-1, self.beam_size, *x.shape[1:]])

    def _gather(self, x, beams):
        """x [batch, beam, ...] reordered along beam by the int array beams [batch, beam]."""
        flat = (np.arange(beams.shape[0])[:, None] * self.beam_size + beams).reshape(-1)
        merged = P.gather(self._merge(x), index(flat, x), axis=0)
        return self._split(merged)

    def initialize(self, initial_cell_states):
        """Start tokens, states tiled to [batch, beam, ...], log-probs [0, -inf, ...].

        Example:
            >>> import dygraph
            >>> decoder = BeamSearchDecoder(None, 0, 1, beam_size=3)
            >>> inputs, states, finished = decoder.initialize(dygraph.zeros([2, 4]))
            >>> inputs.shape, states.cell_states.shape, states.log_probs.numpy()[0]
            ([2, 3], [2, 3, 4], array([ 0.e+00, -1.e+09, -1.e+09], dtype=float32))
        """
        batch = _leaves(initial_cell_states)[0].shape[0]
        self.batch_size = batch
        cell_states = _map(self._expand, initial_cell_states)
        inputs = P.full([batch, self.beam_size], self.start_token, dtype="int64")
        row = np.array([0.0] + [-_KINF] * (self.beam_size - 1))
        dtype = _leaves(initial_cell_states)[0].dtype
        log_probs = P.cast(to_tensor(np.tile(row, (batch, 1))), dtype)
        finished = P.full([batch, self.beam_size], False, dtype="bool")
        lengths = P.zeros([batch, self.beam_size], dtype="int64")
        if self.embedding_fn is not None:
            inputs = self.embedding_fn(inputs)
        return inputs, self.StateWrapper(cell_states, log_probs, finished, lengths), finished

    def _beam_search_step(self, time, logits, next_cell_states, beam_state):
        vocab = logits.shape[-1]
        step = np.asarray(log_softmax(logits, axis=-1).numpy(), dtype=np.float64)
        done = np.asarray(beam_state.finished.numpy())
        # A finished beam can only extend with the end token, at no cost.
        no_end = np.full(vocab, -_KINF)
        no_end[self.end_token] = 0.0
        step = np.where(done[..., None], no_end, step)
        total = (step + np.asarray(beam_state.log_probs.numpy(), np.float64)[..., None])
        flat = total.reshape(total.shape[0], -1)
        top = np.argsort(-flat, axis=1, kind="stable")[:, :self.beam_size]
        scores = np.take_along_axis(flat, top, axis=1)
        beams, tokens = top // vocab, top % vocab
        dtype = beam_state.log_probs.dtype
        cell_states = _map(lambda s: self._gather(s, beams), next_cell_states)
        parent_done = np.take_along_axis(done, beams, axis=1)
        lengths = np.take_along_axis(np.asarray(beam_state.lengths.numpy()), beams, axis=1)
        lengths = lengths + (~parent_done)
        finished = parent_done | (tokens == self.end_token)
        scores_t = P.cast(to_tensor(scores), dtype)
        output = self.OutputWrapper(scores_t, to_tensor(tokens.astype(np.int64)),
                                    to_tensor(beams.astype(np.int64)))
        state = self.StateWrapper(cell_states, scores_t, to_tensor(finished),
                                  to_tensor(lengths.astype(np.int64)))
        return output, state

    def step(self, time, inputs, states, **kwargs):
        """Run the cell on every beam, then keep the best beam_size extensions.

        Returns (outputs: scores / predicted_ids / parent_ids, next states, next inputs,
        finished).
        """
        inputs = _map(self._merge, inputs)
        cell_states = _map(self._merge, states.cell_states)
        outputs, next_cell_states = self.cell(inputs, cell_states, **kwargs)
        outputs = _map(self._split, outputs)
        next_cell_states = _map(self._split, next_cell_states)
        if self.output_fn is not None:
            outputs = self.output_fn(outputs)
        output, state = self._beam_search_step(time, outputs, next_cell_states, states)
        ids = output.predicted_ids
        next_inputs = self.embedding_fn(ids) if self.embedding_fn is not None else ids
        return output, state, next_inputs, state.finished

    def finalize(self, outputs, final_states, sequence_lengths):
        """Backtrace the beams: predicted ids [time, batch, beam] via gather_tree."""
        return gather_tree(outputs.predicted_ids, outputs.parent_ids), final_states

    @property
    def tracks_own_finished(self):
        """Beams are reordered every step, so the decoder tracks finished itself."""
        return True


def dynamic_decode(decoder, inits=None, max_step_num=None, output_time_major=False,
                   impute_finished=False, is_test=False, return_length=False, **kwargs):
    """Run `decoder` step by step until all sequences finish or max_step_num steps have
    run (the count starts at 0, so up to max_step_num + 1 steps, as in Paddle). Returns
    (outputs, final_states) or, with return_length, also the sequence lengths; outputs are
    batch-major ([batch, time, ...]) unless output_time_major. With impute_finished, the
    states of finished sequences are kept unchanged (for decoders that do not track their
    own finished flags). `is_test` is accepted for Paddle's signature.

    Example:
        >>> import dygraph
        >>> import dygraph.nn as nn
        >>> cell = nn.SimpleRNNCell(3, 3)
        >>> decoder = nn.BeamSearchDecoder(cell, 0, 1, 2, nn.Embedding(4, 3), nn.Linear(3, 4))
        >>> ids, states, lengths = nn.dynamic_decode(
        ...     decoder, dygraph.zeros([1, 3]), max_step_num=2, return_length=True)
        >>> ids.shape[0], lengths.shape
        (1, [1, 2])
    """
    inputs, states, finished = decoder.initialize(inits)
    lengths = P.zeros(finished.shape, dtype="int64")
    steps, time = [], 0
    while not bool(np.asarray(finished.numpy()).all()):
        out, next_states, next_inputs, next_finished = decoder.step(
            to_tensor(np.array([time], np.int64)), inputs, states, **kwargs)
        if decoder.tracks_own_finished:
            lengths = getattr(next_states, "lengths", lengths)
        else:
            done = np.asarray(finished.numpy())
            next_finished = P.logical_or(next_finished, finished)
            lengths = lengths + to_tensor((~done).astype(np.int64))
            if impute_finished:
                next_states = _map(lambda old, new, done=done: _keep_finished(old, new, done),
                                   states, next_states)
        steps.append(out)
        inputs, states, finished = next_inputs, next_states, next_finished
        time += 1
        if max_step_num is not None and time > max_step_num:
            break
    if not steps:
        raise op_error("dynamic_decode", "every sequence was finished before the first step")
    outputs = _map(lambda *xs: P.stack(list(xs), axis=0), *steps)
    try:
        outputs, states = decoder.finalize(outputs, states, lengths)
    except NotImplementedError:
        pass
    if not output_time_major:
        outputs = _map(lambda x: P.transpose(x, [1, 0, *range(2, x.ndim)]), outputs)
    return (outputs, states, lengths) if return_length else (outputs, states)


def _keep_finished(old, new, done):
    mask = done.reshape(done.shape + (1,) * (new.ndim - done.ndim))
    return P.where(to_tensor(np.broadcast_to(mask, new.shape).copy()), old, new)
