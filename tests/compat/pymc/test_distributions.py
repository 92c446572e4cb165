"""PyMC's own test helpers (``pymc.testing``) on PyMC's distributions, against scipy.stats.

The way PyMC's distribution tests use them: ``check_logp``, ``check_logcdf`` and
``check_icdf`` compare a distribution's log-density, log-CDF and inverse CDF with
SciPy's on a grid of values and parameters (edges included); the random testers
compare draws with SciPy's by a Kolmogorov-Smirnov test; ``assert_support_point_is_expected``
checks the initial point PyMC derives. On theon the conftest of this folder installs
``theon.compat.alias("pytensor")`` first; the same file runs on PyMC over PyTensor as the
reference (``bench/pymc.py`` documents both runs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
import scipy.stats as st

pm = pytest.importorskip("pymc", reason="needs PyMC (pip install --no-deps pymc==5.28.5)")
from pymc.testing import (  # noqa: E402
    Bool,
    Circ,
    Domain,
    Nat,
    NatSmall,
    R,
    Rdunif,
    Rplus,
    Rplusbig,
    Rplusdunif,
    Unit,
    assert_support_point_is_expected,
    check_icdf,
    check_logcdf,
    check_logp,
    continuous_random_tester,
    discrete_random_tester,
)

Rplus5 = Domain([0, 0.5, 1, 2.5, 5, np.inf])
PosR = Domain([0.1, 0.5, 1, 2.5, 5], edges=(0, None))  # positive parameters away from 0


@dataclass
class Case:
    """One distribution: its domains and SciPy's functions (None: PyMC has no such method)."""

    dist: Any
    domain: Domain
    params: dict[str, Domain]
    logp: Callable[..., Any]
    logcdf: Callable[..., Any] | None = None
    ppf: Callable[..., Any] | None = None
    rvs: Callable[..., Any] | None = None
    discrete: bool = False
    support: tuple[dict[str, Any], Any] | None = None  # (params, expected initial value)
    decimal: int | None = None
    outside_edges: bool = True  # check parameters just outside their domain's edges


CASES: dict[str, Case] = {
    "Normal": Case(
        pm.Normal, R, {"mu": R, "sigma": Rplus},
        lambda value, mu, sigma: st.norm.logpdf(value, mu, sigma),
        lambda value, mu, sigma: st.norm.logcdf(value, mu, sigma),
        lambda q, mu, sigma: st.norm.ppf(q, mu, sigma),
        lambda size, mu, sigma: st.norm.rvs(mu, sigma, size=size),
        support=({"mu": 2.0, "sigma": 1.0}, 2.0),
    ),
    "HalfNormal": Case(
        pm.HalfNormal, Rplus, {"sigma": Rplus},
        lambda value, sigma: st.halfnorm.logpdf(value, scale=sigma),
        lambda value, sigma: st.halfnorm.logcdf(value, scale=sigma),
        lambda q, sigma: st.halfnorm.ppf(q, scale=sigma),
        lambda size, sigma: st.halfnorm.rvs(scale=sigma, size=size),
        support=({"sigma": 2.0}, 2.0),
    ),
    "Uniform": Case(
        pm.Uniform, Domain([-1.0, -0.5, 0.0, 0.5, 1.0], edges=(-1, 1)),
        {"lower": Domain([-1.0], edges=(None, None)), "upper": Domain([1.0], edges=(None, None))},
        lambda value, lower, upper: st.uniform.logpdf(value, lower, upper - lower),
        lambda value, lower, upper: st.uniform.logcdf(value, lower, upper - lower),
        lambda q, lower, upper: st.uniform.ppf(q, lower, upper - lower),
        lambda size, lower, upper: st.uniform.rvs(lower, upper - lower, size=size),
        support=({"lower": -1.0, "upper": 3.0}, 1.0),
    ),
    "Beta": Case(
        pm.Beta, Unit, {"alpha": Rplus, "beta": Rplus},
        lambda value, alpha, beta: st.beta.logpdf(value, alpha, beta),
        lambda value, alpha, beta: st.beta.logcdf(value, alpha, beta),
        None,
        lambda size, alpha, beta: st.beta.rvs(alpha, beta, size=size),
        support=({"alpha": 2.0, "beta": 2.0}, 0.5),
        decimal=5,
    ),
    "Exponential": Case(
        pm.Exponential, Rplus, {"lam": Rplus},
        lambda value, lam: st.expon.logpdf(value, 0, 1 / lam),
        lambda value, lam: st.expon.logcdf(value, 0, 1 / lam),
        lambda q, lam: st.expon.ppf(q, 0, 1 / lam),
        lambda size, lam: st.expon.rvs(0, 1 / lam, size=size),
        support=({"lam": 2.0}, 0.5),
    ),
    "Laplace": Case(
        pm.Laplace, R, {"mu": R, "b": Rplus},
        lambda value, mu, b: st.laplace.logpdf(value, mu, b),
        lambda value, mu, b: st.laplace.logcdf(value, mu, b),
        lambda q, mu, b: st.laplace.ppf(q, mu, b),
        lambda size, mu, b: st.laplace.rvs(mu, b, size=size),
        support=({"mu": 1.0, "b": 2.0}, 1.0),
    ),
    "LogNormal": Case(
        pm.LogNormal, Rplus, {"mu": R, "sigma": PosR},
        lambda value, mu, sigma: st.lognorm.logpdf(value, sigma, 0, np.exp(mu)),
        lambda value, mu, sigma: st.lognorm.logcdf(value, sigma, 0, np.exp(mu)),
        lambda q, mu, sigma: st.lognorm.ppf(q, sigma, 0, np.exp(mu)),
        lambda size, mu, sigma: st.lognorm.rvs(sigma, 0, np.exp(mu), size=size),
    ),
    "StudentT": Case(
        pm.StudentT, R, {"nu": Rplus, "mu": R, "sigma": Rplus},
        lambda value, nu, mu, sigma: st.t.logpdf(value, nu, mu, sigma),
        lambda value, nu, mu, sigma: st.t.logcdf(value, nu, mu, sigma),
        None,
        lambda size, nu, mu, sigma: st.t.rvs(nu, mu, sigma, size=size),
        support=({"nu": 3.0, "mu": 2.0, "sigma": 1.0}, 2.0),
    ),
    "Cauchy": Case(
        pm.Cauchy, R, {"alpha": R, "beta": Rplusbig},
        lambda value, alpha, beta: st.cauchy.logpdf(value, alpha, beta),
        lambda value, alpha, beta: st.cauchy.logcdf(value, alpha, beta),
        lambda q, alpha, beta: st.cauchy.ppf(q, alpha, beta),
        lambda size, alpha, beta: st.cauchy.rvs(alpha, beta, size=size),
    ),
    "HalfCauchy": Case(
        pm.HalfCauchy, Rplus, {"beta": Rplusbig},
        lambda value, beta: st.halfcauchy.logpdf(value, scale=beta),
        lambda value, beta: st.halfcauchy.logcdf(value, scale=beta),
        lambda q, beta: st.halfcauchy.ppf(q, scale=beta),
        lambda size, beta: st.halfcauchy.rvs(scale=beta, size=size),
    ),
    "Gamma": Case(
        pm.Gamma, Rplus, {"alpha": Rplusbig, "beta": Rplusbig},
        lambda value, alpha, beta: st.gamma.logpdf(value, alpha, scale=1.0 / beta),
        lambda value, alpha, beta: st.gamma.logcdf(value, alpha, scale=1.0 / beta),
        None,
        lambda size, alpha, beta: st.gamma.rvs(alpha, scale=1.0 / beta, size=size),
        support=({"alpha": 2.0, "beta": 4.0}, 0.5),
    ),
    "InverseGamma": Case(
        pm.InverseGamma, Rplus, {"alpha": Rplus, "beta": Rplus},
        lambda value, alpha, beta: st.invgamma.logpdf(value, alpha, scale=beta),
        lambda value, alpha, beta: st.invgamma.logcdf(value, alpha, scale=beta),
        None,
        lambda size, alpha, beta: st.invgamma.rvs(alpha, scale=beta, size=size),
    ),
    "ChiSquared": Case(
        pm.ChiSquared, Rplus, {"nu": Rplus},
        lambda value, nu: st.chi2.logpdf(value, df=nu),
        lambda value, nu: st.chi2.logcdf(value, df=nu),
        None,
        lambda size, nu: st.chi2.rvs(df=nu, size=size),
    ),
    "Weibull": Case(
        pm.Weibull, Rplus, {"alpha": Rplusbig, "beta": Rplusbig},
        lambda value, alpha, beta: st.exponweib.logpdf(value, 1, alpha, 0, beta),
        lambda value, alpha, beta: st.exponweib.logcdf(value, 1, alpha, 0, beta),
        lambda q, alpha, beta: st.exponweib.ppf(q, 1, alpha, 0, beta),
        lambda size, alpha, beta: st.exponweib.rvs(1, alpha, 0, beta, size=size),
    ),
    "Logistic": Case(
        pm.Logistic, R, {"mu": R, "s": Rplus},
        lambda value, mu, s: st.logistic.logpdf(value, mu, s),
        lambda value, mu, s: st.logistic.logcdf(value, mu, s),
        lambda q, mu, s: st.logistic.ppf(q, mu, s),
        lambda size, mu, s: st.logistic.rvs(mu, s, size=size),
        support=({"mu": 1.0, "s": 2.0}, 1.0),
    ),
    "Gumbel": Case(
        pm.Gumbel, R, {"mu": R, "beta": Rplusbig},
        lambda value, mu, beta: st.gumbel_r.logpdf(value, mu, beta),
        lambda value, mu, beta: st.gumbel_r.logcdf(value, mu, beta),
        lambda q, mu, beta: st.gumbel_r.ppf(q, mu, beta),
        lambda size, mu, beta: st.gumbel_r.rvs(mu, beta, size=size),
    ),
    "Moyal": Case(
        pm.Moyal, R, {"mu": R, "sigma": PosR},
        lambda value, mu, sigma: st.moyal.logpdf(value, mu, sigma),
        None,  # (SciPy's logcdf loses the far tail: no reference)
        lambda q, mu, sigma: st.moyal.ppf(q, mu, sigma),
        lambda size, mu, sigma: st.moyal.rvs(mu, sigma, size=size),
    ),
    "Pareto": Case(
        pm.Pareto, Domain([1, 1.5, 2, 10, np.inf], edges=(1, np.inf)),
        {"alpha": Rplusbig, "m": Domain([1.0], edges=(None, None))},
        lambda value, alpha, m: st.pareto.logpdf(value, alpha, scale=m),
        lambda value, alpha, m: st.pareto.logcdf(value, alpha, scale=m),
        lambda q, alpha, m: st.pareto.ppf(q, alpha, scale=m),
        lambda size, alpha, m: st.pareto.rvs(alpha, scale=m, size=size),
    ),
    "VonMises": Case(
        pm.VonMises, Circ, {"mu": R, "kappa": Rplus},
        lambda value, mu, kappa: st.vonmises.logpdf(value, kappa, loc=mu),
        None,
        None,
        lambda size, mu, kappa: st.vonmises.rvs(kappa, loc=mu, size=size),
    ),
    "Triangular": Case(
        pm.Triangular, Domain([-1, -0.5, 0, 0.5, 1], edges=(-1, 1)),
        {"lower": Domain([-1.0], edges=(None, None)), "c": Domain([0.0], edges=(None, None)),
         "upper": Domain([1.0], edges=(None, None))},
        lambda value, lower, c, upper: st.triang.logpdf(value, (c - lower) / (upper - lower), lower,
                                                    upper - lower),
        lambda value, lower, c, upper: st.triang.logcdf(value, (c - lower) / (upper - lower), lower,
                                                    upper - lower),
        None,
        lambda size, lower, c, upper: st.triang.rvs((c - lower) / (upper - lower), lower,
                                                    upper - lower, size=size),
    ),
    "SkewNormal": Case(
        pm.SkewNormal, R, {"mu": R, "sigma": Rplusbig, "alpha": R},
        lambda value, mu, sigma, alpha: st.skewnorm.logpdf(value, alpha, mu, sigma),
        None, None,
        lambda size, mu, sigma, alpha: st.skewnorm.rvs(alpha, mu, sigma, size=size),
        decimal=5,
    ),
    "Wald": Case(
        pm.Wald, Rplus, {"mu": PosR, "lam": PosR},
        lambda value, mu, lam: st.invgauss.logpdf(value, mu / lam, scale=lam),
        lambda value, mu, lam: st.invgauss.logcdf(value, mu / lam, scale=lam),
        None,
        lambda size, mu, lam: st.invgauss.rvs(mu / lam, scale=lam, size=size),
        decimal=5,
    ),
    "ExGaussian": Case(
        pm.ExGaussian, R, {"mu": R, "sigma": PosR, "nu": PosR},
        lambda value, mu, sigma, nu: st.exponnorm.logpdf(value, nu / sigma, mu, sigma),
        None,  # (SciPy's logcdf loses the far tail: no reference)
        None,
        lambda size, mu, sigma, nu: st.exponnorm.rvs(nu / sigma, mu, sigma, size=size),
        decimal=5,
    ),
    "TruncatedNormal": Case(
        pm.TruncatedNormal, Domain([-1.0, -0.5, 0.0, 0.5, 1.0], edges=(-1.0, 1.0)),
        {"mu": R, "sigma": Rplusbig, "lower": Domain([-1.0], edges=(None, None)),
         "upper": Domain([1.0], edges=(None, None))},
        lambda value, mu, sigma, lower, upper: st.truncnorm.logpdf(
            value, (lower - mu) / sigma, (upper - mu) / sigma, mu, sigma),
        None, None, None,
        decimal=5,
    ),
    "Kumaraswamy": Case(
        pm.Kumaraswamy, Unit, {"a": Rplus, "b": Rplus},
        lambda value, a, b: (np.log(a) + np.log(b) + (a - 1) * np.log(value)
                             + (b - 1) * np.log1p(-(value**a))),
        None,  # (SciPy's logcdf loses the far tail: no reference)
        lambda q, a, b: (1 - (1 - q) ** (1 / b)) ** (1 / a),
        None,
        decimal=5,
    ),
    # discrete
    "Bernoulli": Case(
        pm.Bernoulli, Bool, {"p": Unit},
        lambda value, p: st.bernoulli.logpmf(value, p),
        lambda value, p: st.bernoulli.logcdf(value, p),
        None,
        lambda size, p: st.bernoulli.rvs(p, size=size),
        discrete=True,
    ),
    "Binomial": Case(
        pm.Binomial, Nat, {"n": NatSmall, "p": Unit},
        lambda value, n, p: st.binom.logpmf(value, n, p),
        lambda value, n, p: st.binom.logcdf(value, n, p),
        None,
        lambda size, n, p: st.binom.rvs(n, p, size=size),
        discrete=True,
    ),
    "BetaBinomial": Case(
        pm.BetaBinomial, Nat, {"alpha": Rplus, "beta": Rplus, "n": NatSmall},
        lambda value, alpha, beta, n: st.betabinom.logpmf(value, n, alpha, beta),
        lambda value, alpha, beta, n: st.betabinom.logcdf(value, n, alpha, beta),
        None,
        lambda size, alpha, beta, n: st.betabinom.rvs(n, alpha, beta, size=size),
        discrete=True, decimal=5,
    ),
    "Poisson": Case(
        pm.Poisson, Nat, {"mu": Rplus},
        lambda value, mu: st.poisson.logpmf(value, mu),
        lambda value, mu: st.poisson.logcdf(value, mu),
        None,
        lambda size, mu: st.poisson.rvs(mu, size=size),
        discrete=True,
    ),
    "NegativeBinomial": Case(
        pm.NegativeBinomial, Nat, {"mu": Rplus, "alpha": Rplus},
        lambda value, mu, alpha: st.nbinom.logpmf(value, alpha, alpha / (mu + alpha)),
        lambda value, mu, alpha: st.nbinom.logcdf(value, alpha, alpha / (mu + alpha)),
        None,
        lambda size, mu, alpha: st.nbinom.rvs(alpha, alpha / (mu + alpha), size=size),
        discrete=True, decimal=5,
    ),
    "Geometric": Case(
        pm.Geometric, Nat, {"p": Unit},
        lambda value, p: st.geom.logpmf(value, p),
        lambda value, p: st.geom.logcdf(value, p),
        lambda q, p: st.geom.ppf(q, p),
        lambda size, p: st.geom.rvs(p, size=size),
        discrete=True,
    ),
    "DiscreteUniform": Case(
        pm.DiscreteUniform, Rdunif, {"lower": -Rplusdunif, "upper": Rplusdunif},
        lambda value, lower, upper: st.randint.logpmf(value, lower, upper + 1),
        lambda value, lower, upper: st.randint.logcdf(value, lower, upper + 1),
        lambda q, lower, upper: st.randint.ppf(q, lower, upper + 1),
        lambda size, lower, upper: st.randint.rvs(lower, upper + 1, size=size),
        discrete=True, outside_edges=False,
    ),
    "ZeroInflatedPoisson": Case(
        pm.ZeroInflatedPoisson, Nat, {"psi": Unit, "mu": Rplus},
        lambda value, psi, mu: np.where(
            value == 0, np.log((1 - psi) + psi * np.exp(-mu)),
            np.log(psi) + st.poisson.logpmf(value, mu)),
        None, None, None,
        discrete=True,
    ),
    "DiscreteWeibull": Case(
        pm.DiscreteWeibull, Nat, {"q": Domain([0.1, 0.5, 0.9], edges=(0, 1)),
                                  "beta": Domain([0.5, 1, 2], edges=(0, None))},
        lambda value, q, beta: np.log(np.power(q, np.power(value, beta))
                                  - np.power(q, np.power(value + 1, beta))),
        lambda value, q, beta: np.log1p(-np.power(q, np.power(value + 1, beta))),
        None, None,
        discrete=True,
    ),
    "Categorical": Case(
        pm.Categorical, Domain([0, 1, 2], "int64", edges=(0, 2)),
        {"p": Domain([np.array([0.2, 0.3, 0.5])], edges=(None, None))},
        lambda value, p: np.log(p[value]),
        None, None, None,
        discrete=True,
    ),
}

#: checks that fail on PyMC 5.28.5 over PyTensor 2.38.3 as well (the reference run):
#: PyMC's or SciPy's side, not the engine's.  Strict: one that starts passing fails here.
REFERENCE_FAILS = {
    ("logp", "ExGaussian"), ("logp", "Moyal"), ("logcdf", "Wald"),
    ("icdf", "DiscreteUniform"),
}


def _names(kind: str, names: Any) -> list[Any]:
    """``names`` as parameters, those of :data:`REFERENCE_FAILS` marked strict xfail."""
    return [pytest.param(n, marks=pytest.mark.xfail(
        strict=True, reason=f"{kind} of {n} fails on PyMC over PyTensor 2.38 too"))
        if (kind, n) in REFERENCE_FAILS else n for n in sorted(names)]


@pytest.mark.parametrize("name", _names("logp", CASES))
def test_logp(name: str) -> None:
    c = CASES[name]
    check_logp(c.dist, c.domain, c.params, c.logp, decimal=c.decimal,
               skip_paramdomain_outside_edge_test=not c.outside_edges)


@pytest.mark.parametrize("name", _names("logcdf", (n for n, c in CASES.items() if c.logcdf)))
def test_logcdf(name: str) -> None:
    c = CASES[name]
    assert c.logcdf is not None
    check_logcdf(c.dist, c.domain, c.params, c.logcdf, decimal=c.decimal,
                 skip_paramdomain_outside_edge_test=not c.outside_edges)


@pytest.mark.parametrize("name", _names("icdf", (n for n, c in CASES.items() if c.ppf)))
def test_icdf(name: str) -> None:
    c = CASES[name]
    assert c.ppf is not None
    check_icdf(c.dist, c.params, c.ppf, decimal=c.decimal)


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if c.rvs))
def test_random(name: str) -> None:
    c = CASES[name]
    assert c.rvs is not None
    if c.discrete:
        discrete_random_tester(c.dist, c.params, ref_rand=c.rvs, size=20000)
    else:
        continuous_random_tester(c.dist, c.params, ref_rand=c.rvs, size=2000)


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if c.support))
def test_support_point(name: str) -> None:
    c = CASES[name]
    assert c.support is not None
    params, expected = c.support
    with pm.Model() as model:
        c.dist("x", **params)
    assert_support_point_is_expected(model, expected)


def test_support_point_of_a_vector() -> None:
    with pm.Model() as model:
        pm.Normal("x", mu=np.array([1.0, 2.0, 3.0]), sigma=1.0)
    assert_support_point_is_expected(model, np.array([1.0, 2.0, 3.0]))
