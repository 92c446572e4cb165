"""Scan's connection pattern: read from the body through the recurrences."""

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.gradient import DisconnectedInputError
from theon.gradient.core import connection_pattern
from theon.scan.op import Scan, ScanInfo

RNG = np.random.default_rng(5)


def scan_node(v):
    node = v.owner
    while not isinstance(node.op, Scan):
        node = node.inputs[0].owner
    return node


def chain():
    """Three states: a reads b, b reads c, c reads w; a nit-sot y reads only a; u unused."""
    a0, b0, c0 = tt.dvector("a0"), tt.dvector("b0"), tt.dvector("c0")
    w, u, x = tt.dscalar("w"), tt.dscalar("u"), tt.dvector("x")

    def step(xt, a, b, c, w, u):
        return [a + 0.5 * tt.sin(b), b * 0.9 + 0.1 * c, c * w + xt, a * 2.0]

    (as_, bs, cs, ys), _ = theon.scan(step, sequences=x, outputs_info=[a0, b0, c0, None],
                                      non_sequences=[w, u])
    return (a0, b0, c0, w, u, x), (as_, bs, cs, ys)


def test_pattern_follows_the_recurrences_to_a_fixed_point():
    _, (as_, bs, cs, ys) = chain()
    node = scan_node(as_)
    # inputs: n_steps, x, a0, b0, c0, w, u; outputs: a, b, c, y
    want = [
        [False, False, False, False],  # n_steps: only the length
        [True, True, True, True],      # x -> c -> b -> a -> y
        [True, False, False, True],    # a0 -> a -> y
        [True, True, False, True],     # b0 -> b -> a
        [True, True, True, True],      # c0
        [True, True, True, True],      # w
        [False, False, False, False],  # u: never read
    ]
    assert connection_pattern(node) == want


def test_grad_wrt_unused_inputs_is_disconnected():
    (a0, b0, c0, w, u, x), (as_, bs, cs, ys) = chain()
    with pytest.raises(DisconnectedInputError, match="'u'"):
        theon.grad(ys.sum(), u)
    with pytest.raises(DisconnectedInputError, match="'a0'"):
        theon.grad(cs.sum(), a0)  # c reads neither a nor b
    g = theon.grad(ys.sum(), [u, a0], disconnected_inputs="ignore")
    f = theon.function([a0, b0, c0, w, u, x], g, on_unused_input="ignore")
    gu, ga = f(np.ones(2), np.ones(2), np.ones(2), 0.5, 0.3, np.ones(4))
    assert float(gu) == 0.0 and np.all(ga != 0.0)
    (d,) = theon.grad(cs.sum(), [a0], disconnected_inputs="ignore",
                      return_disconnected="Disconnected")
    assert type(d.type).__name__ == "DisconnectedType"


def test_grad_of_connected_inputs_through_the_chain():
    def through(a0, b0, c0, w, x):
        def step(xt, a, b, c, w):
            return [a + 0.5 * tt.sin(b), b * 0.9 + 0.1 * c, c * w + xt, a * 2.0]

        (_, _, _, ys), _ = theon.scan(step, sequences=x, outputs_info=[a0, b0, c0, None],
                                      non_sequences=[w])
        return ys.sum()

    pt = [RNG.normal(size=2), RNG.normal(size=2), RNG.normal(size=2), np.array(0.7),
          RNG.normal(size=5)]
    theon.verify_grad(through, pt, rng=np.random.default_rng(0))
    # and at larger values (sin far from its linear part, w making c grow)
    theon.verify_grad(through, [p * 4.0 for p in pt[:3]] + [np.array(1.3), pt[4] * 4.0],
                      rng=np.random.default_rng(1))


def test_grad_wrt_unused_sequence_raises_and_used_one_is_right():
    x, z, h0 = tt.dvector("x"), tt.dvector("z"), tt.dscalar("h0")
    hs, _ = theon.scan(lambda xt, zt, h: h * 0.5 + xt ** 2, sequences=[x, z], outputs_info=h0)
    with pytest.raises(DisconnectedInputError):
        theon.grad(hs.sum(), z)
    gx = theon.function([x, z, h0], theon.grad(hs.sum(), x), on_unused_input="ignore")
    xv = RNG.normal(size=4)
    # d/dx_t sum_s h_s with h_s = sum_{t<=s} 0.5^(s-t) x_t^2
    want = np.array([2 * xv[t] * sum(0.5 ** (s - t) for s in range(t, 4)) for t in range(4)])
    np.testing.assert_allclose(gx(xv, xv, 1.0), want, rtol=1e-12)


def test_while_loop_condition_connects_every_output():
    h, lim = tt.dscalar("h"), tt.dscalar("lim")
    op = Scan([h, lim], [h * 2.0, h > lim], ScanInfo(state_taps=((-1,),), n_nonseqs=1,
                                                     as_while=True))
    out = op(tt.constant(5, dtype="int64"), tt.dvector("h0"), lim)
    assert connection_pattern(out.owner) == [[False], [True], [True]]
