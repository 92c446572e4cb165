"""pool_2d with symbolic ws, stride and pad (PoolParams): the same results and gradients
as the constant Op, against the window loop of test_pool; the constant rewrite; JAX."""

import numpy as np
import pytest

import theon
import theon.tensor as tt
from tests.tensor.core_checks import check_infer_shape, run
from tests.tensor.signal.test_pool import MODES, random_case, ref_pool, sym
from theon.gradient import verify_grad
from theon.tensor.signal import pool
from theon.tensor.signal.pool_params import PoolParams


def _symbolic(kw):
    """The case's parameters as inputs: (variables, their values, pool_2d keywords)."""
    ws, stride, pad = kw["ws"], kw["stride"] or kw["ws"], kw["pad"]
    w, s = tt.lscalar("w0"), tt.lvector("s")
    p = tt.ivector("p")
    args = dict(ws=(w, ws[1]), stride=s, pad=p, ignore_border=kw["ignore_border"])
    return [w, s, p], [ws[0], np.array(stride), np.array(pad, dtype="int32")], args


def _shared_params(kw):
    ws, stride, pad = kw["ws"], kw["stride"] or kw["ws"], kw["pad"]
    return dict(ws=theon.shared(np.array(ws)), stride=theon.shared(np.array(stride)),
                pad=theon.shared(np.array(pad)), ignore_border=kw["ignore_border"])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("i", range(12))
def test_symbolic_parameters_match_constant_ones(i, mode):
    xv, kw = random_case(i)
    x = sym(xv)
    params, values, args = _symbolic(kw)
    y = pool.pool_2d(x, mode=mode, **args)
    assert isinstance(y.owner.op, PoolParams)
    got = run([x, *params], y, xv, *values)
    want = run([x], pool.pool_2d(x, mode=mode, **kw), xv)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(got, ref_pool(xv, mode=mode, **kw), rtol=1e-12, atol=1e-12)
    check_infer_shape(y, [x, *params], [xv, *values])
    # the compiled default mode (rewrites, default linker) too
    f = theon.function([x, *params], y)
    np.testing.assert_array_equal(f(xv, *values), want)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("i", range(6))
def test_symbolic_parameters_gradient(i, mode):
    xv, kw = random_case(i)
    args = _shared_params(kw)
    verify_grad(lambda x: pool.pool_2d(x, mode=mode, **args), [xv], rng=i)
    x = sym(xv)
    gy = pool.pool_2d(x, mode=mode, **args)
    gc = pool.pool_2d(x, mode=mode, **kw)
    w = np.random.default_rng(i).normal(size=run([x], gc, xv).shape)
    g_sym = theon.function([x], theon.grad((gy * w).sum(), x))(xv)
    g_const = theon.function([x], theon.grad((gc * w).sum(), x))(xv)
    np.testing.assert_array_equal(g_sym, g_const)


@pytest.mark.parametrize("mode", ["max", "average_exc_pad"])
def test_gradient_of_the_gradient(mode):
    xv, kw = random_case(5)
    args = _shared_params(kw)
    x0 = theon.shared(xv)
    out_shape = run([], pool.pool_2d(x0, mode=mode, **kw)).shape
    gz = np.random.default_rng(7).normal(size=out_shape)

    def grad_of(g):
        y = pool.pool_2d(x0, mode=mode, **args)
        return theon.grad(None, x0, known_grads={y: g})

    verify_grad(grad_of, [gz], rng=8)


def test_parameters_from_static_lengths_become_the_constant_op():
    x = tt.tensor("float64", shape=(2, 6, 9), name="x")
    ws = (x.shape[1] // 3, x.shape[2] // 3)
    y = pool.pool_2d(x, ws=ws, ignore_border=True, mode="sum")
    assert isinstance(y.owner.op, PoolParams)
    f = theon.function([x], [y, theon.grad(y.sum(), x)])
    ops = [type(n.op).__name__ for n in f.maker.fgraph.toposort()]
    assert "PoolParams" not in ops
    xv = np.arange(108.0).reshape(2, 6, 9)
    np.testing.assert_array_equal(f(xv)[0], ref_pool(xv, (2, 3), True, None, (0, 0), "sum"))


def test_spatial_pyramid_pooling_style():
    """Windows computed from a run-time input length, as Lasagne's pyramid pooling."""
    x = tt.dtensor4("x")
    outs = []
    for bins in (1, 2, 4):
        ws = tt.cast(tt.ceil(x.shape[2] / bins), "int64"), tt.cast(tt.ceil(x.shape[3] / bins),
                                                                      "int64")
        st = x.shape[2] // bins, x.shape[3] // bins
        outs.append(pool.pool_2d(x, ws=ws, stride=st, ignore_border=True).flatten(3))
    y = tt.concatenate(outs, axis=2)
    xv = np.random.default_rng(0).normal(size=(2, 3, 8, 12))
    got = theon.function([x], y)(xv)
    want = np.concatenate([ref_pool(xv, (8 // b, 12 // b), True, (8 // b, 12 // b), (0, 0),
                                    "max").reshape(2, 3, -1) for b in (1, 2, 4)], axis=2)
    np.testing.assert_array_equal(got, want)
    verify_grad(lambda v: pool.pool_2d(v, ws=(v.shape[2] // 2, v.shape[3] // 2),
                                       ignore_border=True, mode="average_inc_pad"),
                [xv[:1, :1, :4, :6]], rng=3)


def test_bad_parameters_raise_when_run():
    x = tt.dmatrix("x")
    k = tt.lscalar("k")
    f = theon.function([x, k], pool.pool_2d(x, ws=(k, 2), ignore_border=True))
    with pytest.raises(ValueError, match="ws"):
        f(np.ones((4, 4)), 0)
    g = theon.function([x, k], pool.pool_2d(x, ws=(2, 2), pad=(k, 0), ignore_border=False))
    with pytest.raises(NotImplementedError, match="ignore_border=True"):
        g(np.ones((4, 4)), 1)
    with pytest.raises(TypeError, match="ws must be 2 integers"):
        pool.pool_2d(x, ws=tt.dvector("w"), ignore_border=True)
    with pytest.raises(ValueError, match="ws must have 2 entries"):
        pool.pool_2d(x, ws=tt.stack([k, k, k]), ignore_border=True)


def test_jax_constant_after_rewrites_and_refused_when_run_time():
    pytest.importorskip("jax")
    x = tt.tensor("float64", shape=(2, 6, 9), name="x")
    y = pool.pool_2d(x, ws=(x.shape[1] // 3, 3), ignore_border=True, mode="max")
    xv = np.random.default_rng(1).normal(size=(2, 6, 9))
    outs = [y, theon.grad((y**2).sum(), x)]
    want = theon.function([x], outs)(xv)
    got = theon.function([x], outs, mode="JAX")(xv)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-12)
    k = tt.lscalar("k")
    with pytest.raises(Exception, match="window size, stride or padding computed at run time"):
        theon.function([x, k], pool.pool_2d(x, ws=(k, 3), ignore_border=True), mode="JAX")(
            xv, 2)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("i", range(3))
def test_pool_3d_symbolic_parameters(i, mode):
    xv, kw = random_case(i, nd=3)
    x = sym(xv)
    ws = theon.shared(np.array(kw["ws"]))
    y = pool.pool_3d(x, ws=ws, ignore_border=kw["ignore_border"],
                     stride=kw["stride"], pad=kw["pad"], mode=mode)
    assert isinstance(y.owner.op, PoolParams)
    want = run([x], pool.pool_3d(x, mode=mode, **kw), xv)
    np.testing.assert_array_equal(theon.function([x], y)(xv), want)
    verify_grad(lambda v: pool.pool_3d(v, ws=ws, ignore_border=kw["ignore_border"],
                                       stride=kw["stride"], pad=kw["pad"], mode=mode),
                [xv], rng=i)
