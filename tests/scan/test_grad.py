"""Gradients through scan (BPTT), truncate_gradient, R_op and second derivatives."""

from __future__ import annotations

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.gradient import NullTypeGradError
from theon.scan_module import until

RNG = np.random.default_rng(42)


def multi_tap_rnn(x, h0, W, U, go_backwards=False, truncate=-1):
    def step(xt, hm2, hm1, W, U):
        return tt.tanh(tt.dot(hm1, W) + 0.5 * tt.dot(hm2, U) + xt)

    hs, _ = theon.scan(step, sequences=x, outputs_info=dict(initial=h0, taps=[-2, -1]),
                       non_sequences=[W, U], go_backwards=go_backwards,
                       truncate_gradient=truncate)
    return hs


def rnn_values(scale=1.0):
    return [RNG.normal(size=(5, 3)) * scale, RNG.normal(size=(2, 3)) * scale,
            RNG.normal(size=(3, 3)) * 0.5, RNG.normal(size=(3, 3)) * 0.5]


@pytest.mark.parametrize("go_backwards", [False, True])
def test_verify_grad_multi_tap_rnn(go_backwards):
    theon.verify_grad(
        lambda x, h0, W, U: (multi_tap_rnn(x, h0, W, U, go_backwards) ** 2).sum(),
        rnn_values(), rng=np.random.default_rng(1),
    )


def test_verify_grad_multi_tap_rnn_saturated():
    theon.verify_grad(
        lambda x, h0, W, U: multi_tap_rnn(x, h0, W, U)[-1].sum(),
        rnn_values(scale=4.0), rng=np.random.default_rng(2),
    )


def test_verify_grad_sequence_taps_and_nit_outputs():
    def f(x, w):
        ys, zs = theon.scan(lambda a, b, c, w: [a * b + c * w, tt.sin(a) * w],
                            sequences=dict(input=x, taps=[-1, 0, 2]), non_sequences=w)[0]
        return (ys * ys).sum() + zs.sum()

    theon.verify_grad(f, [RNG.normal(size=7), np.array(0.7)], rng=np.random.default_rng(3))


def test_grad_only_last_step_of_scalar_recurrence():
    def f(a, x0):
        xs, _ = theon.scan(lambda x, a: x * a + tt.sin(x), outputs_info=x0, non_sequences=a,
                           n_steps=20)
        return xs[-1]

    theon.verify_grad(f, [np.array(0.5), np.array(0.1)], rng=np.random.default_rng(4))


def test_grad_wrt_shared_weight_and_matches_numpy_bptt():
    W = theon.shared(RNG.normal(size=(3, 3)) * 0.5, name="W")
    X, h0 = tt.dmatrix("X"), tt.dvector("h0")
    hs, _ = theon.scan(lambda x, h: tt.tanh(tt.dot(W, h) + x), sequences=X, outputs_info=h0)
    cost = hs[-1].sum()
    gW, gX, gh0 = theon.grad(cost, [W, X, h0])
    Xv, h0v = RNG.normal(size=(4, 3)), RNG.normal(size=3)
    got = theon.function([X, h0], [gW, gX, gh0])(Xv, h0v)
    # NumPy BPTT
    Wv = W.get_value()
    hs_v = [h0v]
    for x in Xv:
        hs_v.append(np.tanh(Wv @ hs_v[-1] + x))
    a = np.ones(3)
    rW, rX = np.zeros_like(Wv), np.zeros_like(Xv)
    for t in range(len(Xv) - 1, -1, -1):
        d = a * (1 - hs_v[t + 1] ** 2)
        rW += np.outer(d, hs_v[t])
        rX[t] = d
        a = Wv.T @ d
    np.testing.assert_allclose(got[0], rW, rtol=1e-10)
    np.testing.assert_allclose(got[1], rX, rtol=1e-10)
    np.testing.assert_allclose(got[2], a, rtol=1e-10)


@pytest.mark.parametrize("T", [1, 2, 3, 10])
def test_truncate_gradient_matches_numpy_truncated_bptt(T):
    X, h0, W = tt.dmatrix("X"), tt.dvector("h0"), tt.dmatrix("W")
    hs, _ = theon.scan(lambda x, h, W: tt.tanh(tt.dot(W, h) + x), sequences=X, outputs_info=h0,
                       non_sequences=W, truncate_gradient=T)
    cost = (hs**2).sum()
    grads = theon.grad(cost, [W, X, h0])
    Xv, h0v, Wv = RNG.normal(size=(5, 3)), RNG.normal(size=3), RNG.normal(size=(3, 3)) * 0.5
    got = theon.function([X, h0, W], grads)(Xv, h0v, Wv)
    n = len(Xv)
    hs_v = [h0v]
    for x in Xv:
        hs_v.append(np.tanh(Wv @ hs_v[-1] + x))
    # truncated BPTT: only steps t >= n - T send gradients back
    rW, rX, carry = np.zeros_like(Wv), np.zeros_like(Xv), np.zeros(3)
    for t in range(n - 1, max(n - T, 0) - 1, -1):
        a = 2 * hs_v[t + 1] + carry
        d = a * (1 - hs_v[t + 1] ** 2)
        rW += np.outer(d, hs_v[t])
        rX[t] = d
        carry = Wv.T @ d
    rh0 = carry if T >= n else np.zeros(3)
    np.testing.assert_allclose(got[0], rW, rtol=1e-10)
    np.testing.assert_allclose(got[1], rX, rtol=1e-10)
    np.testing.assert_allclose(got[2], rh0, rtol=1e-10, atol=1e-300)
    if T < n:  # the truncated gradient really differs from the full one
        full = theon.function([X, h0, W], theon.grad(
            (multi_free_rnn(X, h0, W) ** 2).sum(), W))(Xv, h0v, Wv)
        assert not np.allclose(full, got[0])


def multi_free_rnn(X, h0, W):
    return theon.scan(lambda x, h, W: tt.tanh(tt.dot(W, h) + x), sequences=X, outputs_info=h0,
                      non_sequences=W)[0]


def test_hessian_vector_product_through_scan():
    X, H0, W, U, V = (tt.dmatrix(n) for n in ("X", "H0", "W", "U", "V"))
    hs = multi_tap_rnn(X, H0, W, U)
    cost = (hs**2).sum()
    gW = theon.grad(cost, W)
    hvp = theon.grad((gW * V).sum(), W)
    xv, h0v, Wv, Uv = rnn_values()
    Vv = RNG.normal(size=(3, 3))
    got = theon.function([X, H0, W, U, V], hvp)(xv, h0v, Wv, Uv, Vv)
    fg = theon.function([X, H0, W, U], gW)
    eps = 1e-6
    num = (fg(xv, h0v, Wv + eps * Vv, Uv) - fg(xv, h0v, Wv - eps * Vv, Uv)) / (2 * eps)
    np.testing.assert_allclose(got, num, rtol=1e-6, atol=1e-8)


def test_verify_grad_of_the_gradient():
    """Second derivatives: the gradient (a backward Scan) is itself differentiable."""

    def g(a, x0):
        xs, _ = theon.scan(lambda x, a: x * a + tt.sin(x), outputs_info=x0, non_sequences=a,
                           n_steps=6)
        return theon.grad(xs[-1], a) + theon.grad((xs**2).sum(), x0)

    theon.verify_grad(g, [np.array(0.4), np.array(0.3)], rng=np.random.default_rng(5))


def test_rop_through_scan_matches_finite_differences():
    X, H0, W, U, V = (tt.dmatrix(n) for n in ("X", "H0", "W", "U", "V"))
    hs = multi_tap_rnn(X, H0, W, U)
    r = theon.Rop(hs, [W, H0], [V, tt.ones_like(H0)])
    xv, h0v, Wv, Uv = rnn_values()
    Vv = RNG.normal(size=(3, 3))
    got = theon.function([X, H0, W, U, V], r)(xv, h0v, Wv, Uv, Vv)
    fh = theon.function([X, H0, W, U], hs)
    eps = 1e-6
    num = (fh(xv, h0v + eps, Wv + eps * Vv, Uv) - fh(xv, h0v - eps, Wv - eps * Vv, Uv)) / (
        2 * eps)
    np.testing.assert_allclose(got, num, rtol=1e-6, atol=1e-8)
    # the product comes from the Scan's own R_op (one forward loop), not the transpose trick
    ops = {type(n.op).__name__ for n in theon.graph.traversal.toposort([r])}
    assert "Scan" in ops
    scans = [n.op for n in theon.graph.traversal.toposort([r]) if type(n.op).__name__ == "Scan"]
    assert any((s.name or "").startswith("rop_of") for s in scans)


def test_grad_through_while_loop_is_an_error():
    x0 = tt.dscalar("x0")
    out, _ = theon.scan(lambda p: (2 * p, until(p > 10)), outputs_info=x0, n_steps=10)
    with pytest.raises(NullTypeGradError, match="while loop"):
        theon.grad(out[-1], x0)


# issue 29 item 4: a state the step returns unchanged ---------------------------------
@pytest.mark.parametrize("mode", [theon.Mode(linker="vm", optimizer=None), theon.Mode(linker="py")])
def test_issue29_item4_grad_through_passthrough_state(mode):
    """``lambda a, b: (a * 2, b)`` from ``a0``, ``b0`` for 3 steps: ``a = a0 * [2, 4, 8]``,
    ``b = b0 * [1, 1, 1]``, so ``d sum(a + b) / d a0 = 14`` and ``/ d b0 = 3`` (by hand).
    It raised ``MissingInputError: b0[t-1]``."""
    a0, b0 = tt.dscalar("a0"), tt.dscalar("b0")
    (a, b), _ = theon.scan(lambda a, b: (a * 2, b), outputs_info=[a0, b0], n_steps=3)
    ga, gb = theon.grad((a + b).sum(), [a0, b0])
    f = theon.function([a0, b0], [ga, gb, a, b], mode=mode)
    got = f(1.0, 1.0)
    assert float(got[0]) == 14.0 and float(got[1]) == 3.0
    np.testing.assert_array_equal(got[2], [2.0, 4.0, 8.0])
    np.testing.assert_array_equal(got[3], [1.0, 1.0, 1.0])
    # the state passed through alone, and as the only state read
    (gb_only,) = theon.grad(b.sum() * b0, [b0])
    assert float(theon.function([a0, b0], gb_only, mode=mode, on_unused_input="ignore")(
        1.0, 2.0)) == 12.0  # d (3 b0 * b0) / d b0 = 6 b0


PASSTHROUGH_STEPS = {
    "unchanged": lambda a, b: (a * 2, b),
    "read_by_other": lambda a, b: (a * b + tt.sin(a), b),
    "swap_scaled": lambda a, b: (b, a * 1.5),
    "swap": lambda a, b: (b, a),
    "both_unchanged": lambda a, b: (a, b),
}


@pytest.mark.parametrize("name", sorted(PASSTHROUGH_STEPS))
def test_issue29_item4_verify_grad_passthrough_states(name):
    """Vector states returned unchanged (or swapped), against finite differences."""
    step = PASSTHROUGH_STEPS[name]

    def f(a0, b0):
        (a, b), _ = theon.scan(step, outputs_info=[a0, b0], n_steps=4)
        return (a * tt.arange(1, 5)[:, None] + b ** 2).sum()

    rng = np.random.default_rng(29)
    theon.verify_grad(f, [rng.normal(size=3), rng.normal(size=3)], rng=np.random.default_rng(4))


def test_issue29_item4_verify_grad_passthrough_sequence_nonsequence_and_taps():
    """Outputs that are a sequence's row, a non-sequence, or a state two steps back."""
    rng = np.random.default_rng(30)

    def f(u, w, h0):
        (h, y, z), _ = theon.scan(lambda s, h, w: (h * w + s, s, w), sequences=u,
                                  outputs_info=[h0, None, None], non_sequences=w)
        return (h ** 2).sum() + (y * 3).sum() + (z * tt.arange(1, 5)[:, None]).sum()

    theon.verify_grad(f, [rng.normal(size=(4, 3)), rng.normal(size=3), rng.normal(size=3)],
                      rng=np.random.default_rng(5))

    def g(x0, c):
        (r, q), _ = theon.scan(lambda a, b, c: [a, b * c],
                               outputs_info=[dict(initial=x0, taps=[-2]), c * 1.0],
                               non_sequences=c, n_steps=5)
        return (r * tt.arange(1, 6)).sum() + q.sum()

    theon.verify_grad(g, [rng.normal(size=2), np.array(0.7)], rng=np.random.default_rng(6))
