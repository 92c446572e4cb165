"""Stabilizations: the issue's required numbers, and each rewrite firing."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sps
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

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


# -- 1 + erf(x) -> erfc(-x) and its three siblings (local_one_plus_erf) -------------------
ERF_POINTS = np.array([-40.0, -27.0, -8.4, -5.94, -1.0, -1e-300, -0.0, 0.0, 1e-8, 0.5, 3.0,
                       5.94, 27.0, 40.0, np.inf, -np.inf, np.nan])
ERF_FORMS = [
    ("1 + erf(x)", lambda x: 1 + tt.erf(x), lambda a: sps.erfc(-a)),
    ("erf(x) + 1", lambda x: tt.erf(x) + 1, lambda a: sps.erfc(-a)),
    ("1 - erf(x)", lambda x: 1 - tt.erf(x), lambda a: sps.erfc(a)),
    ("erf(x) - 1", lambda x: tt.erf(x) - 1, lambda a: -sps.erfc(a)),
    ("-1 - erf(x)", lambda x: -1 - tt.erf(x), lambda a: -sps.erfc(-a)),
]


@pytest.mark.parametrize(("form", "build", "ref"), ERF_FORMS, ids=[f[0] for f in ERF_FORMS])
def test_one_plus_erf_becomes_erfc_with_scipys_values(form, build, ref) -> None:
    x = tt.dvector("x")
    out = build(x)
    fg = rewrite([x], [out])
    names = op_names(fg)
    assert names["erfc"] == 1 and "erf" not in names, (form, names)
    f = theon.function([x], out)
    with np.errstate(all="ignore"):
        want = ref(ERF_POINTS)
    np.testing.assert_allclose(f(ERF_POINTS), want, rtol=1e-15, atol=0)


def test_log_of_one_plus_erf_keeps_the_skew_normal_tail() -> None:
    """PyMC's skew-normal log-density: log(1 + erf(z)) where erf(z) rounds to -1."""
    z = tt.dvector("z")
    f = theon.function([z], tt.log(1 + tt.erf(z / np.sqrt(2))))
    v = np.array([-8.4, -5.0, 0.0, 2.0])
    np.testing.assert_allclose(f(v), np.log(sps.erfc(-v / np.sqrt(2))), rtol=1e-14)
    assert np.isfinite(f(v)).all()  # (NumPy's log(1 + erf) is -inf at -8.4)


def test_one_plus_erf_inside_a_larger_sum() -> None:
    x, y = tt.dvector("x"), tt.dvector("y")
    out = y + 1 + tt.erf(x)
    assert op_names(rewrite([x, y], [out]))["erfc"] == 1
    xv, yv = np.array([-7.0, 0.3]), np.array([1e-20, 2.0])
    np.testing.assert_allclose(theon.function([x, y], out)(xv, yv), yv + sps.erfc(-xv),
                               rtol=1e-15)


@settings(max_examples=80, deadline=None)
@given(hnp.arrays(np.float64, st.integers(1, 6),
                  elements=st.floats(-50, 50, allow_nan=False, allow_subnormal=True)),
       st.sampled_from(range(len(ERF_FORMS))))
def test_one_plus_erf_differential(a, k) -> None:
    """FAST_RUN against the unrewritten graph: equal where the unrewritten value is not
    all rounding (|1 + erf| > 1e-6 of 1 ...); erfc's value is never worse."""
    x = tt.dvector("x")
    out = ERF_FORMS[k][1](x)
    fast = theon.function([x], out)(a)
    plain = theon.function([x], out, mode=theon.Mode(linker="vm", optimizer=None))(a)
    big = np.abs(plain) > 1e-3
    np.testing.assert_allclose(fast[big], plain[big], rtol=1e-12)
    np.testing.assert_allclose(fast, ERF_FORMS[k][2](a), rtol=1e-15, atol=0)
