"""The generated per-step loop (theon.scan.steploop) for array rows: it is used where it
applies, gives bit-identical results to the generic loop, and keeps its errors."""

from __future__ import annotations

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.scan import Scan
from theon.scan.op import _UNSET

RNG = np.random.default_rng(7)


def scan_nodes(f):
    return [n for n in f.maker.fgraph.toposort() if isinstance(n.op, Scan)]


def run_both(ins, outs, args, mode=None):
    """Outputs with the generated loops, then with every Scan forced to the generic loop."""
    f = theon.function(ins, outs, mode=mode)
    got = f(*args)
    nodes = scan_nodes(f)
    used = [n.op.compiled_body(n).step_loop for n in nodes]
    for n in nodes:
        n.op.compiled_body(n).step_loop = None
    try:
        want = f(*args)
    finally:
        for n in nodes:
            n.op.compiled_body(n).step_loop = _UNSET
    return got, want, used


def two_state_graph():
    """Two matrix states (one kept whole, one only last), a sequence, a nit-sot output."""
    xs, a0, b0, w = tt.dtensor3("xs"), tt.dmatrix("a0"), tt.dmatrix("b0"), tt.dmatrix("w")

    def step(x, a, b, w):
        a1 = tt.tanh(tt.dot(a, w) + x)
        b1 = b * 0.5 + a1
        return a1, b1, (a1 * b1).sum(axis=1)

    (as_, bs, ys), _ = theon.scan(step, sequences=xs, outputs_info=[a0, b0, None],
                                  non_sequences=w)
    return [xs, a0, b0, w], [as_, bs[-1], ys]


def test_generated_loop_is_used_and_bit_identical():
    ins, outs = two_state_graph()
    args = [RNG.normal(size=(9, 3, 4)), RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4)),
            RNG.normal(size=(4, 4))]
    got, want, used = run_both(ins, outs, args)
    assert used and all(u is not None for u in used)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    # and against NumPy
    a, b, ys = args[1], args[2], []
    hist = []
    for x in args[0]:
        a = np.tanh(a @ args[3] + x)
        b = b * 0.5 + a
        hist.append(a)
        ys.append((a * b).sum(axis=1))
    np.testing.assert_allclose(got[0], np.array(hist), rtol=1e-12)
    np.testing.assert_allclose(got[1], b, rtol=1e-12)
    np.testing.assert_allclose(got[2], np.array(ys), rtol=1e-12)


def test_rnn_gradient_bit_identical_with_the_generic_loop():
    xs, h0, w = tt.dtensor3("xs"), tt.dmatrix("h0"), tt.dmatrix("w")
    hs, _ = theon.scan(lambda x, h, w: tt.tanh(x + tt.dot(h, w)), sequences=xs,
                       outputs_info=h0, non_sequences=w)
    loss = hs[-1].mean()
    args = [RNG.normal(size=(6, 2, 3)), RNG.normal(size=(2, 3)), RNG.normal(size=(3, 3))]
    got, want, used = run_both([xs, h0, w], [loss, *theon.grad(loss, [h0, w])], args)
    assert len(used) == 2 and all(u is not None for u in used)
    for g, w_ in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w_)


def test_zero_steps():
    ins, outs = two_state_graph()
    args = [np.zeros((0, 3, 4)), RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4)),
            RNG.normal(size=(4, 4))]
    got, want, _ = run_both(ins, outs, args)
    assert got[0].shape == (0, 3, 4)
    np.testing.assert_array_equal(got[1], args[2])
    for g, w in zip(got, want, strict=True):  # as the generic loop leaves them
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("case", ["scalar", "two_taps", "while"])
def test_other_layouts_use_the_generic_loop(case):
    if case == "scalar":
        x0 = tt.dscalar("x0")
        xs, _ = theon.scan(lambda x: x * 0.5, outputs_info=x0, n_steps=3)
        ins, args = [x0], [1.0]
    elif case == "two_taps":
        h0 = tt.dmatrix("h0")
        xs, _ = theon.scan(lambda a, b: a + b, outputs_info=dict(initial=h0, taps=[-2, -1]),
                           n_steps=3)
        ins, args = [h0], [np.ones((2, 2))]
    else:
        h0 = tt.dvector("h0")
        xs, _ = theon.scan(lambda h: (h * 2.0, theon.scan_module.until(h.sum() > 10)),
                           outputs_info=h0, n_steps=10)
        ins, args = [h0], [np.ones(2)]
    f = theon.function(ins, xs)
    f(*args)
    (node,) = scan_nodes(f)
    # scalar bodies run the fast loop first
    assert not callable(node.op.compiled_body(node).step_loop)


def test_a_state_changing_shape_is_an_error_naming_the_step():
    h0 = tt.dtensor3("h0")  # the buffer: one initial row
    op_h = tt.dmatrix("h")
    op = Scan([op_h], [op_h[:, 1:]], theon.scan.ScanInfo(n_seqs=0, state_taps=((-1,),)))
    f = theon.function([h0], op(tt.constant(2, dtype="int64"), h0))
    with pytest.raises(ValueError, match="must keep its shape") as err:
        f(np.ones((1, 2, 3)))
    assert any("in step 0" in note for note in err.value.__notes__)
    (node,) = scan_nodes(f)
    assert node.op.compiled_body(node).step_loop is not None


def test_vm_linker_agrees():
    ins, outs = two_state_graph()
    args = [RNG.normal(size=(5, 2, 4)), RNG.normal(size=(2, 4)), RNG.normal(size=(2, 4)),
            RNG.normal(size=(4, 4))]
    got = theon.function(ins, outs)(*args)
    ref = theon.function(ins, outs, mode=theon.Mode(linker="vm"))(*args)
    for g, r in zip(got, ref, strict=True):
        np.testing.assert_allclose(g, r, rtol=1e-12)
