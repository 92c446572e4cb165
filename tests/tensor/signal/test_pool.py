"""pool_2d / pool_3d against a loop over windows (Theano's semantics); gradients."""

import numpy as np
import pytest

import theon
import theon.tensor as tt
from tests.seeding import stable_seed
from tests.tensor.core_checks import check_infer_shape, run
from theon.gradient import verify_grad
from theon.tensor.signal import pool

MODES = ["max", "sum", "average_inc_pad", "average_exc_pad"]


def ref_pool(x, ws, ignore_border, stride, pad, mode):
    """One window at a time: the window is cut to the padded image, and to the image
    itself except for ``average_inc_pad``; then max, sum or mean."""
    nd = len(ws)
    stride = stride or ws
    lead, spatial = x.shape[:-nd], x.shape[-nd:]
    img = [n + 2 * p for n, p in zip(spatial, pad, strict=True)]

    def length(n, w, s, p):
        if ignore_border:
            return max(0, (n + 2 * p - w) // s + 1)
        return (n - 1) // s + 1 if s >= w else max(0, (n - 1 - w + s) // s) + 1

    out = [length(n, w, s, p) for n, w, s, p in zip(spatial, ws, stride, pad, strict=True)]
    y = np.zeros(lead + tuple(img))
    y[(Ellipsis, *(slice(p, p + n) for p, n in zip(pad, spatial, strict=True)))] = x
    res = np.zeros(lead + tuple(out))
    for r in np.ndindex(*out):
        cut = []
        for i in range(nd):
            lo = r[i] * stride[i]
            hi = min(lo + ws[i], img[i])
            if mode != "average_inc_pad":
                lo, hi = max(lo, pad[i]), min(hi, img[i] - pad[i])
            cut.append(slice(lo, hi))
        win = y[(Ellipsis, *cut)].reshape(lead + (-1,))
        res[(Ellipsis, *r)] = {"max": np.max, "sum": np.sum}.get(mode, np.mean)(win, axis=-1)
    return res


def random_case(i, nd=2):
    rng = np.random.default_rng(stable_seed("pool", nd, i))
    ws = tuple(int(v) for v in rng.integers(1, 4, size=nd))
    ignore_border = bool(i % 3)
    stride = None if i % 4 == 0 else tuple(int(v) for v in rng.integers(1, 4, size=nd))
    pad = tuple(int(rng.integers(0, w)) for w in ws) if ignore_border and i % 2 else (0,) * nd
    lead = tuple(int(v) for v in rng.integers(1, 3, size=int(rng.integers(0, 3))))
    spatial = tuple(int(v) for v in rng.integers(3, 8, size=nd))
    # distinct values: no ties, so max pooling is differentiable at the point
    x = rng.permutation(int(np.prod(lead + spatial))).reshape(lead + spatial) / 7.0 - 1.0
    return x, dict(ws=ws, ignore_border=ignore_border, stride=stride, pad=pad)


def sym(x):
    return tt.TensorType("float64", shape=(None,) * x.ndim)("x")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("i", range(12))
def test_pool_2d_matches_the_window_loop(i, mode):
    xv, kw = random_case(i)
    x = sym(xv)
    y = pool.pool_2d(x, mode=mode, **kw)
    out = run([x], y, xv)
    np.testing.assert_allclose(out, ref_pool(xv, mode=mode, **kw), rtol=1e-12, atol=1e-12)
    check_infer_shape(y, [x], [xv])
    assert y.type.ndim == xv.ndim


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("i", range(4))
def test_pool_3d_matches_the_window_loop(i, mode):
    xv, kw = random_case(i, nd=3)
    x = sym(xv)
    y = pool.pool_3d(x, mode=mode, **kw)
    np.testing.assert_allclose(run([x], y, xv), ref_pool(xv, mode=mode, **kw), atol=1e-12)
    check_infer_shape(y, [x], [xv])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("i", [0, 1, 2, 3, 4, 5, 7, 8])
def test_pool_2d_verify_grad(i, mode):
    xv, kw = random_case(i)
    verify_grad(lambda a: pool.pool_2d(a, mode=mode, **kw), [xv], rng=np.random.default_rng(i))


@pytest.mark.parametrize("mode", MODES)
def test_pool_3d_verify_grad(mode):
    xv, kw = random_case(3, nd=3)
    verify_grad(lambda a: pool.pool_3d(a, mode=mode, **kw), [xv], rng=np.random.default_rng(3))


@pytest.mark.parametrize("mode", MODES)
def test_gradients_of_the_gradient_ops(mode):
    """MaxPoolGrad and AveragePoolGrad are differentiable in the output gradient."""
    xv, kw = random_case(5)
    x = sym(xv)
    y = pool.pool_2d(x, mode=mode, **kw)
    yv = run([x], y, xv)
    gzv = np.random.default_rng(1).normal(size=yv.shape)
    props = y.owner.op._props_dict()
    if mode == "max":
        def fn(gz):
            return pool.MaxPoolGrad(**props)(tt.constant(xv), tt.constant(yv), gz)
    else:
        def fn(gz):
            return pool.AveragePoolGrad(**props)(tt.constant(xv), gz)
    verify_grad(fn, [gzv], rng=np.random.default_rng(2))
    # and through theon.grad of a gradient (second order, x held fixed by the sum of squares)
    verify_grad(lambda a: theon.grad((pool.pool_2d(a, mode=mode, **kw) ** 2).sum(), a), [xv],
                rng=np.random.default_rng(3))


def test_max_pool_gradient_goes_to_every_tied_max():
    x = tt.dmatrix("x")
    xv = np.array([[1.0, 3.0, 0.0, 0.0], [3.0, 2.0, 0.0, 0.0]])
    g = theon.grad(pool.pool_2d(x, (2, 2), ignore_border=True).sum(), x)
    np.testing.assert_array_equal(run([x], g, xv), [[0, 1, 1, 1], [1, 0, 1, 1]])


def test_overlapping_max_pool_windows_add_their_gradients():
    x = tt.dmatrix("x")
    g = theon.grad(pool.pool_2d(x, (1, 2), ignore_border=True, stride=(1, 1)).sum(), x)
    np.testing.assert_array_equal(run([x], g, np.array([[1.0, 3.0, 3.0]])), [[0, 2, 1]])


def test_max_pool_ignores_the_padding_even_for_negative_inputs():
    x = tt.dmatrix("x")
    xv = -np.arange(1.0, 10.0).reshape(3, 3)
    out = run([x], pool.pool_2d(x, (2, 2), ignore_border=True, pad=(1, 1)), xv)
    np.testing.assert_array_equal(out, [[-1.0, -2.0], [-4.0, -5.0]])


def test_the_default_linker_agrees_with_the_reference_vm():
    xv, kw = random_case(7)
    x = sym(xv)
    outs = []
    for mode in MODES:
        y = pool.pool_2d(x, mode=mode, **kw)
        outs += [y, theon.grad((y**2).sum(), x)]
    fast = theon.function([x], outs)(xv)
    ref = theon.function([x], outs, mode=theon.Mode(linker="vm"))(xv)
    for a, b in zip(fast, ref, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_theano_tutorial_spelling_and_old_argument_names():
    import theon.tensor as T
    from theon.tensor.signal import pool as pool_module

    x = T.dtensor4("x")
    xv = np.arange(32.0).reshape(1, 2, 4, 4)
    a = run([x], pool_module.pool_2d(x, ws=(2, 2), ignore_border=True), xv)
    b = run([x], T.signal.pool.pool_2d(x, ds=(2, 2), st=(2, 2), padding=(0, 0),
                                       ignore_border=True), xv)
    np.testing.assert_array_equal(a, xv.reshape(1, 2, 2, 2, 2, 2).max(axis=(3, 5)))
    np.testing.assert_array_equal(a, b)


def test_integer_input_keeps_its_dtype():
    x = tt.imatrix("x")
    y = pool.pool_2d(x, (2, 2), ignore_border=False)
    out = run([x], y, np.arange(9, dtype="int32").reshape(3, 3))
    assert out.dtype == np.int32 and y.type.dtype == "int32"
    np.testing.assert_array_equal(out, [[4, 5], [7, 8]])


def test_static_output_shape():
    x = tt.TensorType("float64", shape=(None, 3, 7, 6))("x")
    assert pool.pool_2d(x, (2, 2), ignore_border=False).type.shape == (None, 3, 4, 3)
    assert pool.pool_2d(x, (3, 2), ignore_border=True, stride=(2, 1),
                        pad=(1, 1)).type.shape == (None, 3, 4, 7)


def test_bad_arguments():
    x = tt.dmatrix("x")
    with pytest.raises(NotImplementedError, match="ignore_border=True"):
        pool.pool_2d(x, (2, 2), ignore_border=False, pad=(1, 1))
    with pytest.raises(ValueError, match="smaller than ws"):
        pool.pool_2d(x, (2, 2), ignore_border=True, pad=(2, 0))
    with pytest.raises(ValueError, match="mode"):
        pool.pool_2d(x, (2, 2), ignore_border=True, mode="median")
    with pytest.raises(ValueError, match="constant integers"):
        pool.Pool((tt.iscalar("k"), 2), ignore_border=True)
    with pytest.raises(TypeError, match="at least 3 dimensions"):
        pool.pool_3d(x, (2, 2, 2), ignore_border=True)
    with pytest.raises(ValueError, match="ws"):
        pool.pool_2d(x, (0, 2), ignore_border=True)


def test_ops_compare_by_their_props():
    a = pool.Pool((2, 2), mode="max")
    assert a == pool.Pool((2, 2), stride=(2, 2), pad=(0, 0), mode="max")
    assert a != pool.Pool((2, 2), mode="sum")
    assert pool.Pool((2, 2), mode="average") == pool.Pool((2, 2), mode="average_inc_pad")
