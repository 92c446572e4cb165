"""Every distribution of theon.tensor.random against NumPy's Generator and scipy.stats.

For each row of CASES: (a) the draw equals, on a generator in the same state, the
computation PyTensor's distribution makes (NumPy's Generator method, or scipy.stats'
``rvs`` with the generator as ``random_state``; scalar parameters, vector parameters,
and a ``size``); (b) the shape the graph infers (compiled ``draw.shape`` with no draw
left in it) equals the draw's shape; (c) 10**4 draws pass a Kolmogorov-Smirnov
(continuous) or chi-square (discrete) test against scipy.stats at p > 0.001, with a
fixed seed.
"""

from __future__ import annotations

import copy
import math
from typing import Any, NamedTuple

import numpy as np
import pytest
from scipy import stats

import theon
import theon.graph.basic
import theon.graph.traversal
import theon.tensor as tt
import theon.tensor.random as tr
from theon.tensor.random.op import RandomVariable

SEED = 20261125
N = 10_000


class Case(NamedTuple):
    scalar: tuple[Any, ...]  # parameters for the scalar and statistical checks
    vector: tuple[Any, ...]  # batched parameters
    ref: Any  # ref(gen, params, size) -> the reference draw
    check: Any  # check(draws of the scalar parameters) -> p-value
    call: Any = None  # call(*params, **kw) -> theon's draw (default: tr.<name>)


def _np(method: str) -> Any:
    return lambda g, ps, size: getattr(g, method)(*ps, size=size)


def _sp(dist: str, **fixed: Any) -> Any:
    """scipy.stats' ``rvs`` with the generator as ``random_state``."""
    return lambda g, ps, size: getattr(stats, dist).rvs(*ps, size=size, random_state=g,
                                                        **fixed)


def _ks(dist: Any) -> Any:
    return lambda x: stats.kstest(x, dist.cdf).pvalue


def _chi2(pmf: Any, support: np.ndarray) -> Any:
    """Chi-square test of integer draws against ``pmf`` on ``support`` (sparse bins merged)."""
    def check(x: np.ndarray) -> float:
        probs = pmf(support)
        probs = np.append(probs, max(0.0, 1.0 - probs.sum()))  # the rest of the support
        obs = np.array([(x == k).sum() for k in support] + [(~np.isin(x, support)).sum()])
        exp = probs * len(x)
        keep_obs, keep_exp, acc_o, acc_e = [], [], 0.0, 0.0
        for o, e in zip(obs, exp):
            acc_o += o
            acc_e += e
            if acc_e >= 5:
                keep_obs.append(acc_o)
                keep_exp.append(acc_e)
                acc_o = acc_e = 0.0
        keep_obs[-1] += acc_o
        keep_exp[-1] += acc_e
        o, e = np.array(keep_obs), np.array(keep_exp)
        return float(stats.chisquare(o, e * o.sum() / e.sum()).pvalue)
    return check


def _categorical_ref(g: np.random.Generator, ps: Any, size: Any) -> np.ndarray:
    (p,) = ps
    p = np.asarray(p, dtype=float)
    if p.ndim == 1:
        return g.choice(len(p), size=size, p=p)
    shape = size if size is not None else p.shape[:-1]
    u = g.random(shape)
    pb = np.broadcast_to(p, tuple(shape) + p.shape[-1:])
    out = np.empty(shape, dtype=np.int64)
    for idx in np.ndindex(*shape):
        cdf = np.cumsum(pb[idx])
        out[idx] = np.searchsorted(cdf / cdf[-1], u[idx], side="right")
    return out


def _dirichlet_ref(g: np.random.Generator, ps: Any, size: Any) -> np.ndarray:
    """NumPy's unbatched ``dirichlet`` called once per batch element, in C order."""
    (alpha,) = [np.asarray(p, dtype=float) for p in ps]
    if alpha.ndim == 1:
        return g.dirichlet(alpha, size=size)
    shape = tuple(size) if size is not None else alpha.shape[:-1]
    ab = np.broadcast_to(alpha, shape + alpha.shape[-1:])
    return np.array([g.dirichlet(ab[i]) for i in np.ndindex(*shape)]).reshape(
        shape + alpha.shape[-1:])


def _mvnormal_ref(g: np.random.Generator, ps: Any, size: Any) -> np.ndarray:
    """``mean + L z``: ``L`` the lower Cholesky factor of ``cov``, ``z`` standard normal
    draws of shape ``batch + (n,)`` (PyTensor's default method)."""
    mean, cov = (np.asarray(p, dtype=float) for p in ps)
    batch = tuple(size) if size is not None else np.broadcast_shapes(mean.shape[:-1],
                                                                     cov.shape[:-2])
    z = g.normal(size=batch + mean.shape[-1:])
    chol = np.linalg.cholesky(cov)
    return (chol @ z[..., None])[..., 0] + mean


P3 = np.array([0.2, 0.5, 0.3])
COV = np.array([[2.0, 0.5], [0.5, 1.0]])
V3 = np.array([0.5, 1.0, 2.0])

def _shape_of(ps: Any, size: Any) -> tuple[int, ...]:
    return tuple(size) if size is not None else np.broadcast_shapes(*(np.shape(p) for p in ps))


CASES: dict[str, Case] = {
    "uniform": Case((2.0, 5.0), (np.zeros(3), V3 + 1), _np("uniform"),
                    _ks(stats.uniform(2.0, 3.0))),
    "normal": Case((1.0, 2.0), (V3, V3), _np("normal"), _ks(stats.norm(1.0, 2.0))),
    "standard_normal": Case((), (), lambda g, ps, size: g.standard_normal(size=size),
                            _ks(stats.norm())),
    "lognormal": Case((0.5, 0.7), (V3, V3), _np("lognormal"),
                      _ks(stats.lognorm(s=0.7, scale=np.exp(0.5)))),
    "exponential": Case((2.0,), (V3,), _np("exponential"), _ks(stats.expon(scale=2.0))),
    "gamma": Case((2.5, 1.5), (V3, V3), _np("gamma"), _ks(stats.gamma(2.5, scale=1.5)),
                  lambda a, scale, **kw: tr.gamma(a, scale=scale, **kw)),
    "beta": Case((2.0, 3.0), (V3, V3), _np("beta"), _ks(stats.beta(2.0, 3.0))),
    "chisquare": Case((4.0,), (V3,), _np("chisquare"), _ks(stats.chi2(4.0))),
    "standard_t": Case((5.0,), (V3,), _np("standard_t"), _ks(stats.t(5.0))),
    "t": Case((5.0, 1.0, 2.0), (V3, V3, V3), _sp("t"), _ks(stats.t(5.0, 1.0, 2.0))),
    "cauchy": Case((1.0, 2.0), (V3, V3), _sp("cauchy"), _ks(stats.cauchy(1.0, 2.0))),
    "halfcauchy": Case((1.0, 2.0), (V3, V3), _sp("halfcauchy"),
                       _ks(stats.halfcauchy(1.0, 2.0))),
    "laplace": Case((1.0, 2.0), (V3, V3), _np("laplace"), _ks(stats.laplace(1.0, 2.0))),
    "logistic": Case((1.0, 2.0), (V3, V3), _np("logistic"), _ks(stats.logistic(1.0, 2.0))),
    "gumbel": Case((1.0, 2.0), (V3, V3), _sp("gumbel_r"), _ks(stats.gumbel_r(1.0, 2.0))),
    "pareto": Case((3.0, 2.0), (V3, V3), lambda g, ps, size: stats.pareto.rvs(
        ps[0], scale=ps[1], size=size, random_state=g), _ks(stats.pareto(3.0, scale=2.0))),
    "weibull": Case((1.5,), (V3,), _np("weibull"), _ks(stats.weibull_min(1.5))),
    "vonmises": Case((0.0, 2.0), (V3, V3), _np("vonmises"), _ks(stats.vonmises(2.0))),
    "halfnormal": Case((1.0, 2.0), (V3, V3), _sp("halfnorm"), _ks(stats.halfnorm(1.0, 2.0))),
    "invgamma": Case((3.0, 2.0), (V3 + 1, V3), lambda g, ps, size: 1.0 / g.gamma(
        ps[0], 1.0 / np.asarray(ps[1]), size=size), _ks(stats.invgamma(3.0, scale=2.0))),
    "gengamma": Case((3.0, 2.0, 1.5), (V3 + 1, V3, V3), lambda g, ps, size: stats.gengamma.rvs(
        np.true_divide(ps[0], ps[1]), ps[1], scale=ps[2], size=size, random_state=g),
        _ks(stats.gengamma(1.5, 2.0, scale=1.5))),
    "truncexpon": Case((2.0, 1.0, 0.5), (V3, V3, V3), _sp("truncexpon"),
                       _ks(stats.truncexpon(2.0, 1.0, 0.5))),
    "triangular": Case((0.0, 1.0, 3.0), (V3 - 1, V3, V3 + 1), _np("triangular"),
                       _ks(stats.triang(1.0 / 3.0, loc=0.0, scale=3.0))),
    "wald": Case((1.5, 2.0), (V3, V3), _np("wald"), _ks(stats.invgauss(0.75, scale=2.0))),
    "rayleigh": Case((2.0,), (V3,), lambda g, ps, size: np.sqrt(g.chisquare(
        2, size=_shape_of(ps, size))) * ps[0], _ks(stats.rayleigh(scale=2.0))),
    "bernoulli": Case((0.3,), (V3 / 3,), _sp("bernoulli"),
                      _chi2(stats.bernoulli(0.3).pmf, np.arange(2))),
    "binomial": Case((10, 0.3), (np.array([3, 5, 7]), V3 / 3), _np("binomial"),
                     _chi2(stats.binom(10, 0.3).pmf, np.arange(11))),
    "betabinom": Case((10, 2.0, 3.0), (np.array([3, 5, 7]), V3, V3), _sp("betabinom"),
                      _chi2(stats.betabinom(10, 2.0, 3.0).pmf, np.arange(11))),
    "poisson": Case((3.0,), (V3,), _np("poisson"),
                    _chi2(stats.poisson(3.0).pmf, np.arange(15))),
    "geometric": Case((0.3,), (V3 / 3,), _np("geometric"),
                      _chi2(stats.geom(0.3).pmf, np.arange(1, 30))),
    "negative_binomial": Case((5, 0.4), (np.array([3, 5, 7]), V3 / 3), _sp("nbinom"),
                              _chi2(stats.nbinom(5, 0.4).pmf, np.arange(40))),
    "hypergeometric": Case((7, 5, 6), (np.array([3, 5, 7]), np.array([4, 4, 4]), 3),
                           _np("hypergeometric"),
                           _chi2(stats.hypergeom(12, 7, 6).pmf, np.arange(7))),
    "categorical": Case((P3,), (np.array([P3, P3[::-1]]),), _categorical_ref,
                        _chi2(lambda k: P3[k], np.arange(3))),
    "multinomial": Case((10, P3), (np.array([3, 10]), np.array([P3, P3[::-1]])),
                        _np("multinomial"),
                        lambda x: _chi2(stats.binom(10, 0.2).pmf, np.arange(11))(x[:, 0])),
    "dirichlet": Case((np.array([2.0, 3.0, 4.0]),), (np.array([V3, V3 + 1]),),
                      _dirichlet_ref,
                      lambda x: stats.kstest(x[:, 0], stats.beta(2.0, 7.0).cdf).pvalue),
    "multivariate_normal": Case((np.array([1.0, 2.0]), COV),
                                (np.array([[1.0, 2.0], [0.0, -1.0]]), COV),
                                _mvnormal_ref,
                                lambda x: stats.kstest(x.sum(axis=1),
                                                       stats.norm(3.0, 2.0).cdf).pvalue),
    "integers": Case((2, 7), (np.array([0, 2, 4]), np.array([5, 6, 9])), _np("integers"),
                     _chi2(stats.randint(2, 7).pmf, np.arange(2, 7))),
}


def test_every_distribution_has_a_case() -> None:
    assert set(CASES) == set(tr.DISTRIBUTIONS)


def _call(name: str) -> Any:
    return CASES[name].call or getattr(tr, name)


def _draw(name: str, params: tuple[Any, ...], size: Any, seed: int = SEED) -> np.ndarray:
    x = _call(name)(*params, size=size, rng=tr.shared_rng(seed))
    return theon.function([], x)()


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("which,size", [("scalar", None), ("scalar", (4, 3)),
                                        ("vector", None), ("vector", (2, 3)),
                                        ("vector", (4, 2, 3))])
def test_draw_equals_numpy(name: str, which: str, size: Any) -> None:
    case = CASES[name]
    params = case.scalar if which == "scalar" else case.vector
    if name in ("categorical", "multinomial", "dirichlet", "multivariate_normal") \
            and which == "vector" and size is not None:
        size = size[:-1] + (2,)  # the batch of two parameter rows
    got = _draw(name, params, size)
    want = np.asarray(case.ref(np.random.default_rng(SEED), params, size))
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want.astype(got.dtype))


@pytest.mark.parametrize("name", sorted(CASES))
def test_inferred_shape_equals_draw_shape(name: str) -> None:
    case = CASES[name]
    for params, size in [(case.vector, None), (case.scalar, (2, 3))]:
        ins = [tt.as_tensor_variable(np.asarray(p)).type() for p in params]
        x = _call(name)(*ins, size=size, rng=tr.shared_rng(SEED))
        vals = [np.asarray(p) for p in params]
        f = theon.function(ins, x.shape, on_unused_input="ignore")
        assert not any(isinstance(n.op, RandomVariable) for n in f.maker.fgraph.toposort())
        drawn = theon.function(ins, x)(*vals)
        assert tuple(f(*vals)) == drawn.shape


@pytest.mark.parametrize("name", sorted(CASES))
def test_goodness_of_fit(name: str) -> None:
    case = CASES[name]
    x = _draw(name, case.scalar, (N,))
    assert case.check(x) > 1e-3


def test_goodness_of_fit_detects_a_wrong_distribution() -> None:
    # the checks can fail: normal draws are not uniform, and poisson(4) is not poisson(3)
    assert CASES["uniform"].check(_draw("normal", (3.5, 0.5), (N,))) < 1e-3
    assert CASES["poisson"].check(_draw("poisson", (4.0,), (N,))) < 1e-3


@pytest.mark.parametrize("name", sorted(CASES))
def test_reference_vm_equals_default_linker(name: str) -> None:
    case = CASES[name]
    outs = []
    for mode in (theon.Mode(linker="vm"), None):
        x = _call(name)(*case.vector, size=None, rng=tr.shared_rng(SEED))
        outs.append(theon.function([], x, mode=mode)())
    np.testing.assert_array_equal(outs[0], outs[1])


# -- the coin-flip path of binomial (n = 1) ------------------------------------------------
COIN_PS = [0.5, 0.3, 0.7, 1e-300, 1 - 1e-16, 1.0, 0.9999999, 1e-9, 0.123456789,
           0.5000000001, 0.4999999999, 0.0, *np.random.default_rng(0).random(40)]


@pytest.mark.parametrize("bitgen", [np.random.PCG64, np.random.MT19937, np.random.Philox,
                                    np.random.SFC64])
def test_coin_flip_binomial_equals_numpy_draw_for_draw(bitgen: Any) -> None:
    from theon.tensor.random.draws import binomial as _binomial

    for seed in range(3):
        for p in COIN_PS:
            ref = np.random.Generator(bitgen(seed))
            gen = copy.deepcopy(ref)
            want = ref.binomial(1, p, size=(37, 5))
            got = _binomial(gen, np.array(1), np.array(p), (37, 5))
            np.testing.assert_array_equal(got, want)
            assert got.dtype == want.dtype
            assert gen.random() == ref.random()  # the generators advanced alike


def test_coin_flip_binomial_rewinds_when_a_draw_needs_a_second_uniform(monkeypatch: Any
                                                                       ) -> None:
    """NumPy draws a second uniform when ``U - qn > r qn / q``; rounding makes that rare,
    so a smaller ``qn`` forces it here: the result must still be NumPy's."""
    import theon.tensor.random.draws as rvop

    exp = math.exp
    monkeypatch.setattr(rvop.math, "exp", lambda x: 0.9 * exp(x))
    ref = np.random.default_rng(1)
    gen = copy.deepcopy(ref)
    want = ref.binomial(1, 0.5, size=1000)
    np.testing.assert_array_equal(rvop.binomial(gen, 1, 0.5, (1000,)), want)
    assert gen.random() == ref.random()


def test_stream_dropout_mask_equals_numpy_binomial() -> None:
    from theon.tensor.random.utils import RandomStream

    srng = RandomStream(42)
    m = srng.binomial(n=1, p=0.5, size=(128, 256))
    (rng,) = [v for v in theon.graph.traversal.graph_inputs([m])
              if not isinstance(v, theon.graph.basic.Constant)]
    ref = copy.deepcopy(rng.get_value())
    f = theon.function([], m)
    np.testing.assert_array_equal(f(), ref.binomial(1, 0.5, size=(128, 256)))
    np.testing.assert_array_equal(f(), ref.binomial(1, 0.5, size=(128, 256)))
