"""The push-out rewrites and the backward loop reading stored rows: they fire, keep values."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
from theon.scan import Scan

PLAIN = theon.Mode(linker="vm", optimizer=None)


def scans(f):
    return [n for n in f.maker.fgraph.toposort() if isinstance(n.op, Scan)]


def body_ops(op):
    return [type(n.op).__name__ for n in op.fgraph.toposort()]


def rnn_graph():
    """A tanh RNN: loss = mean(h_T); gradients wrt W_in, W_h, b."""
    xs, h0 = tt.dtensor3("xs"), tt.dmatrix("h0")
    w_in, w_h, b = tt.dmatrix("W_in"), tt.dmatrix("W_h"), tt.dvector("b")
    hs, _ = theon.scan(lambda x, h, wi, wh, bb: tt.tanh(tt.dot(x, wi) + tt.dot(h, wh) + bb),
                       sequences=xs, outputs_info=h0, non_sequences=[w_in, w_h, b])
    loss = hs[-1].mean()
    return [xs, h0, w_in, w_h, b], [loss, *theon.grad(loss, [w_in, w_h, b])]


def rnn_numpy(xs, h0, w_in, w_h, b):
    """Forward loop and hand-written BPTT."""
    hs = [h0]
    for x in xs:
        hs.append(np.tanh(x @ w_in + hs[-1] @ w_h + b))
    g_in, g_h, g_b = np.zeros_like(w_in), np.zeros_like(w_h), np.zeros_like(b)
    dh = np.full_like(h0, 1.0 / h0.size)
    for t in range(len(xs), 0, -1):
        da = dh * (1.0 - hs[t] ** 2)
        g_in += xs[t - 1].T @ da
        g_h += hs[t - 1].T @ da
        g_b += da.sum(axis=0)
        dh = da @ w_h.T
    return [hs[-1].mean(), g_in, g_h, g_b]


def rnn_data(rng, n, batch, n_in, hid, scale=1.0):
    return (rng.normal(size=(n, batch, n_in)), rng.normal(size=(batch, hid)),
            scale * rng.normal(size=(n_in, hid)) / np.sqrt(n_in),
            scale * rng.normal(size=(hid, hid)) / np.sqrt(hid), 0.1 * rng.normal(size=hid))


def test_rnn_rewrites_fire_and_agree_with_numpy():
    ins, outs = rnn_graph()
    f = theon.function(ins, outs)
    fwd, bwd = sorted(scans(f), key=lambda n: n.op.name or "")
    assert bwd.op.name == "grad_of_scan"
    # forward: dot(x_t, W_in) + b left the loop; one product per step remains
    assert body_ops(fwd.op).count("Dot") == 1
    assert fwd.op.info.n_nonseqs == 1  # W_h only: W_in and b are used outside
    # backward: the three accumulators left the loop; only the carry is left
    assert bwd.op.info.n_states == 1 and bwd.op.info.n_nit == 1
    # and it does not recompute the forward step: no tanh in its body
    assert all("tanh" not in str(n.op) for n in bwd.op.fgraph.toposort())
    args = rnn_data(np.random.default_rng(0), 7, 3, 4, 5)
    for got, want in zip(f(*args), rnn_numpy(*args)):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_backward_reads_the_stored_rows_not_recomputing_them():
    ins, outs = rnn_graph()
    grad_scans = [v.owner for v in theon.graph.traversal.ancestors(outs[1:])
                  if v.owner is not None and isinstance(v.owner.op, Scan)
                  and v.owner.op.name == "grad_of_scan"]
    assert grad_scans
    ops = [str(n.op) for n in grad_scans[0].op.fgraph.toposort()]
    assert not any("tanh" in o for o in ops), ops
    args = rnn_data(np.random.default_rng(1), 5, 2, 3, 4)
    got = theon.function(ins, outs, mode=PLAIN)(*args)
    for g, w in zip(got, rnn_numpy(*args)):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


@settings(max_examples=12, deadline=None)
@given(n=st.integers(1, 6), batch=st.integers(1, 3), n_in=st.integers(1, 4),
       hid=st.integers(1, 4), seed=st.integers(0, 2**16), scale=st.sampled_from([0.1, 1.0, 8.0]))
def test_rnn_rewritten_matches_unrewritten_vm(n, batch, n_in, hid, seed, scale):
    ins, outs = rnn_graph()
    args = rnn_data(np.random.default_rng(seed), n, batch, n_in, hid, scale)
    fast = theon.function(ins, outs)(*args)
    ref = theon.function(ins, outs, mode=PLAIN)(*args)
    # the rewritten loops add in another order: equal to rounding
    for a, b in zip(fast, ref):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    for a, b in zip(fast, rnn_numpy(*args)):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def test_verify_grad_through_the_rewritten_graph():
    rng = np.random.default_rng(3)
    xs, h0 = rng.normal(size=(6, 2, 3)), rng.normal(size=(2, 4))

    def loss(w_in, w_h, b):
        hs, _ = theon.scan(lambda x, h, wi, wh, bb: tt.tanh(tt.dot(x, wi) + tt.dot(h, wh) + bb),
                           sequences=tt.constant(xs), outputs_info=tt.constant(h0),
                           non_sequences=[w_in, w_h, b])
        return hs[-1].mean()

    for scale in (0.5, 6.0):  # 6: saturated tanh, tiny derivatives
        theon.verify_grad(loss, [scale * rng.normal(size=(3, 4)), scale * rng.normal(size=(4, 4)),
                                 rng.normal(size=4)], rng=np.random.default_rng(4))


def sum_accumulator():
    """acc_t = acc_{t-1} + x_t.sum(0) + dot(x_t.T, y_t): only the final value is used."""
    xs, ys, a0 = tt.dtensor3("xs"), tt.dtensor3("ys"), tt.dmatrix("a0")
    accs, _ = theon.scan(lambda x, y, acc: acc + x.sum(0) + tt.dot(x.T, y),
                         sequences=[xs, ys], outputs_info=a0)
    return [xs, ys, a0], accs[-1]


def test_pushout_acc_fires_on_a_sum_and_a_product():
    ins, out = sum_accumulator()
    f = theon.function(ins, out)
    assert not scans(f)  # both terms left the loop, and then the loop had nothing to do
    rng = np.random.default_rng(5)
    xs, ys, a0 = rng.normal(size=(9, 3, 4)), rng.normal(size=(9, 3, 4)), rng.normal(size=(4, 4))
    want = a0.copy()
    for x, y in zip(xs, ys):
        want = want + x.sum(0) + x.T @ y
    np.testing.assert_allclose(f(xs, ys, a0), want, rtol=1e-12)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 5), b=st.integers(1, 3), k=st.integers(1, 3), seed=st.integers(0, 999))
def test_pushout_acc_matches_unrewritten_vm(n, b, k, seed):
    ins, out = sum_accumulator()
    rng = np.random.default_rng(seed)
    args = (rng.normal(size=(n, b, k)), rng.normal(size=(n, b, k)), rng.normal(size=(k, k)))
    np.testing.assert_allclose(theon.function(ins, out)(*args),
                               theon.function(ins, out, mode=PLAIN)(*args), rtol=1e-10,
                               atol=1e-12)


def test_accumulator_read_by_the_step_stays_in_the_loop():
    xs, a0 = tt.dtensor3("xs"), tt.dmatrix("a0")
    # acc appears in the added term too: the sum over steps has no closed form here
    accs, _ = theon.scan(lambda x, acc: acc + tt.dot(x.T, tt.tanh(x) * acc.sum()),
                         sequences=xs, outputs_info=a0)
    f = theon.function([xs, a0], accs[-1])
    (node,) = scans(f)
    assert node.op.info.n_states == 1
    rng = np.random.default_rng(6)
    x, a = rng.normal(size=(4, 2, 3)), 0.1 * rng.normal(size=(3, 3))
    want = a.copy()
    for xt in x:
        want = want + xt.T @ (np.tanh(xt) * want.sum())
    np.testing.assert_allclose(f(x, a), want, rtol=1e-12)


def test_elementwise_sequence_work_stays_in_the_loop():
    xs, h0 = tt.dmatrix("xs"), tt.dvector("h0")
    hs, _ = theon.scan(lambda x, h: h * tt.exp(x), sequences=xs, outputs_info=h0)
    f = theon.function([xs, h0], hs[-1])
    (node,) = scans(f)
    assert node.op.info.n_seqs == 1 and "exp" in str(node.op.fgraph.toposort())
    x, h = np.random.default_rng(7).normal(size=(5, 3)), np.ones(3)
    np.testing.assert_allclose(f(x, h), h * np.exp(x.sum(0)), rtol=1e-12)


def test_pushout_seqs_with_a_longer_sequence_and_go_backwards():
    xs, h0, w = tt.dtensor3("xs"), tt.dmatrix("h0"), tt.dmatrix("w")
    hs, _ = theon.scan(lambda x, h, w: tt.tanh(tt.dot(x, w) + h), sequences=xs,
                       outputs_info=h0, non_sequences=w, n_steps=3, go_backwards=True)
    f = theon.function([xs, h0, w], hs)
    (node,) = scans(f)
    assert body_ops(node.op).count("Dot") == 0
    rng = np.random.default_rng(8)
    x, wv = rng.normal(size=(5, 2, 3)), rng.normal(size=(3, 4))
    got = f(x, np.zeros((2, 4)), wv)
    h = np.zeros((2, 4))
    want = []
    for xt in x[::-1][:3]:  # the last n_steps rows, last first (Theano's go_backwards)
        h = np.tanh(xt @ wv + h)
        want.append(h)
    np.testing.assert_allclose(got, np.array(want), rtol=1e-12)
    np.testing.assert_allclose(got, theon.function([xs, h0, w], hs, mode=PLAIN)(
        x, np.zeros((2, 4)), wv), rtol=1e-12)
