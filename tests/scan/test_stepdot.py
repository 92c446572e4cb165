"""``StepDotSum`` (sum_t A[t].T @ B[t] by chunked BLAS products) and the push-out using it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
from theon.scan import Scan, stepdot
from theon.scan.stepdot import StepDotSum, chunked_step_dot_sum, step_dot_sum
from theon.tensor.blas import MatMul

PLAIN = theon.Mode(linker="vm", optimizer=None)


def loop_ref(a, b):
    """The sum of the steps' products, one step at a time."""
    acc = np.zeros((a.shape[2], b.shape[2]))
    for x, y in zip(a, b):
        acc = acc + x.T @ y
    return acc


@pytest.mark.parametrize("macs", [1, 7, 64, None])
@pytest.mark.parametrize("flip", [(False, False), (True, False), (False, True), (True, True)])
def test_chunks_and_reversed_views_agree_with_a_loop(macs, flip):
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(11, 3, 4)), rng.normal(size=(11, 3, 5))
    if flip[0]:
        a = a[::-1]
    if flip[1]:
        b = b[::-1]
    got = chunked_step_dot_sum(a, b, np.float64, macs)
    np.testing.assert_allclose(got, loop_ref(a, b), rtol=1e-12, atol=1e-12)


def test_transposed_and_strided_operands():
    rng = np.random.default_rng(1)
    u = rng.normal(size=(6, 5, 3))
    a = u.transpose(0, 2, 1)[:, :, ::2]  # (6, 3, 3), no flat view of its rows
    b = rng.normal(size=(12, 3, 2))[::2]
    np.testing.assert_allclose(chunked_step_dot_sum(a, b, np.float64, 10), loop_ref(a, b),
                               rtol=1e-12)


def test_empty_steps_and_rows_give_zeros():
    assert chunked_step_dot_sum(np.ones((0, 3, 2)), np.ones((0, 3, 4)), np.float64).shape == (2, 4)
    z = chunked_step_dot_sum(np.ones((5, 0, 2)), np.ones((5, 0, 4)), np.float64)
    assert z.shape == (2, 4) and not z.any()
    A, B = tt.dtensor3("A"), tt.dtensor3("B")
    f = theon.function([A, B], step_dot_sum(A, B))
    assert f(np.ones((0, 2, 3)), np.ones((0, 2, 1))).tolist() == [[0.0]] * 3


def test_dtype_is_the_upcast_one():
    A, B = tt.ftensor3("A"), tt.dtensor3("B")
    out = step_dot_sum(A, B)
    assert out.dtype == "float64"
    a = np.ones((3, 2, 2), dtype=np.float32)
    assert theon.function([A, B], out)(a, np.ones((3, 2, 1))).dtype == np.float64
    A32, B32 = tt.ftensor3("A"), tt.ftensor3("B")
    r = theon.function([A32, B32], step_dot_sum(A32, B32))(a, a)
    assert r.dtype == np.float32 and r.tolist() == [[6.0, 6.0], [6.0, 6.0]]


def test_bad_operands_are_refused():
    with pytest.raises(ValueError, match="does not fit"):
        step_dot_sum(tt.dmatrix("A"), tt.dmatrix("B"))
    with pytest.raises(ValueError, match="computes"):
        StepDotSum("ij,jk->ik")


def test_verify_grad():
    rng = np.random.default_rng(2)
    for scale in (1.0, 1e3):
        theon.verify_grad(step_dot_sum, [scale * rng.normal(size=(4, 3, 2)),
                                         rng.normal(size=(4, 3, 5))],
                          rng=np.random.default_rng(3))


def test_the_reference_vm_and_numpy_einsum_agree():
    rng = np.random.default_rng(4)
    A, B = tt.dtensor3("A"), tt.dtensor3("B")
    a, b = rng.normal(size=(9, 4, 3)), rng.normal(size=(9, 4, 2))
    out = step_dot_sum(A, B)
    want = np.einsum("trk,trm->km", a, b)
    np.testing.assert_allclose(theon.function([A, B], out)(a, b), want, rtol=1e-12)
    np.testing.assert_allclose(theon.function([A, B], out, mode=PLAIN)(a, b), want, rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 9), r=st.integers(0, 4), k=st.integers(1, 4), m=st.integers(1, 4),
       macs=st.integers(1, 200), rev_a=st.booleans(), rev_b=st.booleans(),
       seed=st.integers(0, 2**16))
def test_differential_against_einsum(n, r, k, m, macs, rev_a, rev_b, seed):
    rng = np.random.default_rng(seed)
    a, b = rng.normal(size=(n, r, k)), rng.normal(size=(n, r, m))
    a, b = (a[::-1] if rev_a else a), (b[::-1] if rev_b else b)
    got = chunked_step_dot_sum(a, b, np.float64, macs)
    np.testing.assert_allclose(got, np.einsum("trk,trm->km", a, b), rtol=1e-10, atol=1e-12)


def test_the_rnn_gradient_adds_no_zero_fills():
    from tests.scan.test_pushout import rnn_graph

    ins, outs = rnn_graph()
    f = theon.function(ins, outs)
    fills = [n for n in f.maker.fgraph.toposort() if str(n.op).startswith("Elemwise{second")
             and n.inputs[0] in f.maker.fgraph.inputs]
    assert not fills, fills


def test_the_bias_gradient_is_one_matrix_vector_product():
    """sum_t sum_i e_t[i, :] (the bias gradient) is ones @ (all steps' rows)."""
    from tests.scan.test_pushout import rnn_data, rnn_graph, rnn_numpy

    ins, outs = rnn_graph()
    f = theon.function(ins, outs)
    nodes = f.maker.fgraph.toposort()
    assert not [n for n in nodes if str(n.op).startswith("Sum{axis=(0, 1)")]
    assert any(str(n.op) == "Dot" and n.outputs[0].type.ndim == 1 for n in nodes)
    args = rnn_data(np.random.default_rng(7), 9, 4, 3, 5)
    np.testing.assert_allclose(f(*args)[3], rnn_numpy(*args)[3], rtol=1e-11, atol=1e-13)
    # float32 steps too
    xs, a0 = tt.ftensor3("xs"), tt.fvector("a0")
    accs, _ = theon.scan(lambda x, h, acc: [tt.tanh(h + x), acc + tt.tanh(h + x).sum(0)],
                         sequences=xs, outputs_info=[tt.zeros_like(xs[0]), a0])
    g = theon.function([xs, a0], accs[1][-1])
    assert any(str(n.op) == "Dot" for n in g.maker.fgraph.toposort())
    x = np.random.default_rng(8).normal(size=(6, 3, 2)).astype(np.float32)
    h, want = np.zeros((3, 2), np.float32), np.ones(2, np.float32)
    for row in x:
        h = np.tanh(h + row)
        want = want + h.sum(0)
    got = g(x, np.ones(2, np.float32))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_pushout_acc_makes_one_step_dot_sum_per_product(monkeypatch):
    """The rnn's weight gradients are StepDotSums (no batched MatMul summed over steps),
    and the values hold with chunks of one step and of several."""
    from tests.scan.test_pushout import rnn_data, rnn_graph, rnn_numpy

    ins, outs = rnn_graph()
    f = theon.function(ins, outs)
    nodes = f.maker.fgraph.toposort()
    assert sum(isinstance(n.op, StepDotSum) for n in nodes) == 2
    # the only MatMul left is the forward dot(X, W_in) pushed out of the loop
    assert sum(isinstance(n.op, MatMul) for n in nodes) == 1
    args = rnn_data(np.random.default_rng(5), 13, 3, 4, 5)
    for macs in (1, 100, 1 << 19):
        monkeypatch.setattr(stepdot, "CHUNK_MACS", macs)
        for got, want in zip(f(*args), rnn_numpy(*args)):
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_a_zero_initial_accumulator_is_not_added():
    """acc_0 = zeros: the pushed-out value is the sum itself (no fill, no addition)."""
    xs, ys = tt.dtensor3("xs"), tt.dtensor3("ys")
    zero = tt.zeros_like(tt.dot(xs[0].T, ys[0]))
    accs, _ = theon.scan(lambda x, y, acc: acc + tt.dot(x.T, y), sequences=[xs, ys],
                         outputs_info=zero)
    f = theon.function([xs, ys], accs[-1])
    ops = [str(n.op) for n in f.maker.fgraph.toposort()]
    assert not any(isinstance(n.op, Scan) for n in f.maker.fgraph.toposort())
    assert not any("second" in o or o.startswith("Elemwise{add") for o in ops), ops
    rng = np.random.default_rng(6)
    a, b = rng.normal(size=(7, 3, 2)), rng.normal(size=(7, 3, 4))
    np.testing.assert_allclose(f(a, b), loop_ref(a, b), rtol=1e-12)
    np.testing.assert_allclose(f(a, b), theon.function([xs, ys], accs[-1], mode=PLAIN)(a, b),
                               rtol=1e-12)
    # a non-zero start is still added
    a0 = tt.dmatrix("a0")
    accs1, _ = theon.scan(lambda x, y, acc: acc + tt.dot(x.T, y), sequences=[xs, ys],
                          outputs_info=a0)
    g = theon.function([xs, ys, a0], accs1[-1])
    start = rng.normal(size=(2, 4))
    np.testing.assert_allclose(g(a, b, start), start + loop_ref(a, b), rtol=1e-12)
