"""Identity and diagonal matrices: AllocDiag/AddDiag and the rewrites that make them
(theon/tensor/rewriting/diagonal.py), each against NumPy and, by hypothesis, against the
unrewritten graph (the reference VM)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
from tests.tensor.rewriting.helpers import REFERENCE, op_names, rewrite
from theon.gradient import jacobian, verify_grad
from theon.tensor.alloc_diag import AddDiag, AllocDiag
from theon.tensor.rewriting.diagonal import is_identity

SEED = 1616
FINITE = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)


def _vec(n, draw_list):
    return np.array(draw_list[:n], dtype="float64")


def _names(inputs, outputs):
    return op_names(rewrite(inputs, outputs))


# ----------------------------------------------------------------------------- the Ops
def test_alloc_diag_and_add_diag_values_and_grads():
    rng = np.random.default_rng(SEED)
    v, x = tt.dvector("v"), tt.dmatrix("x")
    vv, xv = rng.normal(size=4), rng.normal(size=(4, 4))
    f = theon.function([x, v], [AllocDiag()(v), AddDiag()(x, v)], mode=REFERENCE)
    d, s = f(xv, vv)
    np.testing.assert_array_equal(d, np.diag(vv))
    np.testing.assert_array_equal(s, xv + np.diag(vv))
    assert theon.function([v], AllocDiag()(v).shape)(vv).tolist() == [4, 4]
    verify_grad(lambda a: AllocDiag()(a) * 3.0, [vv], rng=rng)
    verify_grad(lambda a, b: AddDiag()(a, b) ** 2, [xv, vv], rng=rng)
    verify_grad(lambda a, b: AddDiag()(a, b) * 1e-3, [xv * 1e3, vv * 1e-4], rng=rng)


def test_add_diag_inplace_does_not_touch_inputs():
    x, v = tt.dmatrix("x"), tt.dvector("v")
    f = theon.function([x, v], AddDiag()(x * 2.0, v))
    assert any(getattr(n.op, "inplace", False) for n in f.maker.fgraph.toposort()
               if isinstance(n.op, AddDiag))
    xv, vv = np.ones((3, 3)), np.arange(3.0)
    np.testing.assert_array_equal(f(xv, vv), 2 * xv + np.diag(vv))
    np.testing.assert_array_equal(xv, np.ones((3, 3)))


def test_is_identity():
    n = tt.lscalar("n")
    assert is_identity(tt.eye(3)) and is_identity(tt.eye(n)) and is_identity(
        tt.constant(np.eye(4, dtype="float32")))
    assert not is_identity(tt.eye(3, 4)) and not is_identity(tt.eye(3, k=1))
    assert not is_identity(tt.constant(2 * np.eye(3)))
    assert not is_identity(tt.dmatrix("m"))


# ----------------------------------------------------------------------------- rewrites
def test_mul_eye_becomes_alloc_diag():
    r, c = tt.dvector("r"), tt.dvector("c")
    out = tt.eye(3) * r[None, :] * c[:, None]
    names = _names([r, c], [out])
    assert names["AllocDiag"] == 1 and not names["Eye"], names
    rv, cv = np.array([1.0, -2.0, 3.0]), np.array([0.5, 2.0, -1.0])
    got = theon.function([r, c], out)(rv, cv)
    np.testing.assert_array_equal(got, np.diag(rv * cv))


def test_dot_with_diagonal_and_identity():
    rng = np.random.default_rng(SEED)
    d, b = tt.dvector("d"), tt.dmatrix("b")
    outs = [tt.dot(AllocDiag()(d), b), tt.dot(b, AllocDiag()(d)), tt.dot(tt.eye(3), b) + 1.0,
            tt.dot(b, tt.constant(np.eye(3))) * 2.0]
    names = _names([d, b], outs)
    assert not names["Dot"] and not names["AllocDiag"] and not names["Gemm"], names
    dv, bv = rng.normal(size=3), rng.normal(size=(3, 3))
    got = theon.function([d, b], outs)(dv, bv)
    for g, e in zip(got, [np.diag(dv) @ bv, bv @ np.diag(dv), bv + 1.0, bv * 2.0]):
        np.testing.assert_allclose(g, e, rtol=1e-15)


def test_add_alloc_diag_becomes_add_diag():
    d, x = tt.dvector("d"), tt.dmatrix("x")
    out = tt.exp(x) + AllocDiag()(d)
    names = _names([d, x], [out])
    assert names["AddDiag"] == 1 and not names["AllocDiag"], names
    # a broadcasting x has no room for the result: left as is
    row = tt.TensorType("float64", shape=(1, None))("row")
    names = _names([d, row], [row + AllocDiag()(d)])
    assert names["AllocDiag"] == 1 and not names["AddDiag"], names


def test_jacobian_of_elemwise_has_no_matrix_product():
    """The jacobian_vectorized workload's graph: the identity batch becomes diagonals."""
    rng = np.random.default_rng(SEED)
    A = rng.normal(size=(5, 5))
    x = tt.dvector("x")
    J = jacobian(tt.tanh(tt.dot(tt.constant(A), x)) * x, x)
    f = theon.function([x], J)
    kinds = {type(n.op).__name__ for n in f.maker.fgraph.toposort()}
    assert not kinds & {"MatMul", "Gemm", "Blockwise"} and "AddDiag" in kinds, kinds
    xv = rng.normal(size=5)
    t = np.tanh(A @ xv)
    np.testing.assert_allclose(f(xv), np.diag(t) + (xv * (1 - t**2))[:, None] * A,
                               rtol=1e-12)


def test_scalar_times_eye_becomes_add_diag():
    """``x + s * eye(n)`` (a kernel matrix's noise term) touches only the diagonal."""
    x, s = tt.dmatrix("x"), tt.dscalar("s")
    y = x + s * tt.eye(x.shape[0])
    names = op_names(rewrite([x, s], [y]))
    assert names["AddDiag"] == 1 and not names["Eye"], names
    xv = np.random.default_rng(SEED).normal(size=(4, 4))
    np.testing.assert_array_equal(theon.function([x, s], y)(xv, 2.5), xv + 2.5 * np.eye(4))


def test_sum_of_product_with_eye_is_a_trace():
    x, d = tt.dmatrix("x"), tt.dvector("d")
    outs = [(x * tt.eye(x.shape[0])).sum(), (tt.eye(x.shape[0]) * x).sum(axis=(1, 0)),
            (x * AllocDiag()(d)).sum()]
    names = op_names(rewrite([x, d], outs))
    assert not names["Eye"] and not names["AllocDiag"], names
    rng = np.random.default_rng(SEED)
    xv, dv = rng.normal(size=(5, 5)), rng.normal(size=5)
    got = theon.function([x, d], outs)(xv, dv)
    np.testing.assert_allclose(got, [np.trace(xv), np.trace(xv), np.diag(xv) @ dv],
                               rtol=1e-14)
    # a partial sum keeps its matrix
    assert op_names(rewrite([x], [(x * tt.eye(x.shape[0])).sum(axis=0)]))["Eye"] == 1


# ----------------------------------------------------------------------------- differential
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(n=st.integers(1, 5), vals=st.lists(FINITE, min_size=40, max_size=40),
       which=st.integers(0, 7))
def test_differential_against_the_unrewritten_graph(n, vals, which):
    a = np.array(vals, dtype="float64")
    rv, cv, dv = a[:n], a[5:5 + n], a[10:10 + n]
    bv = a[15:15 + n * n].reshape(n, n) if n * n <= 25 else np.ones((n, n))
    r, c, d, b = tt.dvector("r"), tt.dvector("c"), tt.dvector("d"), tt.dmatrix("b")
    eye = tt.eye(r.shape[0])
    graphs = [
        eye * r[None, :] * c[:, None],
        tt.dot(eye * r[None, :], b),
        tt.dot(b, AllocDiag()(d) * c[:, None]),
        b * 2.0 + AllocDiag()(d * r),
        tt.dot(eye, b) + eye * d[None, :] * 3.0,
        b + eye * r.sum(),
        (b * eye).sum(),
        (AllocDiag()(d) * b).sum(axis=(0, 1)),
    ]
    out = graphs[which]
    args = [rv, cv, dv, bv]
    fast = theon.function([r, c, d, b], out, on_unused_input="ignore")(*args)
    ref = theon.function([r, c, d, b], out, mode=REFERENCE, on_unused_input="ignore")(*args)
    np.testing.assert_allclose(fast, ref, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dtype_is_kept(dtype):
    r = tt.vector("r", dtype=dtype)
    out = tt.eye(3, dtype=dtype) * r[None, :]
    f = theon.function([r], out)
    assert f(np.ones(3, dtype=dtype)).dtype == dtype
