"""Inplace rewrites never destroy what must survive, and keep values right."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
from theon.compile.mode import Mode

rng = np.random.default_rng(11)
VM_FAST = Mode(linker="vm", optimizer="fast_run")


def destroyers(f):
    return [n for n in f.maker.fgraph.apply_nodes if n.op.destroy_map]


def test_intermediate_destroyed_input_kept():
    x, y = tt.dmatrix("x"), tt.dmatrix("y")
    out = tt.dot(x, y) + 1.0
    f = theon.function([x, y], out, mode=VM_FAST)
    assert destroyers(f), "the dot result is dead after the add: reuse its buffer"
    xv, yv = rng.normal(size=(3, 3)), rng.normal(size=(3, 3))
    x0, y0 = xv.copy(), yv.copy()
    np.testing.assert_allclose(f(xv, yv), x0 @ y0 + 1.0)
    np.testing.assert_array_equal(xv, x0)
    np.testing.assert_array_equal(yv, y0)


def test_never_destroys_protected_input():
    x = tt.dvector("x")
    f = theon.function([x], tt.exp(x) + x, mode=VM_FAST)
    for n in destroyers(f):
        for idxs in n.op.destroy_map.values():
            for i in idxs:
                assert n.inputs[i] not in f.maker.fgraph.inputs
    xv = rng.normal(size=4)
    x0 = xv.copy()
    f(xv)
    np.testing.assert_array_equal(xv, x0)


def test_mutable_input_may_be_destroyed_and_result_right():
    x = tt.dvector("x")
    f = theon.function([theon.In(x, mutable=True)], tt.exp(x) * 2, mode=VM_FAST)
    assert destroyers(f)
    xv = rng.normal(size=4)
    ref = np.exp(xv) * 2
    np.testing.assert_allclose(f(xv.copy()), ref)


def test_shared_value_never_destroyed():
    w = theon.shared(np.ones(3), name="w")
    x = tt.dvector("x")
    f = theon.function([x], tt.exp(w) + x, mode=VM_FAST)
    f(np.zeros(3))
    np.testing.assert_array_equal(w.get_value(), np.ones(3))


def test_value_still_needed_is_not_destroyed():
    x = tt.dvector("x")
    a = tt.exp(x)
    b = a * 2          # could destroy a ...
    c = tt.sin(a) + b  # ... but a is still read here
    f = theon.function([x], [c, a], mode=VM_FAST)
    xv = rng.normal(size=5)
    r = f(xv)
    np.testing.assert_allclose(r[0], np.sin(np.exp(xv)) + 2 * np.exp(xv))
    np.testing.assert_allclose(r[1], np.exp(xv))


def test_constants_never_destroyed():
    c = tt.constant(np.arange(3.0))
    x = tt.dvector("x")
    f = theon.function([x], (c + 0.5) * x, mode=VM_FAST)
    f(np.ones(3))
    np.testing.assert_array_equal(c.data, np.arange(3.0))
    for n in destroyers(f):
        for idxs in n.op.destroy_map.values():
            assert not isinstance(n.inputs[idxs[0]], tt.TensorConstant)


def test_inc_subtensor_inplace_on_intermediate():
    m, i = tt.dmatrix("m"), tt.lvector("i")
    f = theon.function([m, i], tt.inc_subtensor((m * 2)[i], 1.0), mode=VM_FAST)
    assert any("IncSubtensor" in type(n.op).__name__ for n in destroyers(f))
    mv = rng.normal(size=(3, 2))
    m0 = mv.copy()
    ref = m0 * 2
    np.add.at(ref, [0, 0, 2], 1.0)
    np.testing.assert_allclose(f(mv, np.array([0, 0, 2])), ref)
    np.testing.assert_array_equal(mv, m0)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 30), st.integers(0, 30)),
                min_size=1, max_size=10), st.booleans())
def test_random_graphs_inplace_equal_reference(program, many_outputs):
    x, y = tt.dmatrix("x"), tt.dmatrix("y")
    vals = [x, y]
    ops = [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: tt.dot(a, b),
           lambda a, b: tt.exp(a) - b, lambda a, b: a.T, lambda a, b: tt.tanh(a)]
    for k, a, b in program:
        vals.append(ops[k](vals[a % len(vals)], vals[b % len(vals)]))
    outs = vals[2:] if many_outputs else vals[-1:]
    xv, yv = rng.normal(size=(3, 3)), rng.normal(size=(3, 3))
    x0, y0 = xv.copy(), yv.copy()
    ref = theon.function([x, y], outs, mode="REFERENCE", on_unused_input="ignore")(xv, yv)
    for mode in (VM_FAST, None):
        got = theon.function([x, y], outs, mode=mode, on_unused_input="ignore")(xv, yv)
        for g, r in zip(got, ref):
            np.testing.assert_allclose(g, r, rtol=1e-9, atol=1e-12)
        np.testing.assert_array_equal(xv, x0)
        np.testing.assert_array_equal(yv, y0)
