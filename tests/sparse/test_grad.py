"""Gradients of the sparse Ops: ``verify_grad_sparse`` for each (structured or regular,
as the Op's gradient is), the patterns that structured gradients keep, extreme inputs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp

import theon
import theon.sparse as S
import theon.tensor as tt
from theon.gradient import GradientError

from .helpers import FORMATS, VM, loop_dense, loop_entries, pattern, rand_sparse

RNG = np.random.default_rng(30)
D45 = RNG.normal(size=(4, 5))
D53 = RNG.normal(size=(5, 3))
V5 = RNG.normal(size=5)
V4 = RNG.normal(size=4)
D24 = RNG.normal(size=(2, 4))

# (name, op, dense extra points, structured)
GRAD_CASES: list[tuple[str, Callable[..., Any], list[Any], bool]] = [
    ("dense_from_sparse", lambda x: S.dense_from_sparse(x), [], True),
    ("dense_from_sparse_regular", lambda x: S.DenseFromSparse(structured=False)(x), [], False),
    ("transpose", lambda x: S.transpose(x), [], False),
    ("as_format", lambda x: S.as_format(x, "csc" if x.format == "csr" else "csr"), [], False),
    ("cast", lambda x: S.cast(x, "float64"), [], False),  # from float32 (below)
    ("neg", lambda x: -x, [], False),
    ("add_ss", lambda x: x + S.transpose(S.transpose(x)) * 2.0, [], False),
    ("add_sd", lambda x, d: x + d, [D45], True),
    ("sub_ds", lambda x, d: d - x, [D45], True),
    ("mul_ss", lambda x: x * S.transpose(S.transpose(x)), [], False),
    ("mul_sd", lambda x, d: x * d, [D45], True),
    ("mul_scalar", lambda x, s: x * s, [np.array(1.7)], True),
    ("dot_sparse_dense", lambda x, m: S.dot(x, m), [D53], False),
    ("dot_sparse_vector", lambda x, v: S.dot(x, v), [V5], False),
    ("dot_dense_sparse", lambda x, m: S.dot(m, x), [D24], False),
    ("dot_vector_sparse", lambda x, v: S.dot(v, x), [V4], False),
    ("dot_sparse_sparse", lambda x: S.dot(x, S.transpose(x)), [], False),
    ("structured_dot", lambda x, m: S.structured_dot(x, m), [D53], True),
    ("structured_dot_vector", lambda x, v: S.structured_dot(x, v), [V5], True),
    ("structured_dot_left", lambda x, m: S.structured_dot(m, x), [D24], True),
    ("sp_sum", lambda x: S.sp_sum(x), [], False),
    ("sp_sum_0", lambda x: S.sp_sum(x, 0), [], False),
    ("sp_sum_1", lambda x: S.sp_sum(x, 1), [], False),
    ("sp_sum_sparse_grad", lambda x: S.sp_sum(x, None, sparse_grad=True), [], True),
    ("sp_sum_0_sparse_grad", lambda x: S.sp_sum(x, 0, sparse_grad=True), [], True),
    ("sp_sum_1_sparse_grad", lambda x: S.sp_sum(x, 1, sparse_grad=True), [], True),
    ("structured_sigmoid", S.structured_sigmoid, [], True),
    ("structured_exp", S.structured_exp, [], True),
    ("structured_log", lambda x: S.structured_log(S.structured_pow(x, 2.0)), [], True),
    ("structured_pow", lambda x: S.structured_pow(x, 3.0), [], True),
    ("structured_minimum", lambda x: S.structured_minimum(x, 0.3), [], True),
    ("structured_maximum", lambda x: S.structured_maximum(x, -0.3), [], True),
    ("structured_add", lambda x: S.structured_add(x, 2.0), [], True),
    ("row_scale", lambda x, s: S.row_scale(x, s), [V4], True),
    ("col_scale", lambda x, s: S.col_scale(x, s), [V5], True),
    ("sp_ones_like_times", lambda x: S.sp_ones_like(x) * x, [], True),
]


@pytest.mark.parametrize(("name", "op", "extra", "structured"), GRAD_CASES,
                         ids=[c[0] for c in GRAD_CASES])
@pytest.mark.parametrize("fmt", FORMATS)
def test_verify_grad_sparse(name: str, op: Callable[..., Any], extra: list[Any],
                            structured: bool, fmt: str) -> None:
    m = rand_sparse((4, 5), 0.5, fmt, "float32" if name == "cast" else "float64", seed=31)
    S.verify_grad_sparse(op, [m, *extra], structured=structured, rng=np.random.default_rng(3))


@pytest.mark.parametrize("density", [0.0, 0.3, 1.0])
def test_verify_grad_sparse_densities(density: float) -> None:
    # an empty matrix (no stored entry) and a full one, for a structured and a regular Op
    m = rand_sparse((4, 5), density, "csr", seed=32)
    S.verify_grad_sparse(lambda x, v: S.dot(x, v), [m, V5], structured=False)
    if m.nnz:
        S.verify_grad_sparse(lambda x, b: S.structured_dot(x, b), [m, D53], structured=True)
    else:  # the gradient has no entry at all
        x, b = S.csr_matrix("x"), tt.dmatrix("b")
        g = theon.grad(S.structured_dot(x, b).sum(), x)
        assert theon.function([x, b], g)(m, D53).nnz == 0


def test_structured_checks_can_fail() -> None:
    """The regular check perturbs the entries a structured gradient ignores: it must
    fail there, so the two modes are not interchangeable (the checks can fail)."""
    m = rand_sparse((4, 5), 0.5, "csr", seed=33)
    with pytest.raises(GradientError):
        S.verify_grad_sparse(lambda x, b: S.structured_dot(x, b), [m, D53], structured=False)


def test_structured_dot_grad_keeps_pattern_and_values() -> None:
    for fmt in FORMATS:
        m = rand_sparse((6, 5), 0.4, fmt, seed=34)
        x, b, w = S.matrix(fmt, "x"), tt.dmatrix("b"), tt.dmatrix("w")
        cost = (S.structured_dot(x, b) * w).sum()
        g = theon.grad(cost, x)
        assert g.type == x.type
        B, W = RNG.normal(size=(5, 3)), RNG.normal(size=(6, 3))
        for mode in (None, VM):
            got = theon.function([x, b, w], g, mode=mode)(m, B, W)
            assert got.format == fmt and pattern(got) == pattern(m)
            assert np.array_equal(got.indices, m.indices) and np.array_equal(got.indptr, m.indptr)
            for i, j, v in loop_entries(got):  # d cost / d x[i, j] = W[i] . B[j]
                assert abs(v - sum(W[i, k] * B[j, k] for k in range(3))) < 1e-12


def test_dense_from_sparse_grad_is_restricted_to_the_pattern() -> None:
    # Theano's and PyTensor's structured DenseFromSparse: the dense gradient read at x's entries
    m = rand_sparse((5, 4), 0.4, "csc", seed=35)
    x, w = S.csc_matrix("x"), tt.dmatrix("w")
    W = RNG.normal(size=(5, 4))
    g = theon.grad((S.dense_from_sparse(x) * w).sum(), x)
    got = theon.function([x, w], g)(m, W)
    assert got.format == "csc" and pattern(got) == pattern(m)
    np.testing.assert_array_equal(loop_dense(got), np.where(loop_dense(m) != 0, W, 0.0))
    # the regular one: every entry
    g2 = theon.grad((S.DenseFromSparse(structured=False)(x) * w).sum(), x)
    np.testing.assert_array_equal(loop_dense(theon.function([x, w], g2)(m, W)), W)


def test_dot_grad_is_regular_and_sparse_typed() -> None:
    m = rand_sparse((5, 4), 0.4, "csr", seed=36)
    x, v = S.csr_matrix("x"), tt.dvector("v")
    V = RNG.normal(size=4)
    g = theon.grad(S.dot(x, v).sum(), x)
    assert g.type == x.type
    np.testing.assert_allclose(loop_dense(theon.function([x, v], g)(m, V)), np.tile(V, (5, 1)))


def test_grad_of_float32_sparse_is_float32() -> None:
    m = rand_sparse((4, 5), 0.5, "csr", "float32", seed=37)
    x, b = S.csr_matrix("x", "float32"), tt.fmatrix("b")
    cost = S.structured_sigmoid(x).toarray().sum() + S.structured_dot(x, b).sum() + \
        S.sp_sum(x * 2.0)
    gx, gb = theon.grad(cost, [x, b])
    assert gx.type == x.type and gb.dtype == "float32"
    out = theon.function([x, b], [gx, gb])(m, D53.astype("float32"))
    assert out[0].dtype == np.float32 and out[1].dtype == np.float32
    S.verify_grad_sparse(S.structured_sigmoid, [m], structured=True)
    S.verify_grad_sparse(lambda a, v: S.dot(a, v), [m, V5.astype("float32")], structured=False)


@pytest.mark.parametrize("scale", [20.0, 40.0])
def test_structured_sigmoid_grad_at_extreme_inputs(scale: float) -> None:
    m = rand_sparse((4, 5), 0.5, "csr", seed=38)
    m.data = np.sign(m.data) * scale
    S.verify_grad_sparse(S.structured_sigmoid, [m], structured=True)
    x = S.csr_matrix("x")
    g = theon.function([x], theon.grad(S.sp_sum(S.structured_sigmoid(x)), x))(m)
    assert np.all(np.isfinite(g.data)) and np.all(g.data >= 0)


def test_structured_exp_log_grad_at_extreme_inputs() -> None:
    m = rand_sparse((3, 4), 0.6, "csc", seed=39)
    m.data = np.abs(m.data) * 1e-6 + 1e-8  # log near zero
    S.verify_grad_sparse(S.structured_log, [m], structured=True, rel_tol=1e-3, eps=1e-12)
    m2 = rand_sparse((3, 4), 0.6, "csc", seed=40)
    m2.data = m2.data * 20.0  # exp up to e^40
    S.verify_grad_sparse(S.structured_exp, [m2], structured=True)


def test_grad_of_mixed_graph_both_linkers() -> None:
    """Logistic regression on a sparse design: gradients wrt the dense weights agree
    between linkers and with a NumPy formula."""
    X = rand_sparse((30, 8), 0.3, "csr", seed=41)
    y = (RNG.random(30) < 0.5).astype(float)
    w0 = RNG.normal(size=8)
    x, t, w = S.csr_matrix("x"), tt.dvector("t"), tt.dvector("w")
    z = S.dot(x, w)
    loss = tt.mean(tt.softplus(z) - t * z)
    gw = theon.grad(loss, w)
    A = loop_dense(X)
    p = 1 / (1 + np.exp(-(A @ w0)))
    ref = A.T @ (p - y) / 30
    for mode in (None, VM):
        lv, gv = theon.function([x, t, w], [loss, gw], mode=mode)(X, y, w0)
        np.testing.assert_allclose(gv, ref, rtol=1e-12, atol=1e-14)
    theon.verify_grad(lambda wv: tt.mean(tt.softplus(S.dot(S.as_sparse_variable(X), wv))),
                      [w0])


def test_zeros_and_ones_for_the_gradient_walk() -> None:
    # a sparse variable reached by the walk with no connected term gets structured zeros
    x = S.csr_matrix("x")
    m = rand_sparse((3, 3), 0.5, "csr", seed=42)
    zeros = x.zeros_like()
    got = theon.function([x], zeros)(m)
    assert got.format == "csr" and not got.toarray().any()
    g = theon.grad(S.sp_sum(x) * 0.0 + 1.0, x, disconnected_inputs="ignore")
    assert isinstance(theon.function([x], g)(m), sp.csr_matrix)
