"""The PyMC model set of ``bench/pymc.py`` and ``tests/compat/test_pymc_models.py``.

Each builder returns a ``pm.Model`` built from fixed synthetic data (seeded), so the
same file builds the same model on PyMC over theon (``theon.compat.alias("pytensor")``)
and on PyMC over PyTensor. Import ``pymc`` before calling a builder; this module only
imports it inside the builders, so that the alias can be installed first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

SEED = 20261129


def _rng(k: int) -> np.random.Generator:
    return np.random.default_rng(SEED + k)


def linear_regression() -> Any:
    import pymc as pm

    rng = _rng(1)
    X = rng.normal(size=(100, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + 0.7 + rng.normal(scale=0.5, size=100)
    with pm.Model() as m:
        beta = pm.Normal("beta", 0, 10, shape=3)
        alpha = pm.Normal("alpha", 0, 10)
        sigma = pm.HalfNormal("sigma", 1)
        pm.Normal("y", alpha + pm.math.dot(X, beta), sigma, observed=y)
    return m


def logistic_regression() -> Any:
    import pymc as pm

    rng = _rng(2)
    X = rng.normal(size=(200, 2))
    p = 1 / (1 + np.exp(-(X @ np.array([1.5, -1.0]) - 0.3)))
    y = (rng.uniform(size=200) < p).astype("int64")
    with pm.Model() as m:
        beta = pm.Normal("beta", 0, 5, shape=2)
        alpha = pm.Normal("alpha", 0, 5)
        pm.Bernoulli("y", logit_p=alpha + pm.math.dot(X, beta), observed=y)
    return m


_SCHOOLS_Y = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
_SCHOOLS_SIGMA = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])


def eight_schools_centered() -> Any:
    import pymc as pm

    with pm.Model() as m:
        mu = pm.Normal("mu", 0, 5)
        tau = pm.HalfCauchy("tau", 5)
        theta = pm.Normal("theta", mu, tau, shape=8)
        pm.Normal("obs", theta, _SCHOOLS_SIGMA, observed=_SCHOOLS_Y)
    return m


def eight_schools_noncentered() -> Any:
    import pymc as pm

    with pm.Model() as m:
        mu = pm.Normal("mu", 0, 5)
        tau = pm.HalfCauchy("tau", 5)
        z = pm.Normal("z", 0, 1, shape=8)
        theta = pm.Deterministic("theta", mu + tau * z)
        pm.Normal("obs", theta, _SCHOOLS_SIGMA, observed=_SCHOOLS_Y)
    return m


def hierarchical(groups: int = 120, per_group: int = 5) -> Any:
    """A non-centered hierarchical normal model with ``groups`` group intercepts."""
    import pymc as pm

    rng = _rng(3)
    idx = np.repeat(np.arange(groups), per_group)
    a_true = rng.normal(1.0, 0.5, size=groups)
    y = a_true[idx] + rng.normal(scale=0.3, size=idx.size)
    with pm.Model() as m:
        mu = pm.Normal("mu", 0, 2)
        sd = pm.HalfNormal("sd", 1)
        z = pm.Normal("z", 0, 1, shape=groups)
        a = mu + sd * z
        sigma = pm.HalfNormal("sigma", 1)
        pm.Normal("y", a[idx], sigma, observed=y)
    return m


def hierarchical_scalar(n: int = 1000) -> Any:
    """A hierarchical model of ``n`` scalar random variables (one per group): compile size."""
    import pymc as pm

    rng = _rng(4)
    y = rng.normal(size=n)
    with pm.Model() as m:
        mu = pm.Normal("mu", 0, 1)
        sd = pm.HalfNormal("sd", 1)
        for i in range(n):
            th = pm.Normal(f"theta_{i}", mu, sd)
            pm.Normal(f"y_{i}", th, 1.0, observed=y[i])
    return m


def gp_marginal() -> Any:
    import pymc as pm

    rng = _rng(5)
    X = np.linspace(0, 10, 40)[:, None]
    y = np.sin(X[:, 0]) + rng.normal(scale=0.2, size=40)
    with pm.Model() as m:
        ls = pm.Gamma("ls", 2, 1)
        eta = pm.HalfNormal("eta", 2)
        cov = eta**2 * pm.gp.cov.ExpQuad(1, ls)
        gp = pm.gp.Marginal(cov_func=cov)
        sigma = pm.HalfNormal("sigma", 1)
        gp.marginal_likelihood("y", X=X, y=y, sigma=sigma)
    return m


def gp_latent() -> Any:
    import pymc as pm

    rng = _rng(6)
    X = np.linspace(0, 5, 20)[:, None]
    y = np.cos(X[:, 0]) + rng.normal(scale=0.3, size=20)
    with pm.Model() as m:
        ls = pm.Gamma("ls", 2, 1)
        cov = pm.gp.cov.Matern52(1, ls)
        gp = pm.gp.Latent(cov_func=cov)
        f = gp.prior("f", X=X)
        pm.Normal("y", f, 0.3, observed=y)
    return m


def normal_mixture() -> Any:
    import pymc as pm

    rng = _rng(7)
    y = np.concatenate([rng.normal(-2, 0.5, 60), rng.normal(2, 0.7, 90)])
    with pm.Model() as m:
        w = pm.Dirichlet("w", np.ones(2))
        mu = pm.Normal("mu", np.array([-1.0, 1.0]), 3, shape=2,
                       transform=pm.distributions.transforms.ordered)
        sigma = pm.HalfNormal("sigma", 2, shape=2)
        pm.NormalMixture("y", w=w, mu=mu, sigma=sigma, observed=y)
    return m


def random_walk() -> Any:
    import pymc as pm

    rng = _rng(8)
    y = np.cumsum(rng.normal(scale=0.3, size=50)) + rng.normal(scale=0.2, size=50)
    with pm.Model() as m:
        sigma = pm.HalfNormal("sigma", 1)
        x = pm.GaussianRandomWalk(
            "x", sigma=sigma, init_dist=pm.Normal.dist(0, 1), steps=49
        )
        pm.Normal("y", x, 0.2, observed=y)
    return m


def ar() -> Any:
    import pymc as pm

    rng = _rng(9)
    y = np.zeros(80)
    for t in range(1, 80):
        y[t] = 0.6 * y[t - 1] + rng.normal(scale=0.5)
    with pm.Model() as m:
        rho = pm.Normal("rho", 0, 1, shape=1)
        sigma = pm.HalfNormal("sigma", 1)
        pm.AR("y", rho=rho, sigma=sigma, init_dist=pm.Normal.dist(0, 1), observed=y)
    return m


def censored() -> Any:
    import pymc as pm

    rng = _rng(10)
    y = np.clip(rng.normal(1.0, 2.0, size=100), -1.0, 3.0)
    with pm.Model() as m:
        mu = pm.Normal("mu", 0, 5)
        sigma = pm.HalfNormal("sigma", 3)
        pm.Censored("y", pm.Normal.dist(mu, sigma), lower=-1.0, upper=3.0, observed=y)
    return m


def truncated() -> Any:
    import pymc as pm

    rng = _rng(11)
    y = rng.normal(0.5, 1.0, size=600)
    y = y[(y > -1.0) & (y < 2.5)][:200]
    with pm.Model() as m:
        mu = pm.Normal("mu", 0, 5)
        sigma = pm.HalfNormal("sigma", 3)
        pm.Truncated("y", pm.Normal.dist(mu, sigma), lower=-1.0, upper=2.5, observed=y)
    return m


def data_model() -> Any:
    """``pm.Data`` (later changed with ``pm.set_data``), ``pm.Deterministic``, ``pm.Potential``."""
    import pymc as pm

    rng = _rng(12)
    x = rng.normal(size=60)
    y = 2.0 * x - 1.0 + rng.normal(scale=0.4, size=60)
    with pm.Model() as m:
        xd = pm.Data("x", x)
        a = pm.Normal("a", 0, 5)
        b = pm.Normal("b", 0, 5)
        sigma = pm.HalfNormal("sigma", 1)
        mu = pm.Deterministic("mu", a + b * xd)
        pm.Potential("b_positive", pm.math.switch(b > 0, 0.0, -10.0 * b**2))
        pm.Normal("y", mu, sigma, observed=y, shape=xd.shape)
    return m


def custom_logp() -> Any:
    """``pm.CustomDist`` given its ``logp``."""
    import pymc as pm

    rng = _rng(13)
    y = rng.standard_t(4, size=80) * 0.8 + 0.3

    import pytensor.tensor as pt  # theon.tensor under the alias

    def logp(value: Any, mu: Any, s: Any) -> Any:
        z = (value - mu) / s
        return -pt.log(s) - 2.0 * pt.log1p(z**2 / 3)

    def random(mu: Any, s: Any, rng: Any = None, size: Any = None) -> Any:
        return mu + s * rng.standard_t(3, size=size)  # the density of logp: Student t, nu=3

    with pm.Model() as m:
        mu = pm.Normal("mu", 0, 5)
        s = pm.HalfNormal("s", 2)
        pm.CustomDist("y", mu, s, logp=logp, random=random, observed=y)
    return m


def custom_dist() -> Any:
    """``pm.CustomDist`` given a ``dist`` function: PyMC derives the logp symbolically."""
    import pymc as pm

    rng = _rng(14)
    y = np.exp(rng.normal(0.5, 0.4, size=70))

    def dist(mu: Any, sigma: Any, size: Any) -> Any:
        return pm.math.exp(pm.Normal.dist(mu, sigma, size=size))

    with pm.Model() as m:
        mu = pm.Normal("mu", 0, 2)
        sigma = pm.HalfNormal("sigma", 1)
        pm.CustomDist("y", mu, sigma, dist=dist, observed=y)
    return m


def custom_dist_scan() -> Any:
    """``pm.CustomDist`` whose ``dist`` is a scan (an AR(1)): logp through scan."""
    import pymc as pm
    import pytensor
    import pytensor.tensor as pt
    from pymc.pytensorf import collect_default_updates

    rng = _rng(15)
    y = np.zeros(30)
    for t in range(1, 30):
        y[t] = 0.5 * y[t - 1] + rng.normal(scale=0.4)

    def dist(rho: Any, sigma: Any, size: Any) -> Any:
        def step(prev: Any, rho: Any, sigma: Any) -> Any:
            nxt = pm.Normal.dist(rho * prev, sigma)
            return nxt, collect_default_updates([nxt])

        outs, _ = pytensor.scan(
            step, outputs_info=[pt.constant(0.0, dtype="float64")],
            non_sequences=[rho, sigma], n_steps=30,
        )
        return outs

    with pm.Model() as m:
        rho = pm.Uniform("rho", -1, 1)
        sigma = pm.HalfNormal("sigma", 1)
        pm.CustomDist("y", rho, sigma, dist=dist, observed=y)
    return m


MODELS: dict[str, Callable[[], Any]] = {
    "linear_regression": linear_regression,
    "logistic_regression": logistic_regression,
    "eight_schools_centered": eight_schools_centered,
    "eight_schools_noncentered": eight_schools_noncentered,
    "hierarchical_120": hierarchical,
    "gp_marginal": gp_marginal,
    "gp_latent": gp_latent,
    "normal_mixture": normal_mixture,
    "gaussian_random_walk": random_walk,
    "ar": ar,
    "censored": censored,
    "truncated": truncated,
    "data_deterministic_potential": data_model,
    "custom_dist_logp": custom_logp,
    "custom_dist_dist": custom_dist,
    "custom_dist_scan": custom_dist_scan,
}
