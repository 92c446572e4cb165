"""dot, matmul, tensordot, outer, einsum against NumPy; shapes; gradients."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theon.tensor as tt
from theon.gradient import verify_grad
from theon.tensor.type import TensorType

from .core_checks import check_infer_shape, run

rng = np.random.default_rng(42)


def _val(shape, dtype):
    if dtype.startswith("int"):
        return rng.integers(-5, 5, size=shape).astype(dtype)
    return rng.normal(size=shape).astype(dtype)


CASES = [
    ((3, 4), (4, 5)), ((3, 4), (4,)), ((4,), (4, 5)), ((4,), (4,)),
    ((0, 4), (4, 2)), ((3, 0), (0, 2)),
]


@pytest.mark.parametrize("sa,sb", CASES)
@pytest.mark.parametrize("da,db", [("float64", "float64"), ("float32", "float32"),
                                   ("int32", "float32"), ("int64", "int8"), ("float32", "float64")])
def test_dot_matches_numpy(sa, sb, da, db):
    a = TensorType(da, shape=(None,) * len(sa))("a")
    b = TensorType(db, shape=(None,) * len(sb))("b")
    av, bv = _val(sa, da), _val(sb, db)
    out = tt.dot(a, b)
    res = run([a, b], out, av, bv)
    ref = np.dot(av, bv)
    assert res.dtype == ref.dtype and out.dtype == ref.dtype
    np.testing.assert_allclose(res, ref, rtol=1e-5)
    check_infer_shape(out, [a, b], [av, bv])
    np.testing.assert_allclose(run([a, b], a.dot(b), av, bv), ref, rtol=1e-5)


@pytest.mark.parametrize("sa,sb", [
    ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)),
    ((4,), (2, 4, 3)), ((2, 3, 4), (4,)), ((3, 4), (4, 2)),
])
def test_matmul_matches_numpy(sa, sb):
    a = tt.tensor("float64", shape=(None,) * len(sa), name="a")
    b = tt.tensor("float64", shape=(None,) * len(sb), name="b")
    av, bv = _val(sa, "float64"), _val(sb, "float64")
    out = a @ b
    np.testing.assert_allclose(run([a, b], out, av, bv), av @ bv)
    assert out.ndim == np.ndim(av @ bv)
    from theon.tensor.shape import shape

    assert tuple(run([a, b], shape(out), av, bv)) == (av @ bv).shape
    verify_grad(lambda x, y: tt.matmul(x, y), [av, bv], rng=rng)


def test_dot_higher_rank_and_scalar():
    a, b = tt.dtensor3("a"), tt.dtensor3("b")
    av, bv = _val((2, 3, 4), "float64"), _val((3, 4, 5), "float64")
    np.testing.assert_allclose(run([a, b], tt.dot(a, b), av, bv), np.dot(av, bv))
    s = tt.dscalar("s")
    np.testing.assert_allclose(run([s, a], tt.dot(s, a), 2.0, av), np.dot(2.0, av))


@pytest.mark.parametrize("axes,sa,sb", [
    (0, (2, 3, 4), (5, 2, 3)), (1, (2, 3, 4), (4, 2, 3)), (2, (2, 3, 4), (3, 4, 5)),
    ([[1], [0]], (2, 3, 4), (3, 2, 5)), ([[0, 2], [1, 0]], (2, 3, 4), (4, 2, 5)),
    (([2], [1]), (2, 3, 4), (2, 4, 3)),
])
def test_tensordot(axes, sa, sb):
    a, b = tt.dtensor3("a"), tt.dtensor3("b")
    av, bv = _val(sa, "float64"), _val(sb, "float64")
    out = tt.tensordot(a, b, axes)
    np.testing.assert_allclose(run([a, b], out, av, bv), np.tensordot(av, bv, axes))
    verify_grad(lambda x, y: tt.tensordot(x, y, axes), [av, bv], rng=rng)


def test_outer():
    a, b = tt.dvector("a"), tt.dmatrix("b")
    av, bv = _val((3,), "float64"), _val((2, 2), "float64")
    np.testing.assert_allclose(run([a, b], tt.outer(a, b), av, bv), np.outer(av, bv))


@pytest.mark.parametrize("spec,shapes", [
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("ij->ji", [(3, 4)]), ("ij->", [(3, 4)]),
    ("i,i->", [(4,), (4,)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]), ("ijk->j", [(2, 3, 4)]),
    ("ij,kj", [(2, 3), (4, 3)]),
])
def test_einsum(spec, shapes):
    vars_ = [tt.tensor("float64", shape=(None,) * len(s), name=f"x{i}")
             for i, s in enumerate(shapes)]
    vals = [_val(s, "float64") for s in shapes]
    out = tt.einsum(spec, *vars_)
    ref = np.einsum(spec, *vals)
    res = run(vars_, out, *vals)
    np.testing.assert_allclose(res, ref)
    assert out.ndim == np.ndim(ref)
    check_infer_shape(out, vars_, vals)
    verify_grad(lambda *xs: tt.einsum(spec, *xs), vals, rng=rng)


def test_einsum_errors():
    with pytest.raises(ValueError, match="names 2 operands, 1 were given"):
        tt.einsum("ij,jk->ik", tt.dmatrix())
    with pytest.raises(ValueError, match="does not fit"):
        tt.einsum("ijk->i", tt.dmatrix())
    a = TensorType("float64", shape=(3, 4))()
    b = TensorType("float64", shape=(5, 6))()
    with pytest.raises(ValueError, match="sizes 4 and 5"):
        tt.einsum("ij,jk->ik", a, b)


def test_static_shape_errors_name_both_shapes():
    a = TensorType("float64", shape=(3, 4))("a")
    b = TensorType("float64", shape=(5, 6))("b")
    with pytest.raises(ValueError, match=r"\(3, 4\) and \(5, 6\)"):
        tt.dot(a, b)
    with pytest.raises(ValueError, match=r"\(3, 4\) and \(5, 6\)"):
        a @ b
    c = TensorType("float64", shape=(2, 3, 4))("c")
    with pytest.raises(ValueError, match="not aligned"):
        tt.matmul(c, b)
    with pytest.raises(ValueError, match="scalar operands"):
        tt.matmul(tt.dscalar(), a)


def test_static_shape_propagates():
    a = TensorType("float64", shape=(3, 4))("a")
    b = TensorType("float64", shape=(4, None))("b")
    assert tt.dot(a, b).type.shape == (3, None)
    c = TensorType("float64", shape=(7, 3, 4))("c")
    assert tt.matmul(c, b).type.shape == (7, 3, None)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 4), m=st.integers(1, 4), k=st.integers(1, 4))
def test_dot_grads_all_rank_combinations(n, m, k):
    for sa, sb in [((n, k), (k, m)), ((n, k), (k,)), ((k,), (k, m)), ((k,), (k,))]:
        verify_grad(tt.dot, [_val(sa, "float64"), _val(sb, "float64")], rng=rng)


def test_int_inputs_disconnected_from_grad():
    import theon

    x = tt.dmatrix("x")
    i = tt.imatrix("i")
    cost = tt.dot(x, i).sum()
    g = theon.grad(cost, x)
    res = run([x, i], g, np.ones((2, 3)), np.ones((3, 2), dtype="int32"))
    np.testing.assert_allclose(res, np.full((2, 3), 2.0))
    # no gradient flows into integers: float zeros, as PyTensor gives (issue 15)
    gi = theon.grad(cost, i)
    assert gi.dtype == theon.config.floatX
    np.testing.assert_array_equal(run([x, i], gi, np.ones((2, 3)), np.ones((3, 2), "int32")),
                                  np.zeros((3, 2)))


def test_rop_of_dot():
    import theon
    from theon.gradient import Rop

    x, w = tt.dvector("x"), tt.dmatrix("w")
    v = tt.dvector("v")
    y = tt.dot(w, x)
    r = Rop(y, x, v)
    wv, xv, vv = _val((3, 4), "float64"), _val((4,), "float64"), _val((4,), "float64")
    f = theon.function([w, x, v], r, on_unused_input="ignore")
    np.testing.assert_allclose(f(wv, xv, vv), wv @ vv)
