"""BPTT of a loss that reads only the last state (``hs[-1]``): the output gradient is
zero except its last row, which enters the backward loop as its initial carry instead
of as a zero-filled sequence.  Values against a NumPy BPTT, finite differences, and the
general path for other rows."""

from __future__ import annotations

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.graph.traversal import ancestors
from theon.scan import Scan
from theon.scan.grad import _last_row

VM = theon.Mode(linker="vm")


def rnn(xs, h0, w_in, w_h, b, truncate=-1):
    hs, _ = theon.scan(lambda x, h, wi, wh, bb: tt.tanh(tt.dot(x, wi) + tt.dot(h, wh) + bb),
                       sequences=xs, outputs_info=h0, non_sequences=[w_in, w_h, b],
                       truncate_gradient=truncate)
    return hs


def symbols():
    return [tt.dtensor3("xs"), tt.dmatrix("h0"), tt.dmatrix("W_in"), tt.dmatrix("W_h"),
            tt.dvector("b")]


def data(seed, n=6, batch=3, n_in=4, hid=5, scale=1.0):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(n, batch, n_in)), rng.normal(size=(batch, hid)),
            scale * rng.normal(size=(n_in, hid)) / np.sqrt(n_in),
            scale * rng.normal(size=(hid, hid)) / np.sqrt(hid), 0.1 * rng.normal(size=hid)]


def numpy_bptt(coef, xs, h0, w_in, w_h, b, truncate=-1):
    """loss = sum(coef * hs) (hs: the n states after h0) and its gradients wrt
    (h0, W_in, W_h, b), by a forward loop and hand-written BPTT."""
    hs = [h0]
    for x in xs:
        hs.append(np.tanh(x @ w_in + hs[-1] @ w_h + b))
    n = len(xs)
    first = 0 if truncate == -1 else max(n - truncate, 0)  # first step run backwards
    g_in, g_h, g_b = np.zeros_like(w_in), np.zeros_like(w_h), np.zeros_like(b)
    dh = np.zeros_like(h0)
    for t in range(n, first, -1):
        da = (dh + coef[t - 1]) * (1.0 - hs[t] ** 2)
        g_in += xs[t - 1].T @ da
        g_h += hs[t - 1].T @ da
        g_b += da.sum(axis=0)
        dh = da @ w_h.T
    g_h0 = dh if first == 0 else np.zeros_like(h0)
    return float((coef * np.array(hs[1:])).sum()), [g_h0, g_in, g_h, g_b]


def grad_scan(outs):
    nodes = {v.owner: None for v in ancestors(outs) if v.owner is not None
             and isinstance(v.owner.op, Scan) and v.owner.op.name == "grad_of_scan"}
    return list(nodes)


def inner_names(node):
    return [v.name for v in node.op.inner_inputs]


@pytest.mark.parametrize("truncate", [-1, 2, 100])
def test_last_row_loss_matches_numpy_bptt(truncate):
    ins = symbols()
    hs = rnn(*ins, truncate=truncate)
    loss = hs[-1].mean()
    f = theon.function(ins, [loss, *theon.grad(loss, ins[1:])])
    args = data(0)
    coef = np.zeros((6, 3, 5))
    coef[-1] = 1.0 / 15
    want_loss, want = numpy_bptt(coef, *args, truncate=truncate)
    got = f(*args)
    np.testing.assert_allclose(got[0], want_loss, rtol=1e-12)
    for g, w in zip(got[1:], want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-13)


def test_zero_gradient_sequence_is_gone():
    ins = symbols()
    loss = rnn(*ins)[-1].mean()
    grads = theon.grad(loss, ins[2:])
    (node,) = grad_scan(grads)
    assert not any(name and name.startswith("gS") for name in inner_names(node))
    # and the compiled backward loop has one sequence left: the stored forward rows
    f = theon.function(ins, grads)
    (bwd,) = [n for n in f.maker.fgraph.toposort()
              if isinstance(n.op, Scan) and n.op.name == "grad_of_scan"]
    assert bwd.op.info.n_seqs == 1
    assert not any("IncSubtensor" in str(v.owner.op) for v in ancestors(bwd.inputs)
                   if v.owner is not None)


@pytest.mark.parametrize("pick", ["second_last", "middle", "last_plus_all", "two_rows"])
def test_other_rows_keep_the_general_path(pick):
    ins = symbols()
    hs = rnn(*ins)
    coef = np.zeros((6, 3, 5))
    if pick == "second_last":
        loss = hs[-2].sum()
        coef[-2] = 1.0
    elif pick == "middle":
        loss = hs[2].sum()
        coef[2] = 1.0
    elif pick == "last_plus_all":
        loss = hs[-1].sum() + hs.sum()
        coef += 1.0
        coef[-1] += 1.0
    else:
        loss = hs[-1].sum() + 2.0 * hs[0].sum()
        coef[-1] = 1.0
        coef[0] = 2.0
    grads = theon.grad(loss, ins[1:])
    (node,) = grad_scan(grads)
    assert any(name and name.startswith("gS") for name in inner_names(node))
    f = theon.function(ins, [loss, *grads])
    args = data(1)
    want_loss, want = numpy_bptt(coef, *args)
    got = f(*args)
    np.testing.assert_allclose(got[0], want_loss, rtol=1e-12)
    for g, w in zip(got[1:], want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-13)


def test_one_step_and_the_initial_state_gradient():
    ins = symbols()
    loss = (rnn(*ins)[-1] ** 2).sum()
    f = theon.function(ins, theon.grad(loss, ins[1:]))
    args = data(2, n=1)
    hs1 = np.tanh(args[0][0] @ args[2] + args[1] @ args[3] + args[4])
    _, want = numpy_bptt(2.0 * hs1[None], *args)
    for g, w in zip(f(*args), want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("scale", [1.0, 8.0])
def test_verify_grad_last_row(scale):
    xs = data(3, n=4, batch=2, n_in=3, hid=3, scale=scale)[0]
    theon.verify_grad(lambda h0, wi, wh, b: (rnn(tt.constant(xs), h0, wi, wh, b)[-1] ** 2).sum(),
                      data(3, n=4, batch=2, n_in=3, hid=3, scale=scale)[1:],
                      rng=np.random.default_rng(4))


def test_reference_vm_agrees():
    ins = symbols()
    loss = rnn(*ins)[-1].mean()
    outs = [loss, *theon.grad(loss, ins[1:])]
    args = data(5)
    for a, b in zip(theon.function(ins, outs)(*args), theon.function(ins, outs, mode=VM)(*args),
                    strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_last_row_recogniser():
    x = tt.dtensor3("x")
    g = tt.dmatrix("g")
    z = tt.zeros_like(x)
    assert _last_row(tt.set_subtensor(z[-1], g)) is g
    assert _last_row(tt.inc_subtensor(z[1:], tt.inc_subtensor(z[1:][-1], g))) is g
    z1 = tt.zeros_like(x[1:])  # the form theon.grad builds for hs[-1], hs = buf[1:]
    assert _last_row(tt.inc_subtensor(z[1:], tt.inc_subtensor(z1[-1], g))) is g
    assert _last_row(tt.set_subtensor(tt.alloc(0.0, 3, 2, 2)[-1], g)) is g
    assert _last_row(tt.set_subtensor(z[-1:], g)) is g
    assert _last_row(tt.set_subtensor(z[-2], g)) is None
    assert _last_row(tt.set_subtensor(z[-2:], g)) is None  # broadcast to two rows
    assert _last_row(tt.set_subtensor(x[-1], g)) is None  # base not zero
    assert _last_row(tt.inc_subtensor(z[:-1], tt.set_subtensor(z[:-1][-1], g))) is None
    assert _last_row(z + 1) is None
