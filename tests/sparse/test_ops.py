"""Values of every sparse Op against NumPy loops, on both linkers; dtypes; shapes; aliasing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import expit

import theon
import theon.sparse as S
import theon.tensor as tt

from .helpers import DENSITIES, FORMATS, as_dense, loop_dense, loop_entries, rand_sparse, run_both

CASES = [(d, f) for d in DENSITIES for f in FORMATS]


def _sv(fmt: str, dtype: str = "float64", name: str = "x") -> Any:
    return S.matrix(fmt, name, dtype)


@pytest.mark.parametrize(("density", "fmt"), CASES)
def test_conversions_and_transpose(density: float, fmt: str) -> None:
    m = rand_sparse((5, 4), density, fmt, seed=1)
    ref = loop_dense(m)
    x = _sv(fmt)
    np.testing.assert_array_equal(run_both([x], S.dense_from_sparse(x), [m]), ref)
    np.testing.assert_array_equal(run_both([x], x.toarray(), [m]), ref)
    t = run_both([x], S.transpose(x), [m])
    assert t.format == ("csc" if fmt == "csr" else "csr")
    np.testing.assert_array_equal(loop_dense(t), ref.T)
    d = tt.dmatrix("d")
    for conv, out_fmt in ((S.csr_from_dense, "csr"), (S.csc_from_dense, "csc")):
        got = run_both([d], conv(d), [ref])
        assert got.format == out_fmt and got.nnz == np.count_nonzero(ref)
        np.testing.assert_array_equal(loop_dense(got), ref)
    other = "csc" if fmt == "csr" else "csr"
    got = run_both([x], S.as_format(x, other), [m])
    assert got.format == other
    np.testing.assert_array_equal(loop_dense(got), ref)


@pytest.mark.parametrize(("density", "fmt"), CASES)
def test_add_sub_neg(density: float, fmt: str) -> None:
    a = rand_sparse((4, 5), density, fmt, seed=2)
    b = rand_sparse((4, 5), 0.4, "csr", seed=3)
    D = np.random.default_rng(4).normal(size=(4, 5))
    A, B = loop_dense(a), loop_dense(b)
    x, y, d = _sv(fmt), _sv("csr", name="y"), tt.dmatrix("d")
    ss = run_both([x, y], x + y, [a, b])
    assert ss.format == fmt
    np.testing.assert_allclose(loop_dense(ss), A + B)
    np.testing.assert_allclose(run_both([x, d], x + d, [a, D]), A + D)
    np.testing.assert_allclose(run_both([x, d], d + x, [a, D]), A + D)
    np.testing.assert_allclose(run_both([x, d], x - d, [a, D]), A - D)
    np.testing.assert_allclose(run_both([x, d], d - x, [a, D]), D - A)
    np.testing.assert_allclose(loop_dense(run_both([x, y], x - y, [a, b])), A - B)
    neg = run_both([x], -x, [a])
    np.testing.assert_array_equal(loop_dense(neg), -A)
    with pytest.raises(ValueError, match="shapes"):
        theon.function([x, y], x + y)(a, rand_sparse((5, 4), 0.4, "csr"))


@pytest.mark.parametrize(("density", "fmt"), CASES)
def test_mul(density: float, fmt: str) -> None:
    a = rand_sparse((4, 5), density, fmt, seed=5)
    b = rand_sparse((4, 5), 0.5, "csc", seed=6)
    D = np.random.default_rng(7).normal(size=(4, 5))
    A, B = loop_dense(a), loop_dense(b)
    x, y, d, s = _sv(fmt), _sv("csc", name="y"), tt.dmatrix("d"), tt.dscalar("s")
    ss = run_both([x, y], x * y, [a, b])
    assert ss.format == fmt
    np.testing.assert_allclose(loop_dense(ss), A * B)
    for expr in (x * d, d * x, S.mul(x, d)):
        got = run_both([x, d], expr, [a, D])
        assert got.format == fmt
        assert S.csr_dmatrix.values_eq(sp.csr_matrix(got), sp.csr_matrix(A * D))
        # the sparse operand's pattern is kept (sparse * dense is sparse)
        assert got.nnz == a.nnz
    np.testing.assert_allclose(loop_dense(run_both([x, s], x * s, [a, 3.0])), 3.0 * A)
    np.testing.assert_allclose(loop_dense(run_both([x], 2.5 * x, [a])), 2.5 * A)
    # a (1, n) dense row broadcasts (its static length 1)
    r = tt.TensorType("float64", shape=(1, None))("r")
    row = D[:1]
    np.testing.assert_allclose(loop_dense(run_both([x, r], x * r, [a, row])), A * row)


@pytest.mark.parametrize(("density", "fmt"), CASES)
def test_dot_all_operand_kinds(density: float, fmt: str) -> None:
    rng = np.random.default_rng(8)
    a = rand_sparse((5, 4), density, fmt, seed=9)
    A = loop_dense(a)
    b = rand_sparse((4, 3), 0.5, "csc", seed=10)
    B = loop_dense(b)
    M, v, L, u = (rng.normal(size=(4, 3)), rng.normal(size=4), rng.normal(size=(2, 5)),
                  rng.normal(size=5))
    x, y = _sv(fmt), _sv("csc", name="y")
    m, vv, ll, uu = tt.dmatrix("m"), tt.dvector("v"), tt.dmatrix("l"), tt.dvector("u")

    def ref_dot(p: np.ndarray, q: np.ndarray) -> np.ndarray:  # a plain loop
        p2, q2 = np.atleast_2d(p), q.reshape(q.shape[0], -1)
        out = np.zeros((p2.shape[0], q2.shape[1]))
        for i in range(p2.shape[0]):
            for j in range(q2.shape[1]):
                out[i, j] = sum(p2[i, k] * q2[k, j] for k in range(p2.shape[1]))
        return out.reshape(np.broadcast_shapes(p.shape[:-1] + q.shape[1:]))

    np.testing.assert_allclose(run_both([x, m], S.dot(x, m), [a, M]), ref_dot(A, M))
    np.testing.assert_allclose(run_both([x, vv], S.dot(x, vv), [a, v]), ref_dot(A, v))
    np.testing.assert_allclose(run_both([x, ll], S.dot(ll, x), [a, L]), ref_dot(L, A))
    np.testing.assert_allclose(run_both([x, uu], S.dot(uu, x), [a, u]), ref_dot(u, A))
    np.testing.assert_allclose(run_both([x, y], S.dot(x, y), [a, b]), ref_dot(A, B))
    np.testing.assert_allclose(run_both([x, m], x @ m, [a, M]), ref_dot(A, M))
    for f in (S.structured_dot,):
        np.testing.assert_allclose(run_both([x, m], f(x, m), [a, M]), ref_dot(A, M))
        np.testing.assert_allclose(run_both([x, vv], f(x, vv), [a, v]), ref_dot(A, v))
        np.testing.assert_allclose(run_both([x, ll], f(ll, x), [a, L]), ref_dot(L, A))
        np.testing.assert_allclose(run_both([x, uu], f(uu, x), [a, u]), ref_dot(u, A))
    with pytest.raises(ValueError, match="not aligned"):
        theon.function([x, m], S.dot(x, m))(a, M.T)
    with pytest.raises(TypeError, match="sparse operand"):
        S.dot(m, m)


@pytest.mark.parametrize(("density", "fmt"), CASES)
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_sums(density: float, fmt: str, axis: int | None) -> None:
    a = rand_sparse((4, 6), density, fmt, seed=11)
    A = loop_dense(a)
    x = _sv(fmt)
    ref = A.sum() if axis is None else A.sum(axis=axis)
    for expr in (S.sp_sum(x, axis), x.sum(axis), S.sum(x, axis, sparse_grad=True)):
        got = run_both([x], expr, [a])
        assert got.shape == np.shape(ref) and got.dtype == np.float64
        np.testing.assert_allclose(got, ref, atol=1e-14)


STRUCTURED: list[tuple[str, Callable[..., Any], Callable[[float], float], tuple[Any, ...]]] = [
    ("sigmoid", S.structured_sigmoid, lambda v: float(expit(v)), ()),
    ("exp", S.structured_exp, np.exp, ()),
    ("log", S.structured_log, np.log, ()),
    ("pow", S.structured_pow, lambda v: v ** 3.0, (3.0,)),
    ("minimum", S.structured_minimum, lambda v: min(v, 0.7), (0.7,)),
    ("maximum", S.structured_maximum, lambda v: max(v, -0.3), (-0.3,)),
    ("add", S.structured_add, lambda v: v + 1.5, (1.5,)),
]


@pytest.mark.parametrize(("name", "fn", "ref", "args"), STRUCTURED, ids=[c[0] for c in STRUCTURED])
@pytest.mark.parametrize(("density", "fmt"), CASES)
def test_structured_functions(name: str, fn: Callable[..., Any], ref: Callable[[float], float],
                              args: tuple[Any, ...], density: float, fmt: str) -> None:
    low = 0.2 if name == "log" else -2.0
    a = rand_sparse((5, 4), density, fmt, seed=12, low=low)
    x = _sv(fmt)
    got = run_both([x], fn(x, *args), [a])
    assert got.format == fmt and got.nnz == a.nnz
    expected = np.zeros(a.shape)
    for i, j, v in loop_entries(a):  # only the stored entries are mapped
        expected[i, j] = ref(v)
    np.testing.assert_allclose(loop_dense(got), expected, rtol=1e-12)


@pytest.mark.parametrize(("density", "fmt"), CASES)
def test_row_col_scale(density: float, fmt: str) -> None:
    a = rand_sparse((4, 3), density, fmt, seed=13)
    rs, cs = np.array([1.0, -2.0, 3.0, 0.5]), np.array([2.0, -1.0, 4.0])
    x, s = _sv(fmt), tt.dvector("s")
    got_r = run_both([x, s], S.row_scale(x, s), [a, rs])
    got_c = run_both([x, s], S.col_scale(x, s), [a, cs])
    er, ec = np.zeros(a.shape), np.zeros(a.shape)
    for i, j, v in loop_entries(a):
        er[i, j], ec[i, j] = v * rs[i], v * cs[j]
    assert got_r.format == got_c.format == fmt
    np.testing.assert_allclose(loop_dense(got_r), er)
    np.testing.assert_allclose(loop_dense(got_c), ec)
    with pytest.raises(ValueError, match="entries for"):
        theon.function([x, s], S.row_scale(x, s))(a, cs)


def test_csm_round_trip_and_properties() -> None:
    a = rand_sparse((4, 5), 0.5, "csr", seed=14)
    x = S.csr_matrix("x")
    data, ind, ptr, shape = run_both([x], S.csm_properties(x), [a])
    entries = loop_entries(a)
    assert data.tolist() == [v for _, _, v in entries]
    assert ind.tolist() == [j for _, j, _ in entries]
    assert ptr.tolist() == a.indptr.tolist() and shape.tolist() == [4, 5]
    dv = tt.dvector("data")
    rebuilt = run_both([x, dv], S.CSR(dv, S.csm_indices(x), S.csm_indptr(x), S.csm_shape(x)),
                       [a, data * 2])
    np.testing.assert_allclose(loop_dense(rebuilt), 2 * loop_dense(a))
    ones = run_both([x], S.sp_ones_like(x), [a])
    np.testing.assert_array_equal(loop_dense(ones), (loop_dense(a) != 0).astype(float))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_sp_zeros_like_stores_nothing(fmt: str, dtype: str) -> None:
    """Issue 29 item 10: the zero matrix of x's format, shape and dtype, as SciPy builds
    it (``sp.csr_matrix(shape)``): no stored entries, not explicit zeros."""
    a = sp.csr_matrix(np.array([[0.0, 1.5, 0.0], [2.0, 0.0, 3.0]], dtype=dtype)).asformat(fmt)
    assert a.nnz == 3
    x = S.csr_matrix("x", dtype=dtype) if fmt == "csr" else S.csc_matrix("x", dtype=dtype)
    got = run_both([x], S.sp_zeros_like(x), [a])
    want = (sp.csr_matrix if fmt == "csr" else sp.csc_matrix)(a.shape, dtype=dtype)
    assert got.format == want.format == fmt and got.shape == want.shape
    assert got.dtype == want.dtype == np.dtype(dtype)
    assert got.nnz == want.nnz == 0
    np.testing.assert_array_equal(got.indptr, want.indptr)
    assert len(got.indices) == len(got.data) == 0
    np.testing.assert_array_equal(got.toarray(), want.toarray())


def test_cast() -> None:
    a = rand_sparse((3, 4), 0.5, "csc", seed=15)
    x = S.csc_matrix("x")
    got = run_both([x], S.cast(x, "float32"), [a])
    assert got.dtype == np.float32 and got.format == "csc"
    np.testing.assert_allclose(loop_dense(got), loop_dense(a).astype(np.float32))
    assert S.cast(x, "float64") is x


FLOAT32_EXPRS: list[tuple[str, Callable[[Any, Any, Any], Any]]] = [
    ("dense", lambda x, d, v: S.dense_from_sparse(x)),
    ("transpose", lambda x, d, v: x.T),
    ("add_ss", lambda x, d, v: x + x),
    ("add_sd", lambda x, d, v: x + d),
    ("mul_sd", lambda x, d, v: x * d),
    ("mul_scalar", lambda x, d, v: x * 2.0),
    ("neg", lambda x, d, v: -x),
    ("dot", lambda x, d, v: S.dot(x, v)),
    ("structured_dot", lambda x, d, v: S.structured_dot(x, d.T)),
    ("sum", lambda x, d, v: S.sp_sum(x, 1)),
    ("sigmoid", lambda x, d, v: S.structured_sigmoid(x)),
    ("pow", lambda x, d, v: S.structured_pow(x, 2.0)),
    ("add_scalar", lambda x, d, v: S.structured_add(x, 1.0)),
    ("min", lambda x, d, v: S.structured_minimum(x, 0.5)),
    ("row_scale", lambda x, d, v: S.row_scale(x, d[0, :3])),
    ("col_scale", lambda x, d, v: S.col_scale(x, v)),
    ("csr_from_dense", lambda x, d, v: S.csr_from_dense(d)),
]


@pytest.mark.parametrize(("name", "build"), FLOAT32_EXPRS, ids=[n for n, _ in FLOAT32_EXPRS])
def test_float32_stays_float32(name: str, build: Callable[[Any, Any, Any], Any]) -> None:
    x, d, v = S.csr_matrix("x", "float32"), tt.fmatrix("d"), tt.fvector("v")
    out = build(x, d, v)
    assert out.dtype == "float32", (name, out.type)
    a = rand_sparse((3, 4), 0.5, "csr", "float32", seed=16)
    D = np.random.default_rng(17).normal(size=(3, 4)).astype("float32")
    got = run_both([x, d, v], out, [a, D, D[0]])
    assert got.dtype == np.float32


def test_infer_shape_of_every_op() -> None:
    """Each Op's ``infer_shape``, fed symbolic shapes (and, for sparse inputs, the empty
    entry the shape feature gives), evaluates to the shape of the value it computes."""
    a = rand_sparse((5, 3), 0.5, "csr", seed=18)
    b = rand_sparse((5, 3), 0.5, "csc", seed=19)
    x, y, d, v = S.csr_matrix("x"), S.csc_matrix("y"), tt.dmatrix("d"), tt.dvector("v")
    rng = np.random.default_rng(20)
    D, V = rng.normal(size=(5, 3)), rng.normal(size=3)
    outs = [
        S.dense_from_sparse(x), S.csr_from_dense(d), S.transpose(x), x + S.as_format(y, "csr"),
        x + d, x * S.as_format(y, "csr"), x * d, S.dot(x, v), S.dot(x, d.T), S.dot(d.T, x),
        S.dot(x, S.transpose(y)), S.structured_dot(x, v), S.structured_dot(x, d.T),
        S.sp_sum(x), S.sp_sum(x, 0), S.sp_sum(x, 1), S.row_scale(x, d[:, 0]),
        S.col_scale(x, v), S.cast(x, "float32"), S.as_format(x, "csc"), x.shape,
        S.structured_exp(x), S.CSMGrad("csr")(S.csm_indices(x), S.csm_indptr(x), d),
        S.StructuredDotGrad()(x, v, d[:, 0]), S.StructuredDotGrad()(x, d.T, tt.dot(d, d.T)),
    ] + list(S.csm_properties(x))
    args = [a, b, D, V]
    for out in outs:
        node = out.owner
        value = theon.function([x, y, d, v], out, on_unused_input="ignore")(*args)
        for sparse_given in (True, False):
            shapes = []
            for i in node.inputs:
                if S.is_sparse_variable(i):
                    shapes.append((S.sp_shape(i)[0], S.sp_shape(i)[1]) if sparse_given else ())
                else:
                    shapes.append(tuple(tt.shape(i)[k] for k in range(i.type.ndim)))
            (inferred,) = node.op.infer_shape(node, shapes) if len(node.outputs) == 1 else \
                [node.op.infer_shape(node, shapes)[out.index]]
            f = theon.function([x, y, d, v], [tt.as_tensor_variable(s) for s in inferred],
                               on_unused_input="ignore")
            got = tuple(int(s) for s in f(*args)) if inferred else ()
            assert got == np.shape(value), (node.op, got, np.shape(value))


def test_dense_output_shape_is_not_computed() -> None:
    # the shape feature reads infer_shape: the product is never computed for its shape
    x, w = S.csr_matrix("x"), tt.dmatrix("w")
    f = theon.function([x, w], S.dot(x, w).shape)
    assert not any(isinstance(n.op, S.Dot) for n in f.maker.fgraph.apply_nodes)
    assert f(rand_sparse((6, 4), 0.3), np.zeros((4, 2))).tolist() == [6, 2]


def test_outputs_never_alias_inputs() -> None:
    a = rand_sparse((4, 4), 0.5, "csr", seed=21)
    keep = a.copy()
    x = S.csr_matrix("x")
    f = theon.function([x], [x.T, S.csm_data(x), S.csm_indices(x), x])
    t, data, ind, same = f(a)
    t.data[:] = 123.0
    data[:] = 77.0
    ind[:] = 0
    same.data[:] = -1.0
    assert S.csr_dmatrix.values_eq(a, keep) and np.array_equal(a.indices, keep.indices)


def test_errors_name_the_node() -> None:
    x, y = S.csr_matrix("lhs"), S.csr_matrix("rhs")
    f = theon.function([x, y], x * y)
    with pytest.raises(ValueError, match="'lhs'.*'rhs'"):
        f(rand_sparse((2, 3), 0.5), rand_sparse((3, 2), 0.5))
    with pytest.raises(TypeError, match="0-d or 2-d"):
        x * tt.dvector("v")


def test_as_dense_helper_agrees_with_scipy() -> None:
    # the loop reference itself, on every format and density used above
    for density, fmt in CASES:
        m = rand_sparse((6, 5), density, fmt, seed=22)
        np.testing.assert_array_equal(as_dense(m), m.toarray())
        if density == 0.0:
            assert m.nnz == 0
        assert not loop_dense(m)[1].any()  # the empty row


def test_sign_is_structured() -> None:
    """``theon.sparse.sign`` (PyTensor's): the sign of the stored entries, the pattern
    kept; PyMC's CAR tests symmetry with ``sign(W - W.T) * (W - W.T)``."""
    import theon.sparse as S

    x = S.csr_matrix("x")
    vals = sp.random(5, 4, density=0.4, format="csr", random_state=3) - 0.5 * sp.random(
        5, 4, density=0.4, format="csr", random_state=4)
    out = theon.function([x], S.sign(x))(vals.tocsr())
    assert sp.issparse(out) and out.format == "csr"
    np.testing.assert_array_equal(out.toarray(), np.sign(vals.toarray()))
    w = S.csr_matrix("w")
    asym = S.sign(w - w.T) * (w - w.T)
    f = theon.function([w], S.dense_from_sparse(asym).sum())
    sym = sp.csr_matrix(np.array([[0.0, 2.0], [2.0, 0.0]]))
    non = sp.csr_matrix(np.array([[0.0, 2.0], [1.0, 0.0]]))
    assert f(sym) == 0.0 and f(non) == 2.0
