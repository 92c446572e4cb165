"""A ``pm.CustomDist`` whose ``dist`` is a ``scan`` (an AR(1)): PyMC derives its
log-density from the scan, reading the state's initial value out of the scan's initial
buffer; checked against the AR(1) log-density written with SciPy, and its gradient
against central differences.  On theon the conftest installs the alias first."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import scipy.stats as st

pm = pytest.importorskip("pymc", reason="needs PyMC (pip install --no-deps pymc==5.28.5)")
import pytensor  # noqa: E402
import pytensor.tensor as pt  # noqa: E402
from pymc.pytensorf import collect_default_updates  # noqa: E402

N = 12


def _model(y: np.ndarray) -> Any:
    def dist(rho: Any, sigma: Any, size: Any) -> Any:
        def step(prev: Any, rho: Any, sigma: Any) -> Any:
            nxt = pm.Normal.dist(rho * prev, sigma)
            return nxt, collect_default_updates([nxt])

        outs, _ = pytensor.scan(step, outputs_info=[pt.constant(0.0, dtype="float64")],
                                non_sequences=[rho, sigma], n_steps=N)
        return outs

    with pm.Model() as m:
        rho = pm.Uniform("rho", -1, 1)
        sigma = pm.HalfNormal("sigma", 1)
        pm.CustomDist("y", rho, sigma, dist=dist, observed=y)
    return m


def _ar1_logp(y: np.ndarray, rho: float, sigma: float) -> float:
    prev = np.concatenate([[0.0], y[:-1]])
    return float(st.norm.logpdf(y, rho * prev, sigma).sum())


def test_custom_dist_of_a_scan_logp_and_gradient() -> None:
    rng = np.random.default_rng(31)
    y = np.cumsum(rng.normal(scale=0.4, size=N))
    m = _model(y)
    logp, dlogp = m.compile_logp(), m.compile_dlogp()
    for point in ({"rho_interval__": 0.0, "sigma_log__": 0.0},
                  {"rho_interval__": 0.7, "sigma_log__": -0.4}):
        u, s = point["rho_interval__"], point["sigma_log__"]
        rho = 2.0 / (1.0 + np.exp(-u)) - 1.0
        sigma = np.exp(s)
        # priors on the unconstrained scale: Uniform(-1, 1) and HalfNormal(1), with
        # the log-Jacobians of the interval and log transforms
        prior = (np.log(0.5) + np.log(2.0) - u - 2.0 * np.log1p(np.exp(-u))
                 + st.halfnorm.logpdf(sigma) + s)
        want = prior + _ar1_logp(y, rho, sigma)
        np.testing.assert_allclose(logp(point), want, rtol=1e-12)
        h = 1e-6
        num = [(logp({**point, k: point[k] + h}) - logp({**point, k: point[k] - h})) / (2 * h)
               for k in ("rho_interval__", "sigma_log__")]
        np.testing.assert_allclose(dlogp(point), num, rtol=1e-6, atol=1e-7)


def test_custom_dist_of_a_scan_draws() -> None:
    m = _model(np.zeros(N))
    with m:
        prior = pm.sample_prior_predictive(draws=20, random_seed=5)
    draws = prior.prior_predictive["y"].values
    assert draws.shape == (1, 20, N) and np.all(np.isfinite(draws))
    assert len(np.unique(draws[0, :, 0])) == 20
