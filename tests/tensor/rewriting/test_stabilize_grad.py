"""Stability covers gradients: every stabilization, its value and its gradient at extreme points.

One row per pattern (several per rewrite where the pattern has several
spellings): how to build it from ``x``, and the exact value and derivative
written with stable NumPy/SciPy formulas, evaluated in float64.  Each row runs
in float32 and float64; values are checked in FAST_RUN, gradients in FAST_RUN
and FAST_COMPILE (``theon.grad`` differentiates the stable form itself, so the
gradient does not depend on the compile-time rewrites).  A test checks that
every registered stabilization has a row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
import scipy.special as sps

import theon
import theon.tensor as tt
from theon.rewriting.db import RewriteQuery, rewrite_db
from theon.rewriting.db import load_rewrite_modules as load_tensor_rewrites
from theon.tensor.special import log_softmax, softmax

Array = np.ndarray


def _log1mexp(x: Array) -> Array:
    with np.errstate(all="ignore"):
        return np.where(x < -np.log(2), np.log1p(-np.exp(x)), np.log(-np.expm1(x)))


def _dlog1mexp(x: Array) -> Array:
    with np.errstate(all="ignore"):
        return np.where(x == 0, -np.inf, -1 / np.expm1(-x))


def _dsigmoid(x: Array) -> Array:
    return sps.expit(x) * sps.expit(-x)


@dataclass(frozen=True)
class Row:
    """A stabilized pattern: its rewrite, builder and exact value and gradient."""

    rewrite: str
    build: Callable[[Any], Any]
    value: Callable[[Array], Array]
    # elementwise rows give d out_i / d x_i; coupled rows (coupled=True) give the
    # gradient of sum(w * out) as grad(x, w)
    grad: Callable[..., Array]
    points: tuple[float, ...] | tuple[tuple[float, ...], ...]
    coupled: bool = False


EXTREME = (-1000.0, -90.0, -40.0, -1.0, 0.0, 1.0, 40.0, 90.0, 1000.0)
NONPOSITIVE = (-1000.0, -90.0, -40.0, -1.0, -1e-5, -1e-20, 0.0)
VECTORS = ((1000.0, 0.0, -1000.0), (-1000.0, -1000.0, -999.0), (90.0, 0.0, -90.0),
           (0.0, 1.0, 2.0), (1000.0, 1000.0, -1000.0))


def _softmax_grad(x: Array, w: Array) -> Array:
    s = sps.softmax(x)
    return s * (w - np.sum(w * s))


def _unpick(w: Array, perm: list[int]) -> Array:
    """The gradient of ``sum(w * v[perm])`` with respect to ``v``: ``w`` put back in place."""
    out = np.zeros_like(w)
    out[perm] = w
    return out


ROWS: tuple[Row, ...] = (
    Row("local_log1p", lambda x: tt.log(1 + x), np.log1p, lambda x: 1 / (1 + x),
        (-0.5, -1e-30, 1e-30, 1e-8, 1000.0)),
    Row("local_log1p", lambda x: tt.log(x + 1 - 0.5 * x), lambda x: np.log1p(0.5 * x),
        lambda x: 0.5 / (1 + 0.5 * x), (-1e-30, 1e-30, 1e-8, 1000.0)),
    Row("local_exp_minus_one", lambda x: tt.exp(x) - 1, np.expm1, np.exp,
        (-1000.0, -1e-30, 1e-30, 1e-10, 1.0, 80.0)),
    Row("local_exp_minus_one", lambda x: 1 - tt.exp(x), lambda x: -np.expm1(x),
        lambda x: -np.exp(x), (-1000.0, -1e-30, 1e-30, 1e-10, 1.0)),
    Row("local_one_plus_erf", lambda x: 1 + tt.erf(x), lambda x: sps.erfc(-x),
        lambda x: 2 / np.sqrt(np.pi) * np.exp(-x * x), (-27.0, -5.94, -1.0, 0.0, 1.0, 5.94)),
    Row("local_one_plus_erf", lambda x: 1 - tt.erf(x), sps.erfc,
        lambda x: -2 / np.sqrt(np.pi) * np.exp(-x * x), (-5.94, -1.0, 0.0, 1.0, 5.94, 27.0)),
    Row("local_log_exp", lambda x: tt.log(tt.exp(x)), lambda x: x, np.ones_like, EXTREME),
    Row("local_log1p_exp", lambda x: tt.log1p(tt.exp(x)), lambda x: np.logaddexp(0, x),
        sps.expit, EXTREME),
    Row("local_log1p_exp", lambda x: tt.log(1 + tt.exp(x)), lambda x: np.logaddexp(0, x),
        sps.expit, EXTREME),
    Row("local_log1p_neg_exp", lambda x: tt.log1p(-tt.exp(x)), _log1mexp, _dlog1mexp,
        NONPOSITIVE),
    Row("local_log1p_neg_exp", lambda x: tt.log(1 - tt.exp(x)), _log1mexp, _dlog1mexp,
        NONPOSITIVE),
    Row("local_log_neg_expm1", lambda x: tt.log(-tt.expm1(x)), _log1mexp, _dlog1mexp,
        NONPOSITIVE),
    Row("local_log_sigmoid", lambda x: tt.log(tt.sigmoid(x)), lambda x: -np.logaddexp(0, -x),
        lambda x: sps.expit(-x), EXTREME),
    Row("local_one_minus_sigmoid", lambda x: 1 - tt.sigmoid(x), lambda x: sps.expit(-x),
        lambda x: -_dsigmoid(x), EXTREME),
    Row("local_log1p_neg_sigmoid", lambda x: tt.log1p(-tt.sigmoid(x)),
        lambda x: -np.logaddexp(0, x), lambda x: -sps.expit(x), EXTREME),
    Row("local_log1p_neg_sigmoid", lambda x: tt.log(1 - tt.sigmoid(x)),
        lambda x: -np.logaddexp(0, x), lambda x: -sps.expit(x), EXTREME),
    Row("local_sigmoid_from_exp", lambda x: 1 / (1 + tt.exp(-x)), sps.expit, _dsigmoid,
        EXTREME),
    Row("local_sigmoid_from_exp", lambda x: tt.exp(x) / (1 + tt.exp(x)), sps.expit,
        _dsigmoid, EXTREME),
    Row("local_sigmoid_from_exp", lambda x: 3 / (tt.exp(x) + 1), lambda x: 3 * sps.expit(-x),
        lambda x: -3 * _dsigmoid(x), EXTREME),
    # the example: several stabilizations in a row
    Row("local_sigmoid_from_exp", lambda x: tt.log(1 - 1 / (1 + tt.exp(-x))),
        lambda x: -np.logaddexp(0, x), lambda x: -sps.expit(x), EXTREME),
    Row("local_softmax_manual", lambda x: tt.exp(x) / tt.sum(tt.exp(x)), sps.softmax,
        _softmax_grad, VECTORS, coupled=True),
    Row("local_log_softmax", lambda x: tt.log(softmax(x)), sps.log_softmax,
        lambda x, w: w - sps.softmax(x) * np.sum(w), VECTORS, coupled=True),
    Row("local_softmax_drop_max", lambda x: softmax(x - tt.max(x)), sps.softmax,
        _softmax_grad, VECTORS, coupled=True),
    Row("local_softmax_drop_max", lambda x: log_softmax(x - tt.max(x, keepdims=True)),
        sps.log_softmax, lambda x, w: w - sps.softmax(x) * np.sum(w), VECTORS, coupled=True),
    Row("local_log_sum_exp", lambda x: tt.log(tt.sum(tt.exp(x))), sps.logsumexp,
        lambda x, w: np.sum(w) * sps.softmax(x), VECTORS, coupled=True),
    # log of picked softmax entries: a permutation (advanced index), a reversal (basic)
    Row("local_log_softmax_indexed", lambda x: tt.log(softmax(x)[[2, 0, 1]]),
        lambda x: sps.log_softmax(x)[[2, 0, 1]],
        lambda x, w: _unpick(w, [2, 0, 1]) - sps.softmax(x) * np.sum(w), VECTORS,
        coupled=True),
    Row("local_log_softmax_indexed", lambda x: tt.log(softmax(x)[::-1]),
        lambda x: sps.log_softmax(x)[::-1],
        lambda x, w: w[::-1] - sps.softmax(x) * np.sum(w), VECTORS, coupled=True),
)

IDS = [f"{k}-{r.rewrite}" for k, r in enumerate(ROWS)]


def test_every_stabilization_has_a_row() -> None:
    load_tensor_rewrites()
    phase = rewrite_db.select(RewriteQuery(include=("stabilize",)))["stabilize"]
    # the matrix stabilizations of theon.tensor.linalg have their value and gradient
    # tests in tests/tensor/linalg/test_rewriting.py
    registered = {e.name for e in phase if not getattr(e.rewriter, "__module__", "").startswith(
        "theon.tensor.linalg")} - {"merge", "constant_folding"}
    assert registered - {r.rewrite for r in ROWS} == set()
    assert {r.rewrite for r in ROWS} <= registered


def _tolerances(dtype: str) -> dict[str, float]:
    if dtype == "float32":
        return {"rtol": 2e-5, "atol": float(np.finfo(np.float32).tiny) * 4}
    return {"rtol": 1e-11, "atol": float(np.finfo(np.float64).tiny) * 4}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_value_and_gradient_at_extreme_points(row: Row, dtype: str) -> None:
    x = tt.vector("x", dtype=dtype)
    out = row.build(x)
    rng = np.random.default_rng(7)
    points = [np.asarray(p, dtype=dtype) for p in row.points]
    if not row.coupled:
        points = [np.asarray(row.points, dtype=dtype)]
    for xv in points:
        w = rng.uniform(0.5, 1.5, size=xv.shape).astype(dtype)
        wv = tt.constant(w)
        g = theon.grad(tt.sum(wv * out), x)
        x64 = xv.astype("float64")
        with np.errstate(all="ignore"):
            want_value = row.value(x64)
            want_grad = (
                row.grad(x64, w.astype("float64")) if row.coupled else w * row.grad(x64)
            )
        tol = _tolerances(dtype)
        value, grad_fast = theon.function([x], [out, g], mode="FAST_RUN")(xv)
        np.testing.assert_allclose(value, want_value.astype(dtype), **tol,
                                   err_msg=f"value of {row.rewrite} at {xv}")
        np.testing.assert_allclose(grad_fast, want_grad.astype(dtype), **tol,
                                   err_msg=f"FAST_RUN gradient of {row.rewrite} at {xv}")
        grad_plain = theon.function([x], g, mode="FAST_COMPILE")(xv)
        np.testing.assert_allclose(grad_plain, want_grad.astype(dtype), **tol,
                                   err_msg=f"FAST_COMPILE gradient of {row.rewrite} at {xv}")
