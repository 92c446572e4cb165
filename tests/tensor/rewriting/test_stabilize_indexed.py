"""``local_log_softmax_indexed``: ``log(softmax(x, axis)[idx]) -> log_softmax(x, axis)[idx]``.

It fires on basic and advanced indices, keeps values and dtypes (hypothesis
differential run: rewritten graph vs the unrewritten one on the reference VM vs
SciPy), and makes a classifier's negative log-likelihood finite at large logits.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import scipy.special as sps
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
from tests.tensor.rewriting.helpers import FAST_RUN_VM, op_names, rewrite
from theon.tensor.special import softmax


def _nll(x: Any, y: Any) -> Any:
    return -tt.log(softmax(x, axis=1)[tt.arange(y.shape[0]), y])


@pytest.mark.parametrize("mode", ["FAST_RUN", FAST_RUN_VM])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_nll_of_large_logits_is_finite(mode: Any, dtype: str) -> None:
    x, y = tt.matrix("x", dtype=dtype), tt.lvector("y")
    cost = tt.mean(_nll(x, y))
    f = theon.function([x, y], [cost, theon.grad(cost, x)], mode=mode)
    xv = np.array([[1000.0, -1000.0, 0.0], [-1000.0, 1000.0, 3.0]], dtype=dtype)
    yv = np.array([1, 2])
    c, g = f(xv, yv)
    assert c.dtype == dtype and g.dtype == dtype
    x64 = xv.astype("float64")
    want = -np.mean(sps.log_softmax(x64, axis=1)[[0, 1], yv])
    onehot = np.eye(3)[yv]
    np.testing.assert_allclose(c, want, rtol=1e-6)
    np.testing.assert_allclose(g, (sps.softmax(x64, axis=1) - onehot) / 2, atol=1e-7)


def test_fires_on_basic_and_advanced_indices_and_keeps_other_clients() -> None:
    m, i = tt.dmatrix("m"), tt.lvector("i")
    sm = softmax(m, axis=1)
    for out in (tt.log(sm[0]), tt.log(sm[:, 1:]), tt.log(sm[i, i]), tt.log(sm[i])):
        names = op_names(rewrite([m, i], [out]))
        assert names["LogSoftmax"] == 1 and "log" not in names and "Softmax" not in names, names
    fg = rewrite([m], [tt.log(sm[0]), sm])  # the softmax is still needed beside
    names = op_names(fg)
    assert names["LogSoftmax"] == 1 and names["Softmax"] == 1 and "log" not in names, names


def test_leaves_other_logs_alone() -> None:
    m = tt.dmatrix("m")
    for out in (tt.log(tt.exp(m)[0] + 1.0), tt.log(m[0])):
        assert "LogSoftmax" not in op_names(rewrite([m], [out]))


@st.composite
def _cases(draw: Any) -> tuple[str, int, str, np.ndarray, np.ndarray]:
    dtype = draw(st.sampled_from(["float64", "float32"]))
    axis = draw(st.sampled_from([0, 1]))
    kind = draw(st.sampled_from(["rows", "int", "slice", "adv"]))
    n, k = draw(st.integers(1, 4)), draw(st.integers(1, 5))
    scale = draw(st.sampled_from([1.0, 30.0, 1000.0]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    xv = (rng.normal(size=(n, k)) * scale).astype(dtype)
    yv = rng.integers(0, k, size=n)
    return dtype, axis, kind, xv, yv


def _index(kind: str, v: Any, y: Any) -> Any:
    if kind == "rows":
        return v[np.arange(len(y)) if isinstance(y, np.ndarray) else tt.arange(y.shape[0]), y]
    if kind == "int":
        return v[0]
    if kind == "slice":
        return v[:, ::-1]
    return v[:, y]


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(_cases())
def test_differential_against_unrewritten_and_scipy(case: Any) -> None:
    dtype, axis, kind, xv, yv = case
    x, y = tt.matrix("x", dtype=dtype), tt.lvector("y")
    out = tt.log(_index(kind, softmax(x, axis=axis), y))
    assert "LogSoftmax" in op_names(rewrite([x, y], [out]))
    got = theon.function([x, y], out, on_unused_input="ignore")(xv, yv)
    want = _index(kind, sps.log_softmax(xv.astype("float64"), axis=axis), yv)
    assert got.dtype == dtype and got.shape == want.shape
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    with np.errstate(all="ignore"):
        plain = theon.function([x, y], out, mode="REFERENCE", on_unused_input="ignore")(xv, yv)
    assert plain.dtype == dtype
    finite = np.isfinite(plain)
    np.testing.assert_allclose(got[finite], plain[finite], rtol=10 * tol, atol=10 * tol)
