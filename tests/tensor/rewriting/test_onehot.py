"""One-hot seeds (theon/tensor/rewriting/onehot.py): the rewrites fire, give NumPy's values
(also at extreme inputs), and agree with the unrewritten graph by hypothesis."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
from tests.tensor.rewriting.helpers import REFERENCE, check_same, op_names, rewrite
from theon.gradient import verify_grad
from theon.rewriting import RewriteQuery
from theon.tensor.rewriting.onehot import as_onehot

ONEHOT = ("local_onehot_mul", "local_onehot_add", "local_onehot_dot")
OFF = RewriteQuery.named("fast_run").excluding("fusion", "inplace", *ONEHOT)
RNG = np.random.default_rng(1818)
A = RNG.normal(size=(5, 5))


def _onehot(x, i, c=1.0):
    return tt.inc_subtensor(tt.zeros_like(x)[i], c)


def _jacobian_loop(x, n):
    y = tt.tanh(tt.dot(tt.constant(A[:n, :n]), x)) * x
    return tt.stack([theon.grad(y[i], x) for i in range(n)])


def _jacobian_ref(xv):
    n = len(xv)
    t = np.tanh(A[:n, :n] @ xv)
    return ((1 - t**2) * xv)[:, None] * A[:n, :n] + np.diag(t)


def test_as_onehot():
    x, m = tt.dvector("x"), tt.dmatrix("m")
    assert as_onehot(_onehot(x, 1)).idx_list == (1,)
    assert as_onehot(tt.set_subtensor(tt.zeros_like(m)[1, 2], 3.0)).idx_list == (1, 2)
    assert as_onehot(tt.inc_subtensor(tt.zeros_like(m)[1], x[:0].sum() + x)) is None  # a row
    assert as_onehot(tt.inc_subtensor(tt.zeros_like(x)[1:], 1.0)) is None  # a slice
    assert as_onehot(tt.inc_subtensor(tt.ones_like(x)[1], 1.0)) is None  # not zeros


def test_loop_jacobian_backward_has_no_product():
    x = tt.dvector("x")
    J = _jacobian_loop(x, 5)
    names = op_names(rewrite([x], [J]))
    assert names["Dot"] + names["Gemv"] == 1, names  # the forward A @ x only
    names = op_names(rewrite([x], [J], OFF))
    assert names["Dot"] + names["Gemv"] == 6, names
    xv = RNG.normal(size=5)
    np.testing.assert_allclose(theon.function([x], J)(xv), _jacobian_ref(xv), rtol=1e-13)
    check_same([x], [J], [xv], rtol=1e-13)


@pytest.mark.parametrize("scale", [0.0, 1e-300, 1.0, 30.0, 1e150, 1e308])
def test_loop_jacobian_extreme_inputs(scale):
    x = tt.dvector("x")
    J = _jacobian_loop(x, 5)
    xv = scale * np.array([1.0, -2.0, 0.5, -0.0, 3.0])
    with np.errstate(all="ignore"):
        want = _jacobian_ref(xv)
        got = theon.function([x], J)(xv)
        ref = theon.function([x], J, mode=REFERENCE)(xv)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300)
    # the unrewritten graph multiplies the seed's zeros by inf: NaN where the value is finite
    ok = np.isfinite(ref)
    np.testing.assert_allclose(got[ok], ref[ok], rtol=1e-12, atol=1e-300)


def test_each_rule_alone():
    x, y, m, s = tt.dvector("x"), tt.dvector("y"), tt.dmatrix("m"), tt.dscalar("s")
    h = _onehot(x, 2, 3.0)
    outs = {
        "mul": h * y * s,
        "mul_bcast": h * tt.constant(np.array([4.0])),
        "add": y + h + x,
        "dot_mv": tt.dot(m, h),
        "dot_vm": tt.dot(h, m),
        "dot_vv": tt.dot(h, y),
    }
    xv, yv = RNG.normal(size=4), RNG.normal(size=4)
    mv, sv = RNG.normal(size=(4, 4)), np.float64(-1.5)
    want = {
        "mul": np.where(np.arange(4) == 2, 3.0 * yv * sv, 0.0),
        "mul_bcast": np.where(np.arange(4) == 2, 12.0, 0.0),
        "add": yv + xv + np.where(np.arange(4) == 2, 3.0, 0.0),
        "dot_mv": 3.0 * mv[:, 2],
        "dot_vm": 3.0 * mv[2],
        "dot_vv": 3.0 * yv[2],
    }
    for name, out in outs.items():
        names = op_names(rewrite([x, y, m, s], [out]))
        assert names["Dot"] + names["Gemv"] == 0 and names["IncSubtensor"] <= 1, (name, names)
        f = theon.function([x, y, m, s], out, on_unused_input="ignore")
        np.testing.assert_allclose(f(xv, yv, mv, sv), want[name], rtol=1e-15, err_msg=name)
        check_same([x, y, m, s], [out], [xv, yv, mv, sv])


def test_symbolic_index_and_matrix_entry():
    x, m, i = tt.dvector("x"), tt.dmatrix("m"), tt.lscalar("i")
    y = tt.tanh(tt.dot(m, x))
    g = theon.grad(y[i], x)
    names = op_names(rewrite([x, m, i], [g]))
    assert names["Dot"] + names["Gemv"] == 1, names
    xv, mv = RNG.normal(size=4), RNG.normal(size=(3, 4))
    f = theon.function([x, m, i], g)
    for iv in (0, 2, -1):
        t = np.tanh(mv @ xv)
        np.testing.assert_allclose(f(xv, mv, iv), (1 - t[iv] ** 2) * mv[iv], rtol=1e-14)
    # the gradient of one entry of a matrix expression with respect to the matrix
    gm = theon.grad(tt.tanh(m * 2.0)[1, 2], m)
    want = np.zeros((3, 4))
    want[1, 2] = 2.0 * (1 - np.tanh(2.0 * mv[1, 2]) ** 2)
    np.testing.assert_allclose(theon.function([m], gm)(mv), want, rtol=1e-14)
    verify_grad(lambda v: tt.tanh(tt.dot(tt.constant(A[:3, :4]), v))[1], [xv],
                rng=np.random.default_rng(3))


def test_left_alone():
    """A one-hot widened by broadcasting (constant-folded to its value: broadcast as
    such) and a dtype change keep their meaning."""
    x, x1 = tt.dvector("x"), tt.tensor("float64", shape=(1,), name="x1")
    h1 = tt.inc_subtensor(tt.zeros_like(x1)[0], 2.0)
    from theon.tensor.rewriting.onehot import local_onehot_add, local_onehot_mul

    for out, rw in ((h1 * x, local_onehot_mul), (h1 + x, local_onehot_add)):
        assert as_onehot(out.owner.inputs[0]) is not None
        assert rw.transform(None, out.owner) is None
    check_same([x1, x], [h1 * x, h1 + x], [np.ones(1), RNG.normal(size=3)])
    fx = tt.fvector("f")
    h32 = tt.inc_subtensor(tt.zeros_like(fx)[1], np.float32(1.0))
    out = h32 * x  # float32 one-hot times float64: an upcast
    names = op_names(rewrite([fx, x], [out]))
    assert names["mul"] == 1, names
    check_same([fx, x], [out], [np.ones(3, dtype="float32"), RNG.normal(size=3)])


FINITE = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(n=st.integers(1, 5), vals=st.lists(FINITE, min_size=40, max_size=40),
       which=st.integers(0, 8), i=st.integers(-1, 4))
def test_differential_against_the_unrewritten_graph(n, vals, which, i):
    i = min(i, n - 1)
    a = np.array(vals, dtype="float64")
    xv, yv = a[:n], a[5:5 + n]
    mv = a[10:10 + n * n].reshape(n, n) if n * n <= 25 else np.ones((n, n))
    x, y, m = tt.dvector("x"), tt.dvector("y"), tt.dmatrix("m")
    x1 = tt.tensor("float64", shape=(1,), name="x1")
    h = _onehot(x, i, y[0])
    h1 = _onehot(x1, 0, y[0])  # broadcast against the others: not one entry of the result
    graphs = [
        h * x * y,
        tt.dot(m, h * y) + x,
        tt.dot(h, m) * 2.0 - y,
        tt.stack([theon.grad((tt.tanh(tt.dot(m, x)) * y)[k], x) for k in range(n)]),
        theon.grad(tt.sum(tt.exp(tt.dot(m, x)))[()] * 0 + tt.exp(tt.dot(m, x))[i], x),
        tt.dot(h, y) * x,
        theon.grad((tt.dot(m, x) ** 2)[i], m),
        h1 + x * y,
        h1 * x + tt.dot(m, h1 * x)[0],
    ]
    out = graphs[which]
    args = [xv, yv, mv, a[30:31]]
    ins = [x, y, m, x1]
    with np.errstate(all="ignore"):
        fast = theon.function(ins, out, on_unused_input="ignore")(*args)
        ref = theon.function(ins, out, mode=REFERENCE, on_unused_input="ignore")(*args)
    np.testing.assert_allclose(fast, ref, rtol=1e-12, atol=1e-300)


def _inc_cases(x, m, v, idx):
    """(name, graph, NumPy reference of (xv, mv, vv, idxv)) for local_add_inc_zeros."""
    def np_inc(base, at, val, set_=False):
        out = np.array(base, dtype="float64")
        if set_:
            out[at] = val
        else:
            np.add.at(out, at, val)
        return out

    diag = tt.arange(m.shape[0])
    return [
        ("slice", x + tt.inc_subtensor(tt.zeros_like(x)[1:], v[1:]),
         lambda xv, mv, vv, iv: np_inc(xv, slice(1, None), vv[1:])),
        ("set_slice", tt.set_subtensor(tt.zeros_like(x)[:2], v[:2]) + x * 2.0,
         lambda xv, mv, vv, iv: np_inc(2 * xv, slice(0, 2), vv[:2])),
        ("repeated", tt.inc_subtensor(tt.zeros_like(x)[idx], v[: idx.shape[0]]) + x + v,
         lambda xv, mv, vv, iv: np_inc(xv + vv, iv, vv[: len(iv)])),
        ("diagonal", m * 3.0 + tt.inc_subtensor(tt.zeros_like(m)[diag, diag], v),
         lambda xv, mv, vv, iv: np_inc(3 * mv, (np.arange(len(vv)),) * 2, vv)),
    ]


def test_add_of_an_increment_of_zeros_is_one_increment():
    x, v, m, idx = tt.dvector("x"), tt.dvector("v"), tt.dmatrix("m"), tt.lvector("idx")
    xv, vv, mv = RNG.normal(size=4), RNG.normal(size=4), RNG.normal(size=(4, 4))
    iv = np.array([0, 0, 3, 0])
    for name, out, ref in _inc_cases(x, m, v, idx):
        names = op_names(rewrite([x, m, v, idx], [out]))
        adds = 1 if name == "repeated" else 0  # (x + v, the increment's base)
        assert names["second"] + names["Alloc"] == 0 and names["add"] == adds, (name, names)
        f = theon.function([x, m, v, idx], out, on_unused_input="ignore")
        np.testing.assert_allclose(f(xv, mv, vv, iv), ref(xv, mv, vv, iv), rtol=1e-15,
                                   err_msg=name)
        check_same([x, m, v, idx], [out], [xv, mv, vv, iv])


def test_add_of_an_increment_of_zeros_left_alone():
    """An advanced set (repeated indices keep one write), zeros that broadcast, a sum
    that broadcasts, and a dtype change keep their meaning."""
    from theon.tensor.rewriting.onehot import local_add_inc_zeros

    x, v, idx = tt.dvector("x"), tt.dvector("v"), tt.lvector("idx")
    r, c = tt.dmatrix("r"), tt.dcol("c")
    row = tt.tensor("float64", shape=(1, None), name="row")
    fx = tt.fvector("fx")
    outs = [
        tt.set_subtensor(tt.zeros_like(x)[idx], v) + x,
        tt.inc_subtensor(tt.zeros_like(row)[:, 1:], 1.0) + r,  # the zeros broadcast
        tt.inc_subtensor(tt.zeros_like(r)[1:], 1.0) + c,  # the rest broadcasts
        tt.inc_subtensor(tt.zeros_like(fx)[1:], 1.0) + x,  # float32 zeros, float64 sum
    ]
    for out in outs:
        assert local_add_inc_zeros.transform(None, out.owner) is None, out
    args = [RNG.normal(size=3), RNG.normal(size=3), np.array([1, 1, 0]),
            RNG.normal(size=(3, 3)), RNG.normal(size=(3, 1)), RNG.normal(size=(1, 3)),
            np.ones(3, dtype="float32")]
    check_same([x, v, idx, r, c, row, fx], outs, args)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(n=st.integers(1, 5), vals=st.lists(FINITE, min_size=40, max_size=40),
       which=st.integers(0, 3), picks=st.lists(st.integers(0, 4), min_size=1, max_size=6))
def test_add_inc_zeros_differential(n, vals, which, picks):
    """Rewritten (default mode) against the unrewritten graph (REFERENCE) and NumPy."""
    a = np.array(vals, dtype="float64")
    xv, vv = a[:n], a[5:5 + n]
    mv = a[10:10 + n * n].reshape(n, n)
    iv = np.array([p % n for p in picks][:n])
    x, v, m, idx = tt.dvector("x"), tt.dvector("v"), tt.dmatrix("m"), tt.lvector("idx")
    name, out, ref = _inc_cases(x, m, v, idx)[which]
    ins, args = [x, m, v, idx], [xv, mv, vv, iv]
    fast = theon.function(ins, out, on_unused_input="ignore")(*args)
    slow = theon.function(ins, out, mode=REFERENCE, on_unused_input="ignore")(*args)
    np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(fast, ref(*args), rtol=1e-12, atol=1e-300)
