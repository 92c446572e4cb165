"""Elementwise fusion: fused graphs equal unfused ones; grouping rules."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
from theon.compile.mode import Mode
from theon.scalar.composite import Composite
from theon.tensor.elemwise import Elemwise

rng = np.random.default_rng(5)
VM_FAST = Mode(linker="vm", optimizer="fast_run")


def composites(f):
    return [n for n in f.maker.fgraph.apply_nodes
            if isinstance(n.op, Elemwise) and isinstance(n.op.scalar_op, Composite)]


def elemwise_nodes(f):
    return [n for n in f.maker.fgraph.apply_nodes if isinstance(n.op, Elemwise)]


def test_chain_becomes_one_node():
    x, y = tt.dvector("x"), tt.dvector("y")
    e = tt.exp(-x ** 2) * tt.sin(y) + tt.log1p(x ** 2) - tt.tanh(y) / 2 + tt.sqrt(abs(x * y) + 1)
    f = theon.function([x, y], e, mode=VM_FAST)
    assert len(f.maker.fgraph.apply_nodes) == 1 and len(composites(f)) == 1
    xv, yv = rng.normal(size=50), rng.normal(size=50)
    ref = (np.exp(-xv ** 2) * np.sin(yv) + np.log1p(xv ** 2) - np.tanh(yv) / 2
           + np.sqrt(np.abs(xv * yv) + 1))
    np.testing.assert_allclose(f(xv, yv), ref, rtol=1e-12)
    np.testing.assert_allclose(theon.function([x, y], e)(xv, yv), ref, rtol=1e-12)


def test_shared_intermediate_becomes_extra_output():
    x = tt.dvector("x")
    a = tt.exp(x)
    f = theon.function([x], [a * 2, a + 1], mode=VM_FAST)
    xv = rng.normal(size=5)
    r = f(xv)
    np.testing.assert_allclose(r[0], np.exp(xv) * 2)
    np.testing.assert_allclose(r[1], np.exp(xv) + 1)


def test_intermediate_used_outside_is_not_absorbed():
    x = tt.dvector("x")
    a = tt.exp(x)
    b = tt.sin(a)
    out = tt.concatenate([b * 2 + 1, a])  # a is also read by the Join
    f = theon.function([x], out, mode=VM_FAST)
    xv = rng.normal(size=4)
    np.testing.assert_allclose(f(xv), np.concatenate([np.sin(np.exp(xv)) * 2 + 1, np.exp(xv)]))
    f.maker.fgraph.check_integrity()


def test_broadcast_producer_not_fused_into_larger_consumer():
    r = tt.drow("r")
    m = tt.dmatrix("m")
    out = tt.exp(tt.sin(r)) * m
    f = theon.function([r, m], out, mode=VM_FAST)
    # exp(sin(r)) is computed at row shape, once
    bshapes = sorted(n.outputs[0].type.broadcastable for n in elemwise_nodes(f))
    assert (True, False) in bshapes
    rv, mv = rng.normal(size=(1, 3)), rng.normal(size=(4, 3))
    np.testing.assert_allclose(f(rv, mv), np.exp(np.sin(rv)) * mv)


def test_dtypes_kept_and_int_graphs():
    i = tt.ivector("i")
    out = (i * 2 + 1) // 3
    f = theon.function([i], out, mode=VM_FAST)
    iv = np.arange(-5, 5, dtype="int32")
    res = f(iv)
    assert res.dtype == np.int32
    np.testing.assert_array_equal(res, (iv * 2 + 1) // 3)
    x = tt.fvector("x")
    g = theon.function([x], tt.exp(x) * 2.5 + 1)
    assert g(np.ones(3, dtype="float32")).dtype == np.float32


UNARY = [tt.exp, tt.sin, tt.tanh, tt.abs, tt.neg, tt.sqr, lambda v: tt.log1p(abs(v)),
         tt.sigmoid, lambda v: v * 3.0, lambda v: v - 0.5]
BINARY = [tt.add, tt.mul, tt.sub, tt.maximum, lambda a, b: a / (abs(b) + 1)]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 9), st.integers(0, 20),
                          st.integers(0, 20)), min_size=1, max_size=12),
       st.integers(1, 3))
def test_random_elemwise_graphs_fused_equal_unfused(program, n_out):
    x, y = tt.dvector("x"), tt.dvector("y")
    vals = [x, y]
    for kind, k, a, b in program:
        if kind == 0:
            vals.append(UNARY[k % len(UNARY)](vals[a % len(vals)]))
        else:
            vals.append(BINARY[k % len(BINARY)](vals[a % len(vals)], vals[b % len(vals)]))
    outs = vals[-n_out:]
    xv, yv = rng.normal(size=7), rng.normal(size=7)
    ref = theon.function([x, y], outs, mode="REFERENCE", on_unused_input="ignore")(xv, yv)
    for mode in (VM_FAST, None):
        got = theon.function([x, y], outs, mode=mode, on_unused_input="ignore")(xv, yv)
        for g, r in zip(got, ref):
            assert g.dtype == r.dtype
            np.testing.assert_allclose(g, r, rtol=1e-9, atol=1e-12, equal_nan=True)


def test_fusion_never_touches_user_graph():
    x = tt.dvector("x")
    e = tt.exp(x) + 1
    before = e.owner.op
    theon.function([x], e)
    assert e.owner.op is before
    assert type(e.owner.inputs[0].owner.op.scalar_op).__name__ == "Exp"


@pytest.mark.parametrize("nv", [20, 60])
def test_scalar_log_density_fuses_and_matches(nv):
    xs = [tt.dscalar(f"x{i}") for i in range(nv)]
    terms = [-0.5 * ((x - i * 0.01) / (1 + 0.001 * i)) ** 2 - tt.log(1 + 0.001 * i)
             + tt.log1p(tt.exp(-abs(x))) for i, x in enumerate(xs)]
    logp = tt.add(*terms)
    g = theon.grad(logp, xs)
    vals = list(rng.normal(size=nv))
    ref = theon.function(xs, [logp, *g], mode="REFERENCE")(*vals)
    got = theon.function(xs, [logp, *g])(*vals)
    for a, b in zip(got, ref):
        np.testing.assert_allclose(a, b, rtol=1e-10)


def test_constants_are_operands_unless_inputs_run_out():
    """One-element constants become operands of the fused node; past MAX_FUSED_INPUTS
    they are inlined into the Composite instead, and the group is still fused."""
    from theon.graph.basic import Constant
    from theon.tensor.rewriting.fusion import MAX_FUSED_INPUTS

    x = tt.dvector("x")
    f = theon.function([x], tt.exp(x * 3.0) + 2.5, mode=VM_FAST)
    (node,) = composites(f)
    consts = sorted(float(i.data.item()) for i in node.inputs if isinstance(i, Constant))
    assert consts == [2.5, 3.0]
    xv = rng.normal(size=4)
    np.testing.assert_allclose(f(xv), np.exp(xv * 3.0) + 2.5, rtol=1e-15)

    n = MAX_FUSED_INPUTS - 2
    vs = [tt.dvector(f"v{k}") for k in range(n)]
    e = vs[0]
    for k, v in enumerate(vs[1:]):
        e = tt.exp(e * (k + 1.5)) + v  # n variables and n - 1 distinct constants
    f = theon.function(vs, e, mode=VM_FAST)
    (node,) = composites(f)
    assert len(node.inputs) == n and not any(isinstance(i, Constant) for i in node.inputs)
    vals = [rng.normal(size=3) * 0.01 for _ in range(n)]
    want = vals[0]
    for k, v in enumerate(vals[1:]):
        want = np.exp(want * (k + 1.5)) + v
    np.testing.assert_allclose(f(*vals), want, rtol=1e-12)


@pytest.mark.parametrize("mode", [None, VM_FAST])
def test_outputs_of_a_fused_node_keep_their_own_static_shapes(mode):
    # issue 11 item 4: exp(x) (length unknown) and exp(x) * y (y of static length 3)
    # fuse into one node; each of its outputs keeps its own type
    x = tt.dvector("x")
    y = tt.tensor("float64", shape=(3,), name="y")
    a = tt.exp(x)
    b = a * y
    f = theon.function([x, y], [a, b, b + tt.sin(a)], mode=mode)
    assert len(f.maker.fgraph.apply_nodes) == 1 and len(composites(f)) == 1
    out_types = [o.type.shape for o in f.maker.fgraph.outputs]
    assert out_types == [(None,), (3,), (3,)]
    xv, yv = np.array([0.1, -0.5, 2.0]), np.array([1.5, 2.0, -3.0])
    r = f(xv, yv)
    np.testing.assert_allclose(r[0], np.exp(xv), rtol=1e-15)
    np.testing.assert_allclose(r[1], np.exp(xv) * yv, rtol=1e-15)
    np.testing.assert_allclose(r[2], np.exp(xv) * yv + np.sin(np.exp(xv)), rtol=1e-15)
    f.maker.fgraph.check_integrity()


def test_issue_example_exp_and_product_with_static_length():
    x = tt.dvector()
    y = tt.tensor("float64", shape=(3,))
    a = tt.exp(x)
    f = theon.function([x, y], [a, a * y])
    xv, yv = np.array([0.25, -1.0, 3.0]), np.array([2.0, -0.5, 4.0])
    ra, rb = f(xv, yv)
    np.testing.assert_allclose(ra, np.exp(xv), rtol=1e-15)
    np.testing.assert_allclose(rb, np.exp(xv) * yv, rtol=1e-15)
