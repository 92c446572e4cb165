"""Reductions (CAReduce family, Argmax, mean/var/std/logsumexp) against NumPy/SciPy."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import scipy.special as sps
from hypothesis import given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
from tests.tensor.core_checks import MODE, check_infer_shape, run
from theon.gradient import verify_grad
from theon.tensor.elemwise import CAReduce
from theon.tensor.reduction import All, Argmax, Max, Min, Prod, Sum

rng = np.random.default_rng(7)

REDUCTIONS: dict[str, tuple[Any, Any]] = {
    "sum": (tt.sum, np.sum),
    "prod": (tt.prod, np.prod),
    "max": (tt.max, np.max),
    "min": (tt.min, np.min),
    "all": (tt.all, np.all),
    "any": (tt.any, np.any),
    "mean": (tt.mean, np.mean),
    "var": (tt.var, np.var),
    "std": (tt.std, np.std),
    "argmax": (tt.argmax, np.argmax),
    "argmin": (tt.argmin, np.argmin),
    "logsumexp": (tt.logsumexp, sps.logsumexp),
}
AXES: list[Any] = [None, 0, 1, -1, (0, 2), (-1, 0), (0, 1, 2), ()]
DTYPES = ["float64", "float32", "int32", "int8", "uint8", "bool"]


def _value(dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    if dtype == "bool":
        return rng.random(shape) > 0.4
    if dtype.startswith(("int", "uint")):
        return rng.integers(0 if dtype.startswith("u") else -3, 4, shape).astype(dtype)
    return rng.normal(size=shape).astype(dtype)


def _ref(name: str, npf: Any, xv: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
    if name in ("argmax", "argmin"):
        if axis is not None and not isinstance(axis, int):
            pytest.skip("NumPy's argmax takes one axis")
        return np.asarray(npf(xv, axis=axis, keepdims=keepdims))
    if name == "logsumexp" and xv.dtype.kind in "biu":
        xv = xv.astype("float64")
    with np.errstate(all="ignore"):
        return np.asarray(npf(xv, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("keepdims", [False, True])
def test_against_numpy(name: str, dtype: str, keepdims: bool) -> None:
    fn, npf = REDUCTIONS[name]
    x = tt.TensorType(dtype, (None, None, None))("x")
    xv = _value(dtype, (2, 3, 4))
    for axis in AXES:
        if name in ("argmax", "argmin") and axis is not None and not isinstance(axis, int):
            continue
        ref = _ref(name, npf, xv, axis, keepdims)
        out = fn(x, axis=axis, keepdims=keepdims)
        assert out.dtype == str(ref.dtype), (name, dtype, axis, out.dtype, ref.dtype)
        got = run([x], out, xv)
        assert got.dtype == ref.dtype and got.shape == ref.shape, (name, axis, got.shape)
        tol = 1e-5 if dtype == "float32" else 1e-12
        np.testing.assert_allclose(got, ref, rtol=tol, atol=tol)
        check_infer_shape(out, [x], [xv])


@pytest.mark.parametrize("name", ["sum", "prod", "all", "any", "mean"])
def test_empty(name: str) -> None:
    fn, npf = REDUCTIONS[name]
    x = tt.dmatrix("x")
    xv = np.zeros((0, 3))
    for axis in (None, 0, 1):
        with np.errstate(all="ignore"):
            ref = np.asarray(npf(xv, axis=axis))
        out = fn(x, axis=axis)
        got = run([x], out, xv)
        assert got.shape == ref.shape
        np.testing.assert_array_equal(got, ref)
        check_infer_shape(out, [x], [xv])


def test_max_of_empty_raises_like_numpy() -> None:
    x = tt.dvector("x")
    f = theon.function([x], tt.max(x), mode=MODE)
    with pytest.raises(ValueError):
        f(np.zeros(0))


def test_nan_propagation() -> None:
    x = tt.dvector("x")
    xv = np.array([1.0, np.nan, 3.0])
    out = run([x], [tt.max(x), tt.min(x), tt.sum(x), tt.argmax(x)], xv)
    assert np.isnan(out[0]) and np.isnan(out[1]) and np.isnan(out[2])
    assert out[3] == np.argmax(xv)


def test_dtype_argument() -> None:
    x = tt.bvector("x")
    xv = np.array([100, 100, 100], dtype="int8")
    assert tt.sum(x, dtype="int8").dtype == "int8"
    assert run([x], tt.sum(x), xv) == 300
    assert run([x], tt.sum(x, dtype="float32"), xv).dtype == np.float32
    y = tt.fvector("y")
    assert tt.sum(y, acc_dtype="float64").dtype == "float64"
    assert tt.sum(y, acc_dtype="float64", dtype="float32").dtype == "float32"
    assert tt.mean(y, dtype="float64").dtype == "float64"
    assert tt.mean(tt.tensor("float16", shape=(None,))).dtype == "float16"


def test_axis_errors() -> None:
    x = tt.dmatrix("x")
    with pytest.raises(ValueError, match="out of bounds"):
        tt.sum(x, axis=2)
    with pytest.raises(ValueError, match="repeated"):
        tt.sum(x, axis=(0, -2))
    with pytest.raises(TypeError, match="integer"):
        tt.sum(x, axis=1.5)


@pytest.mark.parametrize(("name", "reduce"), [
    ("sum", lambda x: x.sum(axis=5)), ("max", lambda x: tt.max(x, axis=(0, 5))),
    ("argmax", lambda x: x.argmax(axis=5)), ("mean", lambda x: x.mean(axis=-5)),
    ("prod", lambda x: tt.prod(x, axis=np.array(5))),
])
def test_an_axis_out_of_bounds_names_the_variable(name: str, reduce: Any) -> None:
    """Issue 29 item 13: NumPy's AxisError, naming the reduction, the axis and the variable."""
    with pytest.raises(np.exceptions.AxisError):
        np.ones((2, 2)).sum(axis=5)
    x = tt.dmatrix("x")
    with pytest.raises(np.exceptions.AxisError) as err:
        reduce(x)
    assert str(err.value).startswith(
        f"{name}: axis {'-5' if name == 'mean' else '5'} is out of bounds for 'x' "
        "(TensorType(float64, shape=(None, None))), built at "
    )
    assert str(err.value).endswith("which has 2 dimensions")


def test_static_shapes() -> None:
    x = tt.TensorType("float64", (2, None, 3))("x")
    assert tt.sum(x, axis=1).type.shape == (2, 3)
    assert tt.max(x, axis=(0, 2), keepdims=True).type.shape == (1, None, 1)
    assert tt.argmax(x, axis=-1).type.shape == (2, None)
    assert tt.mean(x).type.shape == ()


def test_ops_and_props() -> None:
    from theon import scalar as ts

    assert Sum((0,)) == Sum((0,)) and Sum((0,)) != Sum((1,))
    assert Sum((0,), "float32") != Sum((0,))
    assert str(Sum((0, 1))) == "Sum{axis=(0, 1)}"
    assert str(Sum(None)) == "Sum{axes=None}"
    assert str(Max((1,))) == "Max{axis=(1,)}"
    x = tt.dmatrix("x")
    # negative axes are normalized by make_node
    assert tt.sum(x, axis=-1).owner.op == Sum((1,))
    assert CAReduce(ts.add, axis=-1)(x).owner.op.axis == (1,)
    assert isinstance(tt.all(x).owner.op, All)
    generic = CAReduce(ts.maximum, (0,))
    np.testing.assert_array_equal(run([x], generic(x), np.eye(2)), [1.0, 1.0])
    assert "maximum" in str(generic)
    import pickle

    for op in (Sum((0,)), Prod(None, "float32"), Max((1,)), Argmax((0,), "min"), generic):
        assert pickle.loads(pickle.dumps(op)) == op


def test_argmax_multiple_axes() -> None:
    x = tt.dtensor3("x")
    xv = rng.normal(size=(2, 3, 4))
    out = run([x], Argmax((0, 2))(x), xv)
    ref = xv.transpose(1, 0, 2).reshape(3, -1).argmax(-1)
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "mean", "var", "std",
                                  "logsumexp"])
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)])
def test_grad(name: str, axis: Any) -> None:
    fn, _ = REDUCTIONS[name]
    xv = rng.normal(size=(2, 3, 4))
    if name == "prod":
        xv = rng.uniform(0.5, 1.5, size=(2, 3, 4)) * rng.choice([-1, 1], (2, 3, 4))
    verify_grad(lambda a: fn(a, axis=axis), [xv], rng=rng, mode=MODE)
    verify_grad(lambda a: fn(a, axis=axis, keepdims=True), [xv], rng=rng, mode=MODE)


def test_prod_grad_with_zeros() -> None:
    x = tt.dmatrix("x")
    g = theon.grad(tt.prod(x, axis=1).sum(), x)
    xv = np.array([[2.0, 3.0, 4.0], [0.0, 3.0, 4.0], [0.0, 0.0, 4.0], [5.0, 0.0, 0.0]])
    got = run([x], g, xv)
    ref = np.array([[12.0, 8.0, 6.0], [12.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    np.testing.assert_array_equal(got, ref)
    verify_grad(lambda a: tt.prod(a, axis=1), [xv[:2]], rng=rng, mode=MODE)


def test_max_grad_goes_to_argmax() -> None:
    x = tt.dmatrix("x")
    g = theon.grad(tt.max(x, axis=0).sum(), x)
    xv = np.array([[1.0, 5.0], [3.0, 2.0]])
    np.testing.assert_array_equal(run([x], g, xv), [[0.0, 1.0], [1.0, 0.0]])


@pytest.mark.parametrize("fn", [tt.max, tt.min])
def test_grad_of_a_duplicated_extremum(fn) -> None:
    """The issue's example: ``grad(max(concatenate([x, x])))`` at ``[1, 2]`` is ``[0, 1]``
    (each copy gets half), as JAX gives; the function is differentiable there."""
    x = tt.dvector("x")
    g = theon.grad(fn(tt.concatenate([x, x])), x)
    want = [0.0, 1.0] if fn is tt.max else [1.0, 0.0]
    for mode in (MODE, "FAST_RUN"):
        np.testing.assert_array_equal(run([x], g, np.array([1.0, 2.0]), mode=mode), want)
    verify_grad(lambda v: fn(tt.concatenate([v, v, v])), [np.array([1.0, 2.0, -0.5])], rng=rng)


def _tie_share(xv: np.ndarray, axis: Any, kind: str) -> np.ndarray:
    """NumPy: 1/k at each of the k positions holding the extremum of their group."""
    ext = (np.max if kind == "max" else np.min)(xv, axis=axis, keepdims=True)
    mask = (xv == ext).astype(xv.dtype)
    return mask / mask.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("kind", ["max", "min"])
@pytest.mark.parametrize("axis", [None, 0, 1, 2, (0, 2), (1, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_grad_splits_ties_evenly(kind, axis, keepdims, dtype) -> None:
    xv = rng.integers(0, 3, size=(3, 4, 2)).astype(dtype)  # many ties
    x = tt.tensor(dtype, shape=(None, None, None), name="x")
    out = getattr(tt, kind)(x, axis=axis, keepdims=keepdims)
    ref_out = getattr(np, kind)(xv, axis=axis, keepdims=keepdims)
    gz = rng.normal(size=ref_out.shape).astype(dtype)
    w = tt.tensor(dtype, shape=(None,) * gz.ndim, name="w")
    g = theon.grad((out * w).sum(), x)
    gz_full = gz if keepdims else np.expand_dims(gz, axis if axis is not None else (0, 1, 2))
    want = _tie_share(xv, axis, kind) * gz_full
    for mode in (MODE, "FAST_RUN"):
        got = theon.function([x, w], g, mode=mode)(xv, gz)
        assert got.dtype == dtype
        np.testing.assert_allclose(got, want, rtol=1e-6)
    # the gradient sums to the output gradient in each group (with or without ties)
    np.testing.assert_allclose(
        got.sum(axis=axis, keepdims=True), gz_full.sum(axis=(), keepdims=True), rtol=1e-5
    )


def test_rop_splits_ties_evenly() -> None:
    x, ev = tt.dmatrix("x"), tt.dmatrix("ev")
    xv = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])
    evv = rng.normal(size=(2, 3))
    out = tt.max(x, axis=1)
    got = run([x, ev], theon.gradient.Rop(out, x, ev), xv, evv)
    np.testing.assert_allclose(got, (_tie_share(xv, 1, "max") * evv).sum(axis=1))


def test_discrete_and_argmax_grads() -> None:
    from theon.graph.null_type import DisconnectedType

    i = tt.ivector("i")
    s = tt.sum(i)
    assert isinstance(s.owner.op.L_op([i], [s], [tt.lscalar()])[0].type, DisconnectedType)
    x = tt.dvector("x")
    g = theon.grad(tt.argmax(x).astype("float64") + tt.sum(x), x)
    np.testing.assert_array_equal(run([x], g, np.array([1.0, 2.0])), [1.0, 1.0])


def test_float32_stays_float32() -> None:
    x = tt.fmatrix("x")
    for expr in (tt.mean(x), tt.var(x, axis=0), tt.std(x, ddof=1), tt.logsumexp(x, axis=1),
                 theon.grad(tt.logsumexp(x) + tt.var(x), x)):
        assert expr.dtype == "float32"


@pytest.mark.parametrize("fn", ["mean", "var", "std"])
@pytest.mark.parametrize("dtype", ["float32", "complex64", "float16"])
def test_mean_var_std_accumulate_wide(fn: str, dtype: str) -> None:
    """The issue's example: ``mean([1e8, 1, -1e8])`` in float32 is 1/3 (was 0): float32
    accumulates in float64 and the result is cast back (PyTensor's rule)."""
    wide = {"float32": "float64", "complex64": "complex128", "float16": "float32"}[dtype]
    big = 1e8 if dtype != "float16" else 1e4
    xv = np.array([[big, 1.0, -big, 2.0], [3.0, big, 0.5, -big]]).astype(dtype)
    x = tt.tensor(dtype, shape=(None, None), name="x")
    for axis, keepdims in [(None, False), (1, False), (1, True), ((0, 1), True)]:
        out = getattr(tt, fn)(x, axis=axis, keepdims=keepdims)
        assert out.dtype == getattr(np, fn)(xv).dtype
        ref = getattr(np, fn)(xv.astype(wide), axis=axis, keepdims=keepdims)
        ref = ref.astype(out.dtype)
        for mode in (MODE, "FAST_RUN"):
            got = theon.function([x], out, mode=mode)(xv)
            assert got.dtype == out.dtype and got.shape == ref.shape
            np.testing.assert_allclose(got, ref, rtol=2e-3 if dtype == "float16" else 1e-6)
    if fn == "mean" and dtype == "float32":
        v = tt.fvector("v")
        got = theon.function([v], tt.mean(v))(np.array([1e8, 1, -1e8], "float32"))
        assert got.dtype == np.float32 and got == np.float32(1 / 3)


def test_logsumexp_extremes() -> None:
    x = tt.dmatrix("x")
    xv = np.array([[1000.0, 1000.0], [-np.inf, -np.inf], [np.inf, 1.0], [-1000.0, -1001.0]])
    got = run([x], tt.logsumexp(x, axis=1), xv)
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(got, sps.logsumexp(xv, axis=1))


def test_rop() -> None:
    x, ev = tt.dmatrix("x"), tt.dmatrix("ev")
    xv, evv = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    for fn in (lambda a: tt.sum(a, axis=0), lambda a: tt.prod(a, axis=1),
               lambda a: tt.max(a, axis=1), lambda a: tt.min(a)):
        out = fn(x)
        r = out.owner.op.R_op([x], [ev])[0]
        got = run([x, ev], r, xv, evv)
        f = theon.function([x], out, mode=MODE)
        eps = 1e-6
        np.testing.assert_allclose(got, (f(xv + eps * evv) - f(xv - eps * evv)) / (2 * eps),
                                   rtol=1e-5, atol=1e-6)


@settings(max_examples=40, deadline=None)
@given(
    shape=st.lists(st.integers(0, 3), min_size=0, max_size=3).map(tuple),
    data=st.data(),
    keepdims=st.booleans(),
    name=st.sampled_from(["sum", "prod", "max", "mean", "any"]),
)
def test_random_axes(shape: tuple[int, ...], data: Any, keepdims: bool, name: str) -> None:
    nd = len(shape)
    axes = data.draw(st.one_of(
        st.none(),
        st.lists(st.integers(-nd, nd - 1), unique_by=lambda a: a % nd if nd else a,
                 max_size=nd).map(tuple) if nd else st.just(()),
    ))
    fn, npf = REDUCTIONS[name]
    xv = rng.normal(size=shape)
    try:
        with np.errstate(all="ignore"):
            ref = np.asarray(npf(xv, axis=axes, keepdims=keepdims))
    except ValueError:
        return  # max of an empty array: covered separately
    x = tt.TensorType("float64", (None,) * nd)("x")
    out = fn(x, axis=axes, keepdims=keepdims)
    got = run([x], out, xv)
    assert got.shape == ref.shape
    np.testing.assert_allclose(got, ref, rtol=1e-12)


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE", MODE])
@pytest.mark.parametrize(("shape", "axis"), [((2, 0), 1), ((0, 3), 0), ((0,), None),
                                             ((2, 0, 3), (1, 2)), ((0, 0), None)])
def test_logsumexp_over_an_empty_axis_is_minus_inf(mode, shape, axis) -> None:
    """As NumPy evaluates ``log(sum(exp(x)))``: the log of an empty sum is ``-inf``; the
    manual form, which the stabilize phase rewrites, gives the same."""
    x = tt.tensor("float64", shape=(None,) * len(shape), name="x")
    xv = np.zeros(shape)
    with np.errstate(divide="ignore"):
        want = np.log(np.sum(np.exp(xv), axis=axis))
    for out in (tt.logsumexp(x, axis=axis), tt.log(tt.sum(tt.exp(x), axis=axis))):
        got = theon.function([x], out, mode=mode)(xv)
        np.testing.assert_array_equal(got, want)
        g = theon.function([x], theon.grad(tt.sum(out), x), mode=mode)(xv)
        assert g.shape == shape


@pytest.mark.parametrize("mode", ["FAST_RUN", MODE])
def test_max_with_initial(mode) -> None:
    x = tt.dmatrix("x")
    for op, npf in ((Max(axis=(1,), initial=-np.inf), np.max), (Min(axis=(1,), initial=5.0),
                                                                 np.min)):
        f = theon.function([x], op(x), mode=mode)
        for xv in (np.zeros((3, 0)), np.array([[1.0, 7.0], [np.nan, 1.0], [9.0, 4.0]])):
            np.testing.assert_array_equal(f(xv), npf(xv, axis=1, initial=op.initial))
    # without an initial value an empty max raises, as in NumPy
    with pytest.raises(ValueError):
        theon.function([x], Max(axis=(1,))(x), mode=mode)(np.zeros((3, 0)))
    assert Max((1,), -np.inf) == Max((1,), -np.inf) != Max((1,))
    assert "initial=-inf" in str(Max((1,), -np.inf))
    with pytest.raises(TypeError, match="float input"):
        Max((0,), 0.0)(tt.ivector("i"))
    with pytest.raises(ValueError, match="nan"):
        Max((0,), np.nan)
    verify_grad(lambda a: Max((1,), -np.inf)(a), [np.array([[1.0, 3.0], [2.0, -1.0]])],
                rng=np.random.default_rng(3))


MODES_WITH_JAX = ["FAST_RUN", "FAST_COMPILE", MODE, "JAX"]


def _needs(mode: str) -> str:
    if mode == "JAX":
        pytest.importorskip("jax", reason="mode='JAX' needs jax (pip install 'theon[jax]')")
    return mode


NONFINITE = [np.inf, -np.inf, np.nan, -2.5, 0.0, 1e308]


@pytest.mark.parametrize("mode", MODES_WITH_JAX)
@pytest.mark.parametrize(("static", "shape", "axis"), [
    ((1,), (1,), None), ((1,), (1,), 0), ((None,), (6,), ()), ((1, None), (1, 6), 0),
    ((None, 1), (6, 1), -1), ((1, None, 1), (1, 6, 1), (0, 2)), ((1, 1), (1, 1), None),
    ((), (), None), ((None,), (1,), 0),  # the last: length 1 at run time only
])
def test_var_std_over_length_one_axes_give_numpys_nan_for_inf_and_nan(
        mode: str, static: tuple[Any, ...], shape: tuple[int, ...], axis: Any) -> None:
    """Issue 29, item 1: over axes of static length 1 (or ``axis=()``) ``x - mean(x)``
    is ``x - x``, which the canonicalizer cancels to 0; NumPy gives nan where ``x`` is
    inf or nan (and 0 elsewhere)."""
    x = tt.tensor("float64", shape=static, name="x")
    outs = [tt.var(x, axis=axis), tt.std(x, axis=axis), tt.var(x, axis=axis, ddof=1),
            tt.var(x, axis=axis, corrected=True), tt.std(x, axis=axis, keepdims=True)]
    f = theon.function([x], outs, mode=_needs(mode))
    size = int(np.prod(shape))
    values = [np.resize(np.roll(NONFINITE, k), size).reshape(shape)
              for k in range(len(NONFINITE) if size == 1 else 1)]
    for xv in values:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = [np.var(xv, axis=axis), np.std(xv, axis=axis), np.var(xv, axis=axis, ddof=1),
                    np.var(xv, axis=axis), np.std(xv, axis=axis, keepdims=True)]
        for got, ref in zip(f(xv), want):
            assert got.shape == np.shape(ref)
            np.testing.assert_array_equal(got, ref, err_msg=f"{xv.tolist()} axis={axis}")
    if size == 1:
        assert np.isnan(f(np.full(shape, np.inf))[0]).all()  # the repro of the issue


def test_var_over_a_length_one_axis_of_float32_and_complex() -> None:
    """Issue 29, item 1, in the other accumulators (float32 accumulates in float64)."""
    for dtype in ("float32", "complex128"):
        x = tt.tensor(dtype, shape=(1, None), name="x")
        f = theon.function([x], [tt.var(x, axis=0), tt.std(x, axis=0)])
        xv = np.array([[np.inf, -1.0, np.nan, 2.0]], dtype=dtype)
        if dtype == "complex128":
            xv = xv + np.array([[0, np.inf, 0, 1j]])
        with np.errstate(all="ignore"):
            want = [np.var(xv, axis=0), np.std(xv, axis=0)]
        for got, ref in zip(f(xv), want):
            assert got.dtype == ref.dtype
            np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("mode", MODES_WITH_JAX)
def test_logsumexp_of_integers_is_scipys_float64_value(mode: str) -> None:
    """Issue 29, item 2: integers are shifted by their max in float64, as SciPy does
    (in int64, ``5 - (-2**63)`` wraps and the result was inf); an empty integer axis
    gives -inf, as for floats."""
    x = tt.lvector("x")
    f = theon.function([x], tt.logsumexp(x), mode=_needs(mode))
    for v in ([5, -2**63], [-2**63, 5], [5, 2**63 - 1], [-2**63, -2**63], [2**62, 2**62 + 1],
              [0], [3, -3, 100]):
        xv = np.array(v, dtype="int64")
        got = f(xv)
        assert got.dtype == np.float64
        np.testing.assert_allclose(got, sps.logsumexp(xv.astype("float64")), rtol=1e-15)
    assert f(np.array([5, -2**63])) == 5.0  # the repro of the issue
    m = tt.lmatrix("m")
    for axis in (None, 0, 1, (0, 1)):
        got = theon.function([m], tt.logsumexp(m, axis=axis), mode=mode)(np.zeros((2, 0), "int64"))
        with np.errstate(divide="ignore"):
            want = np.log(np.sum(np.exp(np.zeros((2, 0))), axis=axis))
        assert got.dtype == np.float64 and got.shape == np.shape(want)
        np.testing.assert_array_equal(got, want)
    for dtype in ("int8", "uint8", "int32", "bool"):
        v = tt.tensor(dtype, shape=(None, None), name="v")
        vv = (rng.integers(0, 2, (3, 4)) if dtype == "bool" else
              rng.integers(*((0, 255) if dtype == "uint8" else (-128, 127)), (3, 4))).astype(dtype)
        got = theon.function([v], tt.logsumexp(v, axis=1), mode=mode)(vv)
        assert got.dtype == np.float64
        np.testing.assert_allclose(got, sps.logsumexp(vv.astype("float64"), axis=1), rtol=1e-14)
