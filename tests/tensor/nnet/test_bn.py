"""theon.tensor.nnet.bn against NumPy (Theano 1.0's formulas), gradients by finite
differences, the two parameter layouts, and mode='JAX' against the default mode."""

import numpy as np
import pytest

import theon
import theon.tensor as T
from theon.gradient import verify_grad
from theon.tensor.nnet import bn

AXES = [("per-activation", (0,)), ("spatial", (0, 2, 3)), ((0, 1), (0, 1)), ([1, 3], (1, 3))]


def ref_train(x, g, b, axes, eps, f, rm, rv):
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    invstd = 1.0 / np.sqrt(var + eps)
    out = (x - mean) * g * invstd + b
    m = np.prod([x.shape[a] for a in axes])
    new_rm = rm * (1 - f) + mean * f
    new_rv = rv * (1 - f) + m / (m - 1) * var * f
    return out, mean, invstd, new_rm, new_rv


def _rng(seed=0):
    return np.random.default_rng(seed)


def _param_shape(shape, axes):
    return tuple(1 if a in axes else n for a, n in enumerate(shape))


@pytest.mark.parametrize(("axes", "ax"), AXES)
@pytest.mark.parametrize("full", [True, False])
def test_train_values(axes, ax, full):
    shape = (5, 3, 4, 2)
    pshape = _param_shape(shape, ax)
    rng = _rng()
    xv = rng.normal(2.0, 3.0, size=shape)
    gv, bv, rmv = (rng.normal(size=pshape) for _ in range(3))
    rvv = rng.uniform(0.5, 2.0, size=pshape)
    want = ref_train(xv, gv, bv, ax, 1e-3, 0.3, rmv, rvv)
    kept = tuple(n for a, n in enumerate(shape) if a not in ax)

    def lay(v):  # the layout given: full rank, or only the kept axes
        return v if full else v.reshape(kept)

    x = T.dtensor4("x")
    ps = [T.tensor("float64", shape=(None,) * (4 if full else len(kept))) for _ in range(4)]
    outs = bn.batch_normalization_train(x, ps[0], ps[1], axes, 1e-3, 0.3, ps[2], ps[3])
    assert len(outs) == 5
    got = theon.function([x, *ps], list(outs))(xv, lay(gv), lay(bv), lay(rmv), lay(rvv))
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12, atol=1e-12)
    for g, w in zip(got[1:], want[1:], strict=True):
        np.testing.assert_allclose(g, lay(w), rtol=1e-12, atol=1e-12)
    three = bn.batch_normalization_train(x, ps[0], ps[1], axes, 1e-3)
    assert len(three) == 3


@pytest.mark.parametrize(("axes", "ax"), AXES[:3])
def test_train_grad(axes, ax):
    shape = (4, 3, 2, 3)
    pshape = _param_shape(shape, ax)
    rng = _rng(1)
    pt = [rng.normal(size=shape), rng.normal(size=pshape), rng.normal(size=pshape)]

    def out(x, g, b):
        return bn.batch_normalization_train(x, g, b, axes, 1e-4)[0]

    def stats(x):
        _, mean, invstd = bn.batch_normalization_train(x, np.ones(pshape), np.zeros(pshape),
                                                       axes, 1e-4)
        return mean * 2 + invstd

    verify_grad(out, pt, rng=2)
    verify_grad(stats, pt[:1], rng=3)


def test_running_averages_grad():
    rng = _rng(2)
    pt = [rng.normal(size=(6, 3)), rng.normal(size=(3,)), rng.uniform(0.5, 1.5, size=(3,))]

    def new_stats(x, rm, rv):
        _, _, _, nm, nv = bn.batch_normalization_train(x, np.ones(3), np.zeros(3),
                                                       running_average_factor=0.2,
                                                       running_mean=rm, running_var=rv)
        return nm + nv

    verify_grad(new_stats, pt, rng=4)


@pytest.mark.parametrize(("axes", "ax"), AXES)
def test_test_values_and_grad(axes, ax):
    shape = (3, 4, 2, 3)
    pshape = _param_shape(shape, ax)
    rng = _rng(3)
    xv = rng.normal(size=shape)
    gv, bv, mv = (rng.normal(size=pshape) for _ in range(3))
    vv = rng.uniform(0.5, 2.0, size=pshape)
    want = (xv - mv) * gv / np.sqrt(vv + 1e-3) + bv
    x = T.dtensor4("x")
    out = bn.batch_normalization_test(x, gv, bv, mv, vv, axes, 1e-3)
    np.testing.assert_allclose(theon.function([x], out)(xv), want, rtol=1e-12)
    verify_grad(lambda x, g, b, m, v: bn.batch_normalization_test(x, g, b, m, v, axes),
                [xv, gv, bv, mv, vv], rng=5)


def test_batch_normalization_elementwise():
    rng = _rng(4)
    xv, gv, bv, mv = (rng.normal(size=(4, 3)) for _ in range(4))
    sv = rng.uniform(0.5, 2.0, size=(4, 3))
    x = T.dmatrix("x")
    for mode in ("low_mem", "high_mem"):
        out = bn.batch_normalization(x, gv, bv, mv, sv, mode=mode)
        np.testing.assert_allclose(theon.function([x], out)(xv), (xv - mv) * (gv / sv) + bv,
                                   rtol=1e-13)
    verify_grad(bn.batch_normalization, [xv, gv, bv, mv, sv], rng=6)


def test_lasagne_style_update():
    """Running averages kept in shared variables and updated by a training function."""
    rng = _rng(5)
    data = rng.normal(3.0, 2.0, size=(10, 4, 8, 3))
    x = T.dtensor3("x")
    gamma, beta = theon.shared(np.ones(3)), theon.shared(np.zeros(3))
    rmean, rvar = theon.shared(np.zeros(3)), theon.shared(np.ones(3))
    out, _, _, nm, nv = bn.batch_normalization_train(x, gamma, beta, (0, 1), 1e-4, 0.5,
                                                     rmean, rvar)
    step = theon.function([x], out.sum(), updates=[(rmean, nm), (rvar, nv)])
    want_m, want_v = np.zeros(3), np.ones(3)
    for batch in data:
        step(batch)
        m = batch.shape[0] * batch.shape[1]
        want_m = want_m * 0.5 + batch.mean(axis=(0, 1)) * 0.5
        want_v = want_v * 0.5 + batch.var(axis=(0, 1)) * m / (m - 1) * 0.5
    np.testing.assert_allclose(rmean.get_value(), want_m, rtol=1e-12)
    np.testing.assert_allclose(rvar.get_value(), want_v, rtol=1e-12)


def test_float32_running_averages_take_float32_updates():
    """float32 inputs and shared running averages, a Python factor and epsilon: every
    result float32, so the updates fit the shared variables (Theano's Op types)."""
    rng = _rng(7)
    xv = rng.normal(size=(6, 2, 3, 3)).astype("float32")
    x = T.ftensor4("x")
    g, b = theon.shared(np.ones(2, "float32")), theon.shared(np.zeros(2, "float32"))
    rm, rv = theon.shared(np.zeros(2, "float32")), theon.shared(np.ones(2, "float32"))
    res = bn.batch_normalization_train(x, g, b, "spatial", 1e-4, 0.1, rm, rv)
    assert [r.dtype for r in res] == ["float32"] * 5
    out = theon.function([x], res[0], updates=[(rm, res[3]), (rv, res[4])])(xv)
    assert out.dtype == np.float32
    want = ref_train(xv.astype("float64"), 1.0, 0.0, (0, 2, 3), 1e-4, 0.1,
                     np.zeros((1, 2, 1, 1)), np.ones((1, 2, 1, 1)))
    np.testing.assert_allclose(rm.get_value(), want[3].reshape(2), rtol=1e-5)
    np.testing.assert_allclose(rv.get_value(), want[4].reshape(2), rtol=1e-5)
    assert bn.batch_normalization_test(x, np.ones(2), b, rm, rv, "spatial").dtype == "float32"


def test_bad_input_errors():
    x = T.dtensor4("x")
    with pytest.raises(ValueError, match="axes must be"):
        bn.batch_normalization_train(x, x, x, axes="channel")
    with pytest.raises(ValueError, match="axes must lie"):
        bn.batch_normalization_train(x, x, x, axes=(0, 4))
    with pytest.raises(ValueError, match="epsilon must be at least"):
        bn.batch_normalization_train(x, x, x, epsilon=1e-7)
    with pytest.raises(ValueError, match="both running_mean and running_var"):
        bn.batch_normalization_train(x, x, x, running_mean=x)
    with pytest.raises(ValueError, match="gamma must have 4 dimensions"):
        bn.batch_normalization_train(x, T.dmatrix("g"), x)
    with pytest.raises(ValueError, match="beta must have the layout of gamma"):
        bn.batch_normalization_test(x, T.dtensor3("g"), x, T.dtensor3("m"), T.dtensor3("v"))
    with pytest.raises(ValueError, match="mode must be"):
        bn.batch_normalization(x, 1.0, 0.0, 0.0, 1.0, mode="fast")
    with pytest.raises(TypeError, match="float tensor"):
        bn.batch_normalization_train(T.imatrix("i"), T.dvector("g"), T.dvector("b"))


def test_module_path():
    assert T.nnet.bn.batch_normalization_train is bn.batch_normalization_train
    assert T.nnet.batch_normalization is bn.batch_normalization


def test_jax_matches_default():
    pytest.importorskip("jax")
    rng = _rng(6)
    xv = rng.normal(size=(4, 3, 2, 2))
    gv, bv = rng.normal(size=(3,)), rng.normal(size=(3,))
    x = T.dtensor4("x")
    rm, rv = theon.shared(np.zeros(3)), theon.shared(np.ones(3))
    out, mean, invstd, nm, nv = bn.batch_normalization_train(x, gv, bv, "spatial", 1e-4, 0.1,
                                                             rm, rv)
    test_out = bn.batch_normalization_test(x, gv, bv, nm, nv, "spatial")
    outs = [out, mean, invstd, nm, nv, test_out, theon.grad((out**2 * test_out).sum(), x)]
    want = theon.function([x], outs)(xv)
    got = theon.function([x], outs, mode="JAX")(xv)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-10, atol=1e-12)
