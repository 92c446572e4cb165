"""Joins of pieces built alike (theon/tensor/rewriting/joins.py): the rewrites fire, give
NumPy's values, leave what they must alone, and agree with the unrewritten graph by
hypothesis."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
from tests.tensor.rewriting.helpers import REFERENCE, check_same, op_names, rewrite
from theon.rewriting import RewriteQuery

JOINS = ("local_join_of_elemwise", "local_join_of_entries", "local_join_of_diagonal_incs")
OFF = RewriteQuery.named("fast_run").excluding("fusion", "inplace", *JOINS)
RNG = np.random.default_rng(1819)


def _only(name):
    return RewriteQuery.named("fast_run").excluding(
        "fusion", "inplace", *[j for j in JOINS if j != name])


def test_loop_jacobian_becomes_one_batched_graph():
    A = RNG.normal(size=(6, 6))
    x = tt.dvector("x")
    y = tt.tanh(tt.dot(tt.constant(A), x)) * x
    J = tt.stack([theon.grad(y[i], x) for i in range(6)])
    names = op_names(rewrite([x], [J]))
    assert names["Join"] == 0 and names["AddDiag"] == 1 and names["IncSubtensor"] == 0, names
    assert op_names(rewrite([x], [J], OFF))["Join"] == 1
    for xv in (RNG.normal(size=6), np.array([0.0, -0.0, 1e-300, 30.0, -1e150, 5.0])):
        t = np.tanh(A @ xv)
        want = ((1 - t**2) * xv)[:, None] * A + np.diag(t)
        got = theon.function([x], J)(xv)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-300)
        check_same([x], [J], [xv], rtol=1e-13)
    with pytest.raises(Exception):  # x too short: A @ x fails, as before
        theon.function([x], J)(np.ones(5))


def test_join_of_elemwise():
    a = [tt.tensor("float64", shape=(4,), name=f"a{k}") for k in range(3)]
    b = tt.constant(RNG.normal(size=(3, 4)))
    pieces = [(tt.exp(a[k]) * b[k])[None, :] for k in range(3)]
    out = tt.join(0, *pieces)
    names = op_names(rewrite(a, [out], _only("local_join_of_elemwise")))
    assert names["exp"] == 1 and names["mul"] == 1, names
    vals = [RNG.normal(size=4) for _ in range(3)]
    want = np.stack([np.exp(vals[k]) * b.data[k] for k in range(3)])
    got = theon.function(a, out)(*vals)
    assert got.shape == (3, 4)
    np.testing.assert_allclose(got, want, rtol=1e-15)
    check_same(a, [out], vals)


def test_join_of_entries():
    v = tt.dvector("v")
    out = tt.stack([v[k] for k in range(2, 5)])
    names = op_names(rewrite([v], [out], _only("local_join_of_entries")))
    assert names["Join"] == 0 and names["SpecifyShape"] == 1, names
    vv = np.array([1.0, np.inf, -0.0, np.nan, 5e-324, 7.0])
    got = theon.function([v], out)(vv)
    np.testing.assert_array_equal(got, vv[2:5])
    assert np.signbit(got[0])
    with pytest.raises(Exception):  # v[4] is out of range: the stack raised, so does the slice
        theon.function([v], out)(np.ones(4))
    with pytest.raises(Exception):
        theon.function([v], out, mode=REFERENCE)(np.ones(4))
    # not consecutive, or from two vectors: left alone
    w = tt.dvector("w")
    for o in (tt.stack([v[0], v[2]]), tt.stack([v[0], w[1]]), tt.stack([v[-2], v[-1]])):
        assert op_names(rewrite([v, w], [o], _only("local_join_of_entries")))["Join"] == 1


def test_join_of_diagonal_incs():
    r = [tt.dvector(f"r{k}") for k in range(3)]
    c = tt.dvector("c")
    rows = [tt.inc_subtensor(tt.specify_shape(r[k], (3,))[k], c[k])[None, :] for k in range(3)]
    out = tt.join(0, *rows)
    names = op_names(rewrite([*r, c], [out], _only("local_join_of_diagonal_incs")))
    assert names["AddDiag"] == 1 and names["IncSubtensor"] == 0, names
    vals = [RNG.normal(size=3) for _ in range(3)]
    cv = np.array([1e308, -np.inf, 2.0])
    with np.errstate(all="ignore"):
        want = np.stack(vals) + np.diag(cv)
        want[np.diag_indices(3)] = np.stack(vals)[np.diag_indices(3)] + cv
    got = theon.function([*r, c], out)(*vals, cv)
    np.testing.assert_array_equal(got, want)
    check_same([*r, c], [out], [*vals, cv])
    # an index other than the row's own, a set instead of an increment: left alone
    shifted = [tt.inc_subtensor(tt.specify_shape(r[k], (3,))[(k + 1) % 3], c[k])[None, :]
               for k in range(3)]
    sets = [tt.set_subtensor(tt.specify_shape(r[k], (3,))[k], c[k])[None, :] for k in range(3)]
    for o in (tt.join(0, *shifted), tt.join(0, *sets)):
        assert op_names(rewrite([*r, c], [o], _only("local_join_of_diagonal_incs")))["Join"] >= 1
        check_same([*r, c], [o], [*vals, cv])


def test_left_alone():
    """Operands broadcast along the join axis, large pieces, pieces used elsewhere."""
    s = [tt.dvector(f"s{k}") for k in range(2)]
    m = [tt.tensor("float64", shape=(3,), name=f"m{k}") for k in range(2)]
    one = [tt.tensor("float64", shape=(1,), name=f"o{k}") for k in range(2)]
    q = _only("local_join_of_elemwise")
    bcast = tt.join(0, one[0] + m[0], one[1] + m[1])  # (1,) + (3,): operand broadcasts
    assert op_names(rewrite([*one, *m], [bcast], q))["Join"] == 1
    check_same([*one, *m], [bcast], [np.ones(1), 2 * np.ones(1), np.arange(3.0), -np.arange(3.0)])
    big = [tt.tensor("float64", shape=(5000,), name=f"b{k}") for k in range(2)]
    assert op_names(rewrite(big, [tt.join(0, tt.exp(big[0]), tt.exp(big[1]))], q))["exp"] == 2
    e0 = tt.exp(s[0])
    shared = tt.join(0, e0, tt.exp(s[1]))
    assert op_names(rewrite(s, [shared, e0 * 2], q))["exp"] == 2


FINITE = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(n=st.integers(2, 5), vals=st.lists(FINITE, min_size=40, max_size=40),
       which=st.integers(0, 5), c=st.integers(0, 2))
def test_differential_against_the_unrewritten_graph(n, vals, which, c):
    a = np.array(vals, dtype="float64")
    xv, yv = a[:n], a[10:10 + n + c]
    mv = a[20:20 + n * n].reshape(n, n) if n * n <= 20 else np.ones((n, n))
    x, y, m = tt.dvector("x"), tt.dvector("y"), tt.dmatrix("m")
    mc = tt.constant(mv)
    graphs = [
        lambda: tt.stack([theon.grad((tt.tanh(tt.dot(mc, x)) * x)[k], x) for k in range(n)]),
        lambda: tt.stack([y[c + k] * x[k] for k in range(n)]),
        lambda: tt.join(0, *[(tt.sin(x[k]) * mc[k] + y[c])[None, :] for k in range(n)]),
        lambda: tt.stack([theon.grad(tt.sum(tt.exp(tt.dot(m, x)) * x[k]), x) for k in range(n)]),
        lambda: tt.stack([tt.inc_subtensor(tt.specify_shape(x * y[c], (n,))[k], y[c + k])
                          for k in range(n)]),
        lambda: tt.stack([theon.grad((tt.dot(mc, x) ** 2)[k], x) for k in range(n)]),
    ]
    out = graphs[which]()
    args = [xv, yv, mv]
    with np.errstate(all="ignore"):
        fast = theon.function([x, y, m], out, on_unused_input="ignore")(*args)
        ref = theon.function([x, y, m], out, mode=REFERENCE, on_unused_input="ignore")(*args)
    np.testing.assert_allclose(fast, ref, rtol=1e-12, atol=1e-300)
