"""cumsum, cumprod, diff, repeat, nonzero, sort, argsort, take_along_axis vs NumPy."""

import importlib

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.gradient import verify_grad
from theon.tensor import extra_ops

from .core_checks import check_infer_shape, run

tsort = importlib.import_module("theon.tensor.sort")

rng = np.random.default_rng(3)
DTYPES = ["float64", "float32", "int32", "int8", "bool"]


def _val(shape, dtype):
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype.startswith("int"):
        return rng.integers(-3, 4, size=shape).astype(dtype)
    return rng.uniform(0.5, 1.5, size=shape).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("fn", ["cumsum", "cumprod"])
def test_cum_ops(dtype, axis, fn):
    x = tt.tensor(dtype, shape=(None, None), name="x")
    xv = _val((3, 4), dtype)
    out = getattr(extra_ops, fn)(x, axis=axis)
    ref = getattr(np, fn)(xv, axis=axis)
    res = run([x], out, xv)
    assert res.dtype == ref.dtype == out.dtype
    np.testing.assert_allclose(res, ref, rtol=1e-6)
    check_infer_shape(out, [x], [xv])
    assert run([x], getattr(x, fn)(axis=axis), xv).shape == ref.shape


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_cum_grads(axis):
    xv = rng.uniform(0.5, 1.5, size=(3, 4))
    verify_grad(lambda v: extra_ops.cumsum(v, axis=axis), [xv], rng=rng)
    verify_grad(lambda v: extra_ops.cumprod(v, axis=axis), [xv], rng=rng)


def _cumprod_grad_ref(xv, gz, axis):
    """NumPy: g[i] = sum_{j >= i} gz[j] * prod_{k <= j, k != i} x[k], term by term."""
    if axis is None:
        return _cumprod_grad_ref(xv.reshape(-1), gz.reshape(-1), 0).reshape(xv.shape)
    xm, gm = np.moveaxis(xv, axis, 0), np.moveaxis(gz, axis, 0)
    n = xm.shape[0]
    g = np.zeros_like(xm)
    for i in range(n):
        for j in range(i, n):
            others = np.delete(xm[: j + 1], i, axis=0)
            g[i] += gm[j] * np.prod(others, axis=0)
    return np.moveaxis(g, 0, axis)


@pytest.mark.parametrize(
    "xv",
    [[2.0, 0.0, 3.0], [0.0, 0.0, 3.0], [2.0, 3.0, 0.0], [0.0, 2.0, 0.0, 5.0], [0.0],
     [1.5, -2.0, 0.5, 3.0], [0.0, 0.0, 0.0]],
)
def test_cumprod_grad_at_zeros(xv):
    """The issue's example: grad(cumprod(x).sum()) at [2, 0, 3] is [1, 8, 0] (was NaN)."""
    xv = np.array(xv)
    x = tt.dvector("x")
    g = theon.function([x], theon.grad(extra_ops.cumprod(x).sum(), x))(xv)
    np.testing.assert_allclose(g, _cumprod_grad_ref(xv, np.ones_like(xv), 0), rtol=1e-14)
    if xv.size > 1:
        verify_grad(extra_ops.cumprod, [xv], rng=rng)  # a polynomial: smooth at zeros too


@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_cumprod_grad_with_zeros_along_axes(axis, dtype):
    xv = rng.uniform(-1.5, 1.5, size=(4, 5))
    xv[rng.random((4, 5)) < 0.3] = 0.0
    xv = xv.astype(dtype)
    gz = rng.normal(size=(20,) if axis is None else (4, 5)).astype(dtype)
    x = tt.tensor(dtype, shape=(None, None), name="x")
    w = tt.tensor(dtype, shape=(None,) * gz.ndim, name="w")
    out = (extra_ops.cumprod(x, axis=axis) * w).sum()
    g = theon.function([x, w], theon.grad(out, x))(xv, gz)
    assert g.dtype == dtype
    ref = _cumprod_grad_ref(xv.astype("float64"), gz.astype("float64"), axis)
    np.testing.assert_allclose(g, ref, rtol=1e-5 if dtype == "float32" else 1e-13, atol=1e-6)
    if dtype == "float64":
        verify_grad(lambda v: extra_ops.cumprod(v, axis=axis), [xv], rng=rng)


def test_cumprod_second_derivative_and_rop_at_zeros():
    """The gradient's own gradient (a LinearRecurrence) and the R_op divide by nothing either."""
    xv = np.array([1.5, 0.0, -2.0, 0.0, 0.5])
    wv = rng.normal(size=5)
    verify_grad(lambda v: theon.grad((extra_ops.cumprod(v) * wv).sum(), v), [xv], rng=rng)
    x, ev = tt.dvector("x"), tt.dvector("ev")
    ev_v = rng.normal(size=5)
    r = theon.function([x, ev], theon.gradient.Rop(extra_ops.cumprod(x), x, ev))(xv, ev_v)
    jac = np.stack([_cumprod_grad_ref(xv, np.eye(5)[j], 0) for j in range(5)])  # rows: d out_j
    np.testing.assert_allclose(r, jac @ ev_v, rtol=1e-14, atol=1e-15)


def test_cum_empty_and_errors():
    x = tt.dmatrix("x")
    assert run([x], extra_ops.cumsum(x, 0), np.zeros((0, 2))).shape == (0, 2)
    with pytest.raises(ValueError, match="axis 2 out of range"):
        extra_ops.cumsum(x, axis=2)


@pytest.mark.parametrize("n,axis", [(1, -1), (2, 0), (0, 1), (3, 1)])
def test_diff(n, axis):
    x = tt.dmatrix("x")
    xv = rng.normal(size=(4, 5))
    np.testing.assert_allclose(run([x], extra_ops.diff(x, n, axis), xv), np.diff(xv, n, axis))
    if n:
        verify_grad(lambda v: extra_ops.diff(v, n, axis), [xv], rng=rng)


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("reps", [2, [1, 0, 3]])
def test_repeat(axis, reps):
    x = tt.dmatrix("x")
    xv = rng.normal(size=(3, 3))
    if isinstance(reps, list) and axis is None:
        reps = [1, 2, 0, 1, 1, 2, 0, 1, 3]
    out = extra_ops.repeat(x, np.array(reps), axis=axis)
    ref = np.repeat(xv, reps, axis=axis)
    np.testing.assert_allclose(run([x], out, xv), ref)
    check_infer_shape(out, [x], [xv])
    verify_grad(lambda v: extra_ops.repeat(v, np.array(reps), axis=axis), [xv], rng=rng)
    assert run([x], x.repeat(np.array(reps), axis=axis), xv).shape == ref.shape


def test_repeat_symbolic_and_errors():
    x, r = tt.dvector("x"), tt.lscalar("r")
    np.testing.assert_allclose(run([x, r], extra_ops.repeat(x, r), [1.0, 2.0], 3),
                               np.repeat([1.0, 2.0], 3))
    with pytest.raises(TypeError, match="repeats must be integers"):
        extra_ops.repeat(x, tt.dscalar("f"))


@pytest.mark.parametrize("dtype", ["float64", "int32", "bool"])
def test_nonzero(dtype):
    x = tt.tensor(dtype, shape=(None, None), name="x")
    xv = _val((3, 4), dtype)
    if dtype != "bool":
        xv[0, 1] = 0
    outs = extra_ops.nonzero(x)
    res = run([x], list(outs), xv)
    for got, ref in zip(res, np.nonzero(xv)):
        np.testing.assert_array_equal(got, ref)
        assert got.dtype == np.int64
    np.testing.assert_array_equal(run([x], extra_ops.flatnonzero(x), xv), np.flatnonzero(xv))
    np.testing.assert_array_equal(run([x], x.nonzero()[1], xv), np.nonzero(xv)[1])
    node = outs[0].owner
    from .core_checks import inferred_shapes

    assert inferred_shapes(outs[0], [x], [xv]) == [(len(r),) for r in np.nonzero(xv)]
    assert node.op.connection_pattern(node) == [[False, False]]


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int8"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_sort_argsort(dtype, axis):
    x = tt.tensor(dtype, shape=(None, None), name="x")
    xv = _val((4, 5), dtype)
    s, a = tsort.sort(x, axis=axis), tsort.argsort(x, axis=axis, kind="stable")
    rs, ra = run([x], [s, a], xv)
    np.testing.assert_array_equal(rs, np.sort(xv, axis=axis))
    np.testing.assert_array_equal(ra, np.argsort(xv, axis=axis, kind="stable"))
    assert rs.dtype == xv.dtype and ra.dtype == np.int64
    check_infer_shape(s, [x], [xv])
    np.testing.assert_array_equal(run([x], x.sort(axis=axis if axis is not None else -1), xv),
                                  np.sort(xv, axis=axis if axis is not None else -1))


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_sort_grad(axis):
    xv = rng.permutation(20).reshape(4, 5).astype("float64") + rng.uniform(0, 0.1, (4, 5))
    verify_grad(lambda v: tsort.sort(v, axis=axis), [xv], rng=rng)


def test_take_along_axis_and_grad_with_repeats():
    x = tt.dmatrix("x")
    i = tt.lmatrix("i")
    xv = rng.normal(size=(3, 4))
    iv = np.array([[0, 0, 3], [1, 2, 1], [3, 3, 3]])
    out = tsort.take_along_axis(x, i, 1)
    np.testing.assert_allclose(run([x, i], out, xv, iv), np.take_along_axis(xv, iv, 1))
    g = theon.grad(out.sum(), x)
    expected = np.zeros_like(xv)
    np.add.at(expected, (np.arange(3)[:, None], iv), 1.0)
    np.testing.assert_allclose(run([x, i], g, xv, iv), expected)
    verify_grad(lambda v: tsort.take_along_axis(v, iv, 1), [xv], rng=rng)


def test_sort_errors():
    with pytest.raises(ValueError, match="kind must be one of"):
        tsort.sort(tt.dvector(), kind="bogo")
    with pytest.raises(ValueError, match="at least one dimension"):
        tsort.sort(tt.dscalar())
    with pytest.raises(ValueError, match="axis 3 is out of range"):
        tsort.argsort(tt.dmatrix(), axis=3)
