"""Two Theano-era programs, written the Theano way with only the import renamed
(``import theon as theano``), train on theon (issue 32, "Must show").

* An RNN-RBM in the style of the deep-learning tutorial's ``rnnrbm.py``: an RNN
  conditioning an RBM's biases, the RBM's Gibbs chain a ``scan(..., strict=True)``
  inside the ``scan`` of the recurrence, the reconstruction monitor written with
  ``T.xlogx.xlogy0``, contrastive divergence through ``consider_constant``, and
  ``theano.config.warn.sum_div_dimshuffle_bug = False`` set the way such scripts did.
* An Elman RNN for slot filling in the style of ``is13``'s ``elman.py``: word
  embeddings read by a context window, ``T.nnet.softmax`` of the hidden vector inside
  ``scan`` (a ``(1, n)`` row, as Theano 1.0 gave), its stack read as ``s[:, 0, :]``,
  and the embeddings normalized by a function with only updates.

Small synthetic data of the programs' shapes, fixed seeds; each test checks that the
cost falls (and that the trained model beats the untrained one).
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import theon as theano
import theon.tensor as T
from theon.tensor.shared_randomstreams import RandomStreams


@pytest.fixture(autouse=True)
def _no_warnings_and_flags_restored() -> Iterator[None]:
    old = theano.config.warn.sum_div_dimshuffle_bug
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield
    theano.config.warn.sum_div_dimshuffle_bug = old


# ----------------------------------------------------------------------------- RNN-RBM
def build_rbm(v: Any, W: Any, bv: Any, bh: Any, k: int, rng: RandomStreams) -> tuple[Any, ...]:
    """A k-step Gibbs chain from ``v`` (rows: time steps, each with its own biases)."""

    def gibbs_step(v: Any, W: Any) -> tuple[Any, Any]:
        mean_h = T.nnet.sigmoid(T.dot(v, W) + bh)
        h = rng.binomial(size=mean_h.shape, n=1, p=mean_h, dtype=theano.config.floatX)
        mean_v = T.nnet.sigmoid(T.dot(h, W.T) + bv)
        v = rng.binomial(size=mean_v.shape, n=1, p=mean_v, dtype=theano.config.floatX)
        return mean_v, v

    # strict=True: the shared W must be passed; bv and bh (not shared) are found
    chain, updates = theano.scan(lambda v, W: gibbs_step(v, W)[1], outputs_info=[v],
                                 non_sequences=[W], n_steps=k, strict=True)
    v_sample = chain[-1]
    mean_v = gibbs_step(v_sample, W)[0]
    monitor = T.xlogx.xlogy0(v, mean_v) + T.xlogx.xlogy0(1 - v, 1 - mean_v)
    monitor = monitor.sum() / v.shape[0]

    def free_energy(v: Any) -> Any:
        return -(v * bv).sum() - T.log(1 + T.exp(T.dot(v, W) + bh)).sum()

    cost = (free_energy(v) - free_energy(v_sample)) / v.shape[0]
    return v_sample, cost, monitor, updates


def build_rnnrbm(n_visible: int, n_hidden: int, n_hidden_recurrent: int, k: int
                 ) -> tuple[Any, ...]:
    np_rng = np.random.RandomState(1234)
    rng = RandomStreams(seed=1234)

    def shared_normal(n: int, m: int, scale: float = 0.01) -> Any:
        return theano.shared(np_rng.normal(scale=scale, size=(n, m))
                             .astype(theano.config.floatX))

    def shared_zeros(*shape: int) -> Any:
        return theano.shared(np.zeros(shape, dtype=theano.config.floatX))

    W = shared_normal(n_visible, n_hidden)
    bv = shared_zeros(n_visible)
    bh = shared_zeros(n_hidden)
    Wuh = shared_normal(n_hidden_recurrent, n_hidden, 0.0001)
    Wuv = shared_normal(n_hidden_recurrent, n_visible, 0.0001)
    Wvu = shared_normal(n_visible, n_hidden_recurrent, 0.0001)
    Wuu = shared_normal(n_hidden_recurrent, n_hidden_recurrent, 0.0001)
    bu = shared_zeros(n_hidden_recurrent)
    params = [W, bv, bh, Wuh, Wuv, Wvu, Wuu, bu]

    v = T.matrix()  # a sequence of binary frames
    u0 = T.zeros((n_hidden_recurrent,))

    def recurrence(v_t: Any, u_tm1: Any) -> list[Any]:
        bv_t = bv + T.dot(u_tm1, Wuv)
        bh_t = bh + T.dot(u_tm1, Wuh)
        u_t = T.tanh(bu + T.dot(v_t, Wvu) + T.dot(u_tm1, Wuu))
        return [u_t, bv_t, bh_t]

    (u_t, bv_t, bh_t), updates_train = theano.scan(
        lambda v_t, u_tm1, *_: recurrence(v_t, u_tm1), sequences=v,
        outputs_info=[u0, None, None], non_sequences=params, strict=True)
    v_sample, cost, monitor, updates_rbm = build_rbm(v, W, bv_t[:], bh_t[:], k, rng)
    updates_train.update(updates_rbm)
    return v, v_sample, cost, monitor, params, updates_train


def piano_rolls(n_visible: int, n_seq: int, length: int) -> list[np.ndarray]:
    """Binary sequences: a chord (three notes) climbing one step per frame."""
    rng = np.random.RandomState(0)
    out = []
    for _ in range(n_seq):
        seq = np.zeros((length, n_visible), dtype=theano.config.floatX)
        start = rng.randint(n_visible)
        for t in range(length):
            for d in (0, 2, 4):
                seq[t, (start + t + d) % n_visible] = 1
        out.append(seq)
    return out


def test_rnn_rbm_trains() -> None:
    theano.config.warn.sum_div_dimshuffle_bug = False
    assert theano.config.warn__sum_div_dimshuffle_bug is False
    v, v_sample, cost, monitor, params, updates_train = build_rnnrbm(12, 20, 10, k=3)
    lr = 0.5
    gradient = T.grad(cost, params, consider_constant=[v_sample])
    updates_train.update((p, p - lr * g) for p, g in zip(params, gradient))
    train = theano.function([v], monitor, updates=updates_train)
    data = piano_rolls(12, 6, 16)
    epochs = [np.mean([train(seq) for seq in data]) for _ in range(15)]
    assert np.all(np.isfinite(epochs))
    # the reconstruction cross-entropy -monitor (a sum of x log p by xlogy0) falls
    assert -np.mean(epochs[-3:]) < -np.mean(epochs[:3]) - 1.5, epochs


# ----------------------------------------------------------------------------- Elman RNN
def contextwin(sentence: list[int], win: int) -> list[list[int]]:
    """Each word's window of ``win`` word indices, padded with -1."""
    assert win % 2 == 1 and win >= 1
    padded = win // 2 * [-1] + list(sentence) + win // 2 * [-1]
    return [padded[i:i + win] for i in range(len(sentence))]


class Elman:
    """nh hidden units, nc classes, ne words (and the padding word -1), de dimensions
    per word, cs words per context window."""

    def __init__(self, nh: int, nc: int, ne: int, de: int, cs: int) -> None:
        rng = np.random.RandomState(3435)

        def shared(shape: tuple[int, ...], name: str) -> Any:
            return theano.shared(0.2 * rng.uniform(-1.0, 1.0, shape)
                                 .astype(theano.config.floatX), name=name)

        self.emb = shared((ne + 1, de), "embeddings")
        self.Wx = shared((de * cs, nh), "Wx")
        self.Wh = shared((nh, nh), "Wh")
        self.W = shared((nh, nc), "W")
        self.bh = theano.shared(np.zeros(nh, dtype=theano.config.floatX), name="bh")
        self.b = theano.shared(np.zeros(nc, dtype=theano.config.floatX), name="b")
        self.h0 = theano.shared(np.zeros(nh, dtype=theano.config.floatX), name="h0")
        self.params = [self.emb, self.Wx, self.Wh, self.W, self.bh, self.b, self.h0]

        idxs = T.imatrix()
        x = self.emb[idxs].reshape((idxs.shape[0], de * cs))
        y_sentence = T.ivector("y_sentence")

        def recurrence(x_t: Any, h_tm1: Any) -> list[Any]:
            h_t = T.nnet.sigmoid(T.dot(x_t, self.Wx) + T.dot(h_tm1, self.Wh) + self.bh)
            s_t = T.nnet.softmax(T.dot(h_t, self.W) + self.b)  # a (1, nc) row
            return [h_t, s_t]

        [h, s], _ = theano.scan(fn=recurrence, sequences=x, outputs_info=[self.h0, None],
                                n_steps=x.shape[0])
        p_y_given_x_sentence = s[:, 0, :]
        y_pred = T.argmax(p_y_given_x_sentence, axis=1)

        lr = T.scalar("lr")
        sentence_nll = -T.mean(T.log(p_y_given_x_sentence)[T.arange(x.shape[0]), y_sentence])
        sentence_gradients = T.grad(sentence_nll, self.params)
        sentence_updates = OrderedDict((p, p - lr * g)
                                       for p, g in zip(self.params, sentence_gradients))
        self.classify = theano.function(inputs=[idxs], outputs=y_pred)
        self.nll = theano.function(inputs=[idxs, y_sentence], outputs=sentence_nll)
        self.sentence_train = theano.function(inputs=[idxs, y_sentence, lr],
                                              outputs=sentence_nll, updates=sentence_updates)
        self.normalize = theano.function(
            inputs=[], updates={self.emb: self.emb / T.sqrt((self.emb ** 2).sum(axis=1))
                                .dimshuffle(0, "x")})


def slot_sentences(n: int, ne: int, nc: int) -> list[tuple[list[int], list[int]]]:
    """A word's slot label is its class (word % nc), except right after the word 0,
    which marks the next word as slot nc - 1 (so context matters)."""
    rng = np.random.RandomState(7)
    out = []
    for _ in range(n):
        words = [int(w) for w in rng.randint(0, ne, size=rng.randint(5, 9))]
        labels = [nc - 1 if i and words[i - 1] == 0 else w % (nc - 1)
                  for i, w in enumerate(words)]
        out.append((words, labels))
    return out


def test_elman_rnn_slot_filling_trains() -> None:
    nc, ne, cs = 4, 10, 3
    rnn = Elman(nh=16, nc=nc, ne=ne, de=8, cs=cs)
    data = slot_sentences(30, ne, nc)
    windows = [(np.asarray(contextwin(w, cs), dtype="int32"), np.asarray(y, dtype="int32"))
               for w, y in data]

    def mean_nll() -> float:
        return float(np.mean([rnn.nll(x, y) for x, y in windows]))

    def accuracy() -> float:
        return float(np.mean(np.concatenate([rnn.classify(x) == y for x, y in windows])))

    p0 = rnn.classify(windows[0][0])
    assert p0.shape == (len(data[0][0]),)
    before, acc_before = mean_nll(), accuracy()
    costs = []
    for _epoch in range(12):
        costs.append(np.mean([rnn.sentence_train(x, y, 0.2) for x, y in windows]))
        rnn.normalize()
    after, acc_after = mean_nll(), accuracy()
    assert np.all(np.isfinite(costs))
    assert costs[-1] < costs[0] and after < 0.5 * before, (before, after, costs)
    assert acc_after > max(acc_before, 0.8), (acc_before, acc_after)
    norms = np.sqrt((rnn.emb.get_value() ** 2).sum(axis=1))
    np.testing.assert_allclose(norms, 1.0, rtol=1e-12)
