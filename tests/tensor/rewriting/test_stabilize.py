"""Stabilizations: the issue's required numbers, and each rewrite firing."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sps

import theon
import theon.tensor as tt
from tests.tensor.rewriting.helpers import FAST_RUN_VM, check_same, op_names, rewrite
from theon.tensor.special import log_softmax, softmax

x = tt.dscalar("x")
v = tt.dvector("v")
m = tt.dmatrix("m")
rng = np.random.default_rng(2)


# ------------------------------------------------------------------ the numbers
@pytest.mark.parametrize("mode", ["FAST_RUN", FAST_RUN_VM])
def test_log1p_at_tiny_x(mode) -> None:
    f = theon.function([x], tt.log(1 + x), mode=mode)
    assert float(f(1e-20)) == 1e-20
    f = theon.function([v], tt.log(v + 1), mode=mode)
    assert f(np.array([1e-20, 1e-30])).tolist() == [1e-20, 1e-30]


@pytest.mark.parametrize("mode", ["FAST_RUN", FAST_RUN_VM])
def test_log_sigmoid_at_minus_800(mode) -> None:
    f = theon.function([x], tt.log(tt.sigmoid(x)), mode=mode)
    assert float(f(-800.0)) == -800.0
    assert float(f(800.0)) == 0.0
    g = theon.function([x], tt.log(1 - tt.sigmoid(x)), mode=mode)
    assert float(g(800.0)) == -800.0


@pytest.mark.parametrize("mode", ["FAST_RUN", FAST_RUN_VM])
def test_logsumexp_manual_form(mode) -> None:
    f = theon.function([v], tt.log(tt.sum(tt.exp(v))), mode=mode)
    assert float(f(np.array([1000.0, 1000.0]))) == pytest.approx(1000 + np.log(2), rel=1e-15)
    assert float(f(np.array([-1000.0, -1000.0]))) == pytest.approx(-1000 + np.log(2), rel=1e-15)
    assert float(f(np.array([-np.inf, -np.inf]))) == -np.inf
    assert float(f(np.array([np.inf, 0.0]))) == np.inf
    # keepdims and along an axis
    g = theon.function([m], tt.log(tt.sum(tt.exp(m), axis=1, keepdims=True)), mode=mode)
    mv = np.array([[1000.0, 1000.0], [0.0, -np.inf]])
    np.testing.assert_allclose(g(mv), [[1000 + np.log(2)], [0.0]], rtol=1e-15)
    # the library's logsumexp is already stable and is not rewritten again
    h = theon.function([v], tt.logsumexp(v), mode=mode)
    assert float(h(np.array([1000.0, 1000.0]))) == pytest.approx(1000 + np.log(2), rel=1e-15)


@pytest.mark.parametrize("mode", ["FAST_RUN", FAST_RUN_VM])
def test_softmax_of_large_values(mode) -> None:
    for out in (softmax(v), tt.exp(v) / tt.sum(tt.exp(v)),
                tt.exp(v) / tt.sum(tt.exp(v), keepdims=True)):
        f = theon.function([v], out, mode=mode)
        assert f(np.array([1000.0, 0.0])).tolist() == [1.0, 0.0]
    f = theon.function([m], tt.exp(m) / tt.sum(tt.exp(m), axis=0, keepdims=True), mode=mode)
    np.testing.assert_allclose(f(np.array([[1000.0, 0.0], [0.0, 0.0]])), [[1, 0.5], [0, 0.5]])


@pytest.mark.parametrize("mode", ["FAST_RUN", FAST_RUN_VM])
def test_grad_of_log_sigmoid_is_finite(mode) -> None:
    g = theon.grad(tt.log(tt.sigmoid(x)), x)
    f = theon.function([x], g, mode=mode)
    assert float(f(-800.0)) == 1.0
    assert float(f(800.0)) == 0.0
    gv = theon.grad(tt.sum(tt.log(tt.sigmoid(v))), v)
    fv = theon.function([v], gv, mode=mode)
    out = fv(np.array([-800.0, 800.0, 0.0]))
    assert np.isfinite(out).all()
    np.testing.assert_allclose(out, [1.0, 0.0, 0.5])


# ------------------------------------------------------------------ each rewrite
def _stable(out, inputs, values, expect_op, absent=()) -> None:
    fg = rewrite(inputs, [out])
    names = op_names(fg)
    assert fg.outputs[0].type == out.type
    assert names[expect_op] >= 1, names
    for a in absent:
        assert a not in names, names
    check_same(inputs, [out], values, rtol=1e-12)


def test_each_stabilization_fires() -> None:
    xs = [rng.normal(size=6)]
    neg = [-np.abs(rng.normal(size=6)) - 0.1]
    _stable(tt.log(1 + v), [v], [np.abs(xs[0])], "log1p", ["log"])
    _stable(tt.log(1 - v), [v], [np.abs(xs[0]) / 10], "log1p", ["log"])
    _stable(tt.exp(v) - 1, [v], xs, "expm1", ["exp"])
    _stable(1 - tt.exp(v), [v], xs, "expm1", ["exp"])
    _stable(tt.log(tt.sigmoid(v)), [v], xs, "softplus", ["log", "sigmoid"])
    _stable(1 - tt.sigmoid(v), [v], xs, "sigmoid", ["sub"])
    _stable(tt.log(1 - tt.sigmoid(v)), [v], xs, "softplus", ["log", "sigmoid"])
    fg = rewrite([v], [tt.log(tt.exp(v))])
    assert len(fg.apply_nodes) == 0
    _stable(tt.log(1 - tt.exp(v)), [v], neg, "log1mexp", ["log", "exp"])
    _stable(tt.log(-tt.expm1(v)), [v], neg, "log1mexp", ["log"])
    _stable(tt.log1p(tt.exp(v)), [v], xs, "softplus", ["log1p", "exp"])
    _stable(tt.log(1 + tt.exp(v)), [v], xs, "softplus", ["log", "exp"])
    _stable(tt.log(softmax(m)), [m], [rng.normal(size=(2, 3))], "LogSoftmax", ["Softmax"])
    _stable(tt.exp(m) / tt.sum(tt.exp(m), axis=1, keepdims=True), [m],
            [rng.normal(size=(2, 3))], "Softmax", ["Sum"])
    _stable(tt.log(tt.sum(tt.exp(m), axis=0)), [m], [rng.normal(size=(2, 3))], "Max")
    _stable(softmax(m - tt.max(m, axis=1, keepdims=True)), [m], [rng.normal(size=(2, 3))],
            "Softmax", ["Max"])
    _stable(log_softmax(v - tt.max(v, keepdims=True)), [v], xs, "LogSoftmax", ["Max"])


def test_stabilizations_apply_when_the_intermediate_has_other_clients() -> None:
    s = 1 + v
    out = [tt.log(s), s * 2]
    fg = rewrite([v], out)
    assert "log1p" in op_names(fg) and "log" not in op_names(fg)
    f = theon.function([v], out)
    r = f(np.array([1e-20]))
    assert r[0][0] == 1e-20 and r[1][0] == 2.0
    sg = tt.sigmoid(v)
    out = [tt.log(sg), sg]
    fg = rewrite([v], out)
    assert "log" not in op_names(fg)
    assert theon.function([v], out)(np.array([-800.0]))[0][0] == -800.0


def test_softmax_with_extra_factors() -> None:
    w = tt.dvector("w")
    out = 2.0 * w * tt.exp(v) / tt.sum(tt.exp(v))
    fg = rewrite([v, w], [out])
    assert "Softmax" in op_names(fg)
    check_same([v, w], [out], [np.array([3.0, 1.0, 0.5]), np.array([1.0, 2.0, 3.0])])


def test_non_float_is_left_alone() -> None:
    i = tt.ivector("i")
    out = tt.log(1 + i)  # integer sum: not rewritten (it could wrap around)
    fg = rewrite([i], [out])
    assert "log" in op_names(fg)
    check_same([i], [out], [np.array([0, 1, 2], dtype="int32")])


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int32", "int64"])
def test_sigmoid_stabilizations_of_integers_do_not_wrap(dtype) -> None:
    """``-x`` is taken in the float result dtype, never in x's own integer dtype."""
    info = np.iinfo(dtype)
    xv = np.array([info.min, 0, 1, 3, info.max], dtype=dtype)
    i = tt.vector("i", dtype=dtype)
    outs = [1 - tt.sigmoid(i), tt.log(tt.sigmoid(i)), tt.log(1 - tt.sigmoid(i)),
            tt.exp(i) / (1 + tt.exp(i))]
    got = theon.function([i], outs)(xv)
    fdt = outs[0].type.dtype
    x64 = xv.astype("float64")
    with np.errstate(all="ignore"):
        want = [sps.expit(-x64), -np.logaddexp(0, -x64), -np.logaddexp(0, x64), sps.expit(x64)]
    tol = {"float16": 2e-3, "float32": 1e-6, "float64": 1e-12}[fdt]
    for g, w in zip(got, want):
        assert g.dtype == fdt
        np.testing.assert_allclose(g, w.astype(fdt), rtol=tol, atol=tol)
