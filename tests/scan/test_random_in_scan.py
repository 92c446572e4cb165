"""Random draws inside ``scan`` (issue 14 item 5).

A generator updated by the step (explicitly, or through a RandomStream's default
update) is threaded through the loop as a carried state: every step draws fresh
numbers, equal to NumPy drawing step by step from the same state, and the loop
returns the generator's update.  Gradients use the numbers the forward loop drew
(checked against NumPy finite differences with the same draws).
"""

import copy

import numpy as np
import pytest

import theon
import theon.tensor as tt
import theon.tensor.random as tr
from theon.compile.mode import Mode
from theon.scan.op import Scan
from theon.tensor.random.utils import RandomStream

MODES = [None, Mode(linker="vm")]


def _threaded_scan(seed, n=4):
    rng = theon.shared(np.random.default_rng(seed), name="rng")

    def step(acc):
        nxt, x = tr.normal(0.0, 1.0, size=(2,), rng=rng, return_next_rng=True)
        return acc + x, {rng: nxt}

    outs, upd = theon.scan(step, outputs_info=[tt.zeros((2,))], n_steps=n)
    return rng, outs, upd


def _numpy_steps(seed, n):
    ref = np.random.default_rng(seed)
    return [ref.normal(size=2) for _ in range(n)]


@pytest.mark.parametrize("mode", MODES)
def test_threaded_rng_in_scan_matches_numpy_step_by_step(mode):
    rng, outs, upd = _threaded_scan(3)
    assert list(upd) == [rng]
    f = theon.function([], outs, updates=upd, mode=mode)
    ref = np.random.default_rng(3)
    for _ in range(2):  # fresh numbers each call
        draws = [ref.normal(size=2) for _ in range(4)]
        np.testing.assert_allclose(f(), np.cumsum(draws, axis=0))
    rng.set_value(np.random.default_rng(3))  # reproducible from the seed
    np.testing.assert_allclose(f(), np.cumsum(_numpy_steps(3, 4), axis=0))


def test_the_callers_generator_is_not_advanced_without_the_update():
    rng, outs, _ = _threaded_scan(3)
    f = theon.function([], outs)  # no updates: the same numbers every call
    np.testing.assert_allclose(f(), f())
    np.testing.assert_allclose(f(), np.cumsum(_numpy_steps(3, 4), axis=0))


def test_random_stream_draws_advance_every_step_and_call():
    srng = RandomStream(5)
    x = tt.dvector("x")
    ys, upd = theon.scan(lambda xt: xt + srng.uniform(size=(3,)), sequences=x)
    assert len(upd) == 1
    f = theon.function([x], ys, updates=upd)
    xv = np.arange(4.0)
    (rng,) = upd
    ref = copy.deepcopy(rng.get_value())
    a = f(xv)
    np.testing.assert_allclose(a, xv[:, None] + ref.uniform(size=(4, 3)))
    b = f(xv)
    np.testing.assert_allclose(b, xv[:, None] + ref.uniform(size=(4, 3)))
    srng.seed(9)
    c = f(xv)
    srng.seed(9)
    np.testing.assert_allclose(f(xv), c)
    assert not np.allclose(c, a)


def test_two_draws_per_step_in_order():
    rng = theon.shared(np.random.default_rng(1))

    def step():
        r1, a = tr.uniform(size=(2,), rng=rng, return_next_rng=True)
        r2, b = tr.integers(0, 10, size=(), rng=r1, return_next_rng=True)
        return [a, b], {rng: r2}

    (a, b), upd = theon.scan(step, outputs_info=[None, None], n_steps=3)
    f = theon.function([], [a, b], updates=upd)
    ref = np.random.default_rng(1)
    want_a, want_b = [], []
    for _ in range(3):
        want_a.append(ref.uniform(size=(2,)))
        want_b.append(ref.integers(0, 10))
    got_a, got_b = f()
    np.testing.assert_allclose(got_a, want_a)
    np.testing.assert_array_equal(got_b, want_b)


def _dropout_rnn(seed):
    srng = RandomStream(seed)
    W = theon.shared(np.random.default_rng(0).normal(size=(3, 3)) * 0.5, name="W")
    x = tt.dmatrix("x")

    def step(xt, h):
        mask = srng.binomial(n=1, p=0.5, size=h.shape, dtype="float64")
        return tt.tanh(tt.dot(h, W) + xt) * mask

    hs, upd = theon.scan(step, sequences=x, outputs_info=tt.zeros((3,)))
    return srng, W, x, hs, upd


def _numpy_rnn(W, xv, masks):
    h, tot = np.zeros(3), 0.0
    for t in range(len(xv)):
        h = np.tanh(h @ W + xv[t]) * masks[t]
        tot += (h ** 2).sum()
    return tot


@pytest.mark.parametrize("mode", MODES)
def test_gradient_uses_the_forward_draws(mode):
    srng, W, x, hs, upd = _dropout_rnn(7)
    cost = (hs ** 2).sum()
    f = theon.function([x], [cost, theon.grad(cost, W)], updates=upd, mode=mode)
    xv = np.random.default_rng(1).normal(size=(5, 3))
    (rng,) = upd
    for _ in range(2):
        gen = copy.deepcopy(rng.get_value())
        masks = [gen.binomial(1, 0.5, size=(3,)).astype(float) for _ in range(5)]
        c, g = f(xv)
        Wv = W.get_value()
        assert c == pytest.approx(_numpy_rnn(Wv, xv, masks))
        num = np.zeros_like(Wv)
        eps = 1e-6
        for i in range(3):
            for j in range(3):
                d = np.zeros_like(Wv)
                d[i, j] = eps
                num[i, j] = (_numpy_rnn(Wv + d, xv, masks) - _numpy_rnn(Wv - d, xv, masks)) / (
                    2 * eps)
        np.testing.assert_allclose(g, num, rtol=1e-6, atol=1e-8)


def test_rop_uses_the_forward_draws():
    srng, W, x, hs, upd = _dropout_rnn(4)
    V = tt.dmatrix("V")
    jv = theon.Rop(hs, W, V)
    f = theon.function([x, V], [hs, jv], updates=upd)
    xv = np.random.default_rng(2).normal(size=(4, 3))
    Vv = np.random.default_rng(3).normal(size=(3, 3))
    (rng,) = upd
    gen = copy.deepcopy(rng.get_value())
    masks = [gen.binomial(1, 0.5, size=(3,)).astype(float) for _ in range(4)]
    Wv = W.get_value()

    def fwd(Wm):
        h, out = np.zeros(3), []
        for t in range(4):
            h = np.tanh(h @ Wm + xv[t]) * masks[t]
            out.append(h)
        return np.array(out)

    got_h, got_jv = f(xv, Vv)
    np.testing.assert_allclose(got_h, fwd(Wv))
    eps = 1e-6
    np.testing.assert_allclose(got_jv, (fwd(Wv + eps * Vv) - fwd(Wv - eps * Vv)) / (2 * eps),
                               rtol=1e-6, atol=1e-8)


def test_draw_parameters_get_no_gradient_through_the_draw():
    rng = theon.shared(np.random.default_rng(0))
    mu = tt.dscalar("mu")

    def step(acc):
        nxt, e = tr.normal(mu, 1.0, rng=rng, return_next_rng=True)
        return acc + e, {rng: nxt}

    out, _ = theon.scan(step, outputs_info=tt.constant(0.0), n_steps=3)
    with pytest.raises(Exception, match="no gradient with respect to its parameters"):
        theon.grad(out[-1], mu)


def test_unused_recorded_draws_are_pruned():
    _, W, x, hs, upd = _dropout_rnn(7)
    f = theon.function([x], hs, updates=upd)
    (node,) = [n for n in f.maker.fgraph.apply_nodes if isinstance(n.op, Scan)]
    assert node.op.info.n_nit == 0 and node.op.info.n_carried == 1


def test_a_generator_update_must_be_a_generator():
    rng = theon.shared(np.random.default_rng(0), name="rng")
    with pytest.raises(TypeError, match="'rng'.*not a RandomGeneratorType"):
        theon.scan(lambda a: (a + 1, {rng: a}), outputs_info=tt.constant(0.0), n_steps=2)


def test_draws_made_before_the_loop_feed_scan():
    rng = theon.shared(np.random.default_rng(5))
    nxt, noise = tr.normal(0.0, 1.0, size=(4, 2), rng=rng, return_next_rng=True)
    outs, upd = theon.scan(lambda e, acc: acc + e, sequences=[noise],
                           outputs_info=[tt.zeros((2,))])
    f = theon.function([], outs, updates={rng: nxt, **upd})
    ref = np.random.default_rng(5)
    a, b = f(), f()
    np.testing.assert_allclose(a, np.cumsum(ref.normal(size=(4, 2)), axis=0))
    np.testing.assert_allclose(b, np.cumsum(ref.normal(size=(4, 2)), axis=0))
    rng.set_value(np.random.default_rng(5))
    np.testing.assert_allclose(f(), a)
