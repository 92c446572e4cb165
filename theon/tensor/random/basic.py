"""The distributions: one :class:`~theon.tensor.random.op.RandomVariable` subclass each,
with PyTensor's names and parameterizations, and one instance to call.

``normal(loc, scale, size=None, rng=None, dtype=None, name=None,
return_next_rng=False)`` gives a draw (``(next_rng, draw)`` with
``return_next_rng=True``).  Each draw equals, on the same generator state, the NumPy
computation its class names: the ``numpy.random.Generator`` method of the same name
and parameters, or ``scipy.stats``' ``rvs`` with the generator as ``random_state``
where PyTensor draws with SciPy (``pareto``, ``gumbel``, ``cauchy``, ``halfcauchy``,
``truncexpon``, ``gengamma``), or the NumPy computation PyTensor makes (``invgamma``:
``1 / gamma(shape, 1 / scale)``); so a program gets PyTensor's numbers from the same
seed.  Float draws are computed in float64, as NumPy does, and cast to the Op's
``dtype`` (``config.floatX`` unless ``dtype`` says).

Without ``rng`` a draw reads a new shared generator seeded by the operating system,
which nothing updates.  For reproducible draws pass ``rng=shared_rng(seed)``, and for
fresh ones at each call store the next generator back:

>>> import theon
>>> rng = shared_rng(0)
>>> next_rng, x = normal(0.0, 1.0, size=(3,), rng=rng, return_next_rng=True)
>>> f = theon.function([], x, updates={rng: next_rng})
>>> a, b = f(), f()
>>> a.shape, bool((a != b).all())
((3,), True)
>>> bool((a == np.random.default_rng(0).normal(0.0, 1.0, size=3)).all())
True
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from theon.tensor.random import draws
from theon.tensor.random.op import REQUIRED, RandomVariable
from theon.tensor.random.sampling import choice, permutation, shuffle
from theon.tensor.random.variable import shared_rng

__all__ = [
    "DISTRIBUTIONS", "BernoulliRV", "BetaBinomialRV", "BetaRV", "BinomialRV", "CategoricalRV",
    "CauchyRV", "DirichletRV", "ExponentialRV", "GammaRV", "GenGammaRV", "GeometricRV",
    "GumbelRV", "HalfCauchyRV", "HalfNormalRV", "HyperGeometricRV", "IntegersRV",
    "InvGammaRV", "LaplaceRV", "LogNormalRV", "LogisticRV", "MultinomialRV", "MvNormalRV",
    "NegBinomialRV", "NormalRV", "ParetoRV", "PoissonRV", "ScipyRandomVariable",
    "StudentTRV", "TriangularRV", "TruncExponentialRV", "UniformRV", "VonMisesRV",
    "WaldRV", "WeibullRV",
    "bernoulli", "beta", "betabinom", "binomial", "categorical", "cauchy", "chisquare",
    "choice", "dirichlet", "exponential", "gamma", "gengamma", "geometric", "gumbel",
    "halfcauchy", "halfnormal", "hypergeometric", "integers", "invgamma", "laplace",
    "logistic", "lognormal", "multinomial", "multivariate_normal", "nbinom",
    "negative_binomial", "normal", "pareto", "permutation", "poisson", "rayleigh",
    "shared_rng", "shuffle", "standard_normal", "standard_t", "t", "triangular",
    "truncexpon", "uniform", "vonmises", "wald", "weibull",
]


def _p(*names: str, **defaults: Any) -> tuple[tuple[str, Any], ...]:
    """The ``_params`` of a distribution: names in order, with their defaults."""
    return tuple((n, defaults.get(n, REQUIRED)) for n in names)


def _stats() -> Any:
    import scipy.stats  # imported when a SciPy-drawn distribution first draws

    return scipy.stats


class ScipyRandomVariable(RandomVariable):
    """A distribution drawn by ``rng_fn_scipy(rng, *params, size)`` (SciPy's ``rvs``
    with ``random_state=rng``); without ``size`` the draw is broadcast to the
    parameters' shape, which SciPy may drop."""

    @classmethod
    def rng_fn_scipy(cls, *args: Any, **kwargs: Any) -> Any:
        """``rng_fn_scipy(rng, *params, size)``: the draw (subclasses define it)."""
        raise NotImplementedError(f"{cls.__name__} must define rng_fn_scipy")

    @classmethod
    def rng_fn(cls, *args: Any, **kwargs: Any) -> Any:
        size = args[-1]
        res = np.asarray(cls.rng_fn_scipy(*args, **kwargs))
        if size is None:
            want = np.broadcast_shapes(*(np.shape(a) for a in args[1:-1]))
            if res.shape != want:
                return np.broadcast_to(res, want).copy()
        return res


def _shape(params: tuple[Any, ...], size: tuple[int, ...] | None) -> tuple[int, ...]:
    """``size``, or the broadcast shape of scalar-core parameters."""
    return draws.batch_shape(params, [0] * len(params), size)


# -- continuous ------------------------------------------------------------------------
class UniformRV(RandomVariable):
    """``uniform(low=0.0, high=1.0)``: ``Generator.uniform``."""

    name = "uniform"
    signature = "(),()->()"
    dtype = "floatX"
    _print_name = ("Uniform", "\\operatorname{Uniform}")
    _params = _p("low", "high", low=0.0, high=1.0)


class TriangularRV(RandomVariable):
    """``triangular(left, mode, right)``: ``Generator.triangular``."""

    name = "triangular"
    signature = "(),(),()->()"
    dtype = "floatX"
    _print_name = ("Triangular", "\\operatorname{Triangular}")
    _params = _p("left", "mode", "right")


class BetaRV(RandomVariable):
    """``beta(alpha, beta)``: ``Generator.beta``."""

    name = "beta"
    signature = "(),()->()"
    dtype = "floatX"
    _print_name = ("Beta", "\\operatorname{Beta}")
    _params = _p("alpha", "beta")


class NormalRV(RandomVariable):
    """``normal(loc=0.0, scale=1.0)``: ``Generator.normal``."""

    name = "normal"
    signature = "(),()->()"
    dtype = "floatX"
    _print_name = ("Normal", "\\operatorname{Normal}")
    _params = _p("loc", "scale", loc=0.0, scale=1.0)


class HalfNormalRV(ScipyRandomVariable):
    """``halfnormal(loc=0.0, scale=1.0)``: ``loc + |normal(0, scale)|`` (SciPy's
    ``halfnorm.rvs(loc, scale)``, draw for draw)."""

    name = "halfnormal"
    signature = "(),()->()"
    dtype = "floatX"
    _print_name = ("HalfNormal", "\\operatorname{HalfNormal}")
    _params = _p("loc", "scale", loc=0.0, scale=1.0)

    @classmethod
    def rng_fn_scipy(cls, rng: Any, loc: Any, scale: Any, size: Any) -> Any:
        z = np.abs(rng.standard_normal(_shape((loc, scale), size)))
        return z * scale + loc


class LogNormalRV(RandomVariable):
    """``lognormal(mean=0.0, sigma=1.0)``: ``Generator.lognormal``."""

    name = "lognormal"
    signature = "(),()->()"
    dtype = "floatX"
    _print_name = ("LogNormal", "\\operatorname{LogNormal}")
    _params = _p("mean", "sigma", mean=0.0, sigma=1.0)


class GammaRV(RandomVariable):
    """``_gamma(shape, scale)``: ``Generator.gamma`` (see :func:`gamma` for the rate form)."""

    name = "gamma"
    signature = "(),()->()"
    dtype = "floatX"
    _print_name = ("Gamma", "\\operatorname{Gamma}")
    _params = _p("shape", "scale")


class ParetoRV(ScipyRandomVariable):
    """``pareto(b, scale=1.0)``: SciPy's ``pareto.rvs(b, scale=scale)``, support
    ``x >= scale`` (NumPy's ``Generator.pareto`` is the Lomax form: ``scale * (1 +
    pareto(b))`` in distribution)."""

    name = "pareto"
    signature = "(),()->()"
    dtype = "floatX"
    _print_name = ("Pareto", "\\operatorname{Pareto}")
    _params = _p("b", "scale", scale=1.0)

    @classmethod
    def rng_fn_scipy(cls, rng: Any, b: Any, scale: Any, size: Any) -> Any:
        return _stats().pareto.rvs(b, scale=scale, size=size, random_state=rng)


class GumbelRV(ScipyRandomVariable):
    """``gumbel(loc=0.0, scale=1.0)``: SciPy's ``gumbel_r.rvs(loc, scale)``."""

    name = "gumbel"
    signature = "(),()->()"
    dtype = "floatX"
    _print_name = ("Gumbel", "\\operatorname{Gumbel}")
    _params = _p("loc", "scale", loc=0.0, scale=1.0)

    @classmethod
    def rng_fn_scipy(cls, rng: Any, loc: Any, scale: Any, size: Any) -> Any:
        return _stats().gumbel_r.rvs(loc, scale, size=size, random_state=rng)


class ExponentialRV(RandomVariable):
    """``exponential(scale=1.0)``: ``Generator.exponential``."""

    name = "exponential"
    signature = "()->()"
    dtype = "floatX"
    _print_name = ("Exponential", "\\operatorname{Exponential}")
    _params = _p("scale", scale=1.0)


class WeibullRV(RandomVariable):
    """``weibull(shape)``: ``Generator.weibull`` (scale 1)."""

    name = "weibull"
    signature = "()->()"
    dtype = "floatX"
    _print_name = ("Weibull", "\\operatorname{Weibull}")
    _params = _p("shape")


class LogisticRV(RandomVariable):
    """``logistic(loc=0.0, scale=1.0)``: ``Generator.logistic``."""

    name = "logistic"
    signature = "(),()->()"
    dtype = "floatX"
    _print_name = ("Logistic", "\\operatorname{Logistic}")
    _params = _p("loc", "scale", loc=0.0, scale=1.0)


class VonMisesRV(RandomVariable):
    """``vonmises(mu, kappa)``: ``Generator.vonmises``."""

    name = "vonmises"
    signature = "(),()->()"
    dtype = "floatX"
    _print_name = ("VonMises", "\\operatorname{VonMises}")
    _params = _p("mu", "kappa")


class MvNormalRV(RandomVariable):
    """``multivariate_normal(mean, cov, method="cholesky")``: ``mean + A z`` with ``z``
    standard normal draws of shape ``batch + (n,)`` (``Generator.normal``) and ``A`` the
    Cholesky factor of ``cov`` (``method="svd"``: ``U sqrt(s)``; ``"eigh"``:
    ``V sqrt(w)``)."""

    name = "multivariate_normal"
    signature = "(n),(n,n)->(n)"
    dtype = "floatX"
    _print_name = ("MultivariateNormal", "\\operatorname{MultivariateNormal}")
    _params = _p("mean", "cov")
    __props__ = ("name", "signature", "dtype", "inplace", "method")

    def __init__(self, *args: Any, method: str = "cholesky", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if method not in ("cholesky", "svd", "eigh"):
            raise ValueError(f"multivariate_normal: method must be 'cholesky', 'svd' or "
                             f"'eigh', got {method!r}")
        self.method = method

    def __call__(self, *args: Any, method: str | None = None, **kwargs: Any) -> Any:
        if method is not None and method != self.method:
            return self.clone(method=method)(*args, **kwargs)
        return super().__call__(*args, **kwargs)

    def rng_fn(self, rng: Any, mean: Any, cov: Any, size: Any) -> Any:
        mean, cov = np.asarray(mean, dtype=np.float64), np.asarray(cov, dtype=np.float64)
        if size is None:
            size = np.broadcast_shapes(mean.shape[:-1], cov.shape[:-2])
        if self.method == "cholesky":
            a = np.linalg.cholesky(cov)
        elif self.method == "svd":
            u, s, _ = np.linalg.svd(cov)
            a = u * np.sqrt(s)[..., None, :]
        else:
            w, v = np.linalg.eigh(cov)
            a = v * np.sqrt(w)[..., None, :]
        z = rng.normal(size=(*size, mean.shape[-1]))
        return np.einsum("...ij,...j->...i", a, z) + mean


class DirichletRV(RandomVariable):
    """``dirichlet(alphas)``: ``Generator.dirichlet``, once per batch element in C order."""

    name = "dirichlet"
    signature = "(a)->(a)"
    dtype = "floatX"
    _print_name = ("Dirichlet", "\\operatorname{Dirichlet}")
    _params = _p("alphas")

    @classmethod
    def rng_fn(cls, rng: Any, alphas: Any, size: Any) -> Any:
        if np.ndim(alphas) > 1:
            return draws.looped(rng.dirichlet, [alphas], [1], size, np.float64)
        return rng.dirichlet(alphas, size=size)


class CauchyRV(ScipyRandomVariable):
    """``cauchy(loc=0.0, scale=1.0)``: SciPy's ``cauchy.rvs(loc, scale)``."""

    name = "cauchy"
    signature = "(),()->()"
    dtype = "floatX"
    _print_name = ("Cauchy", "\\operatorname{Cauchy}")
    _params = _p("loc", "scale", loc=0.0, scale=1.0)

    @classmethod
    def rng_fn_scipy(cls, rng: Any, loc: Any, scale: Any, size: Any) -> Any:
        return _stats().cauchy.rvs(loc, scale, size=size, random_state=rng)


class HalfCauchyRV(ScipyRandomVariable):
    """``halfcauchy(loc=0.0, scale=1.0)``: SciPy's ``halfcauchy.rvs(loc, scale)``."""

    name = "halfcauchy"
    signature = "(),()->()"
    dtype = "floatX"
    _print_name = ("HalfCauchy", "\\operatorname{HalfCauchy}")
    _params = _p("loc", "scale", loc=0.0, scale=1.0)

    @classmethod
    def rng_fn_scipy(cls, rng: Any, loc: Any, scale: Any, size: Any) -> Any:
        return _stats().halfcauchy.rvs(loc, scale, size=size, random_state=rng)


class InvGammaRV(RandomVariable):
    """``invgamma(shape, scale)``: ``1 / Generator.gamma(shape, 1 / scale)``."""

    name = "invgamma"
    signature = "(),()->()"
    dtype = "floatX"
    _print_name = ("InverseGamma", "\\operatorname{InverseGamma}")
    _params = _p("shape", "scale")

    @classmethod
    def rng_fn(cls, rng: Any, shape: Any, scale: Any, size: Any) -> Any:
        return 1.0 / rng.gamma(shape, 1.0 / np.asarray(scale, dtype=np.float64), size=size)


class WaldRV(RandomVariable):
    """``wald(mean=1.0, scale=1.0)``: ``Generator.wald``."""

    name = "wald"
    signature = "(),()->()"
    dtype = "floatX"
    _print_name = ("Wald", "\\operatorname{Wald}")
    _params = _p("mean", "scale", mean=1.0, scale=1.0)


class TruncExponentialRV(ScipyRandomVariable):
    """``truncexpon(b, loc=0.0, scale=1.0)``: SciPy's ``truncexpon.rvs(b, loc, scale)``."""

    name = "truncexpon"
    signature = "(),(),()->()"
    dtype = "floatX"
    _print_name = ("TruncatedExponential", "\\operatorname{TruncatedExponential}")
    _params = _p("b", "loc", "scale", loc=0.0, scale=1.0)

    @classmethod
    def rng_fn_scipy(cls, rng: Any, b: Any, loc: Any, scale: Any, size: Any) -> Any:
        return _stats().truncexpon.rvs(b, loc, scale, size=size, random_state=rng)


class StudentTRV(ScipyRandomVariable):
    """``t(df, loc=0.0, scale=1.0)``: ``standard_t(df) * scale + loc`` (SciPy's
    ``t.rvs(df, loc, scale)``, draw for draw)."""

    name = "t"
    signature = "(),(),()->()"
    dtype = "floatX"
    _print_name = ("StudentT", "\\operatorname{StudentT}")
    _params = _p("df", "loc", "scale", loc=0.0, scale=1.0)

    @classmethod
    def rng_fn_scipy(cls, rng: Any, df: Any, loc: Any, scale: Any, size: Any) -> Any:
        return rng.standard_t(df, size=_shape((df, loc, scale), size)) * scale + loc


class GenGammaRV(ScipyRandomVariable):
    """``gengamma(alpha=1.0, p=1.0, lambd=1.0)``: SciPy's ``gengamma.rvs(alpha / p, p,
    scale=lambd)``."""

    name = "gengamma"
    signature = "(),(),()->()"
    dtype = "floatX"
    _print_name = ("GeneralizedGamma", "\\operatorname{GeneralizedGamma}")
    _params = _p("alpha", "p", "lambd", alpha=1.0, p=1.0, lambd=1.0)

    @classmethod
    def rng_fn_scipy(cls, rng: Any, alpha: Any, p: Any, lambd: Any, size: Any) -> Any:
        return _stats().gengamma.rvs(np.true_divide(alpha, p), p, scale=lambd, size=size,
                                     random_state=rng)


class LaplaceRV(RandomVariable):
    """``laplace(loc=0.0, scale=1.0)``: ``Generator.laplace``."""

    name = "laplace"
    signature = "(),()->()"
    dtype = "floatX"
    _print_name = ("Laplace", "\\operatorname{Laplace}")
    _params = _p("loc", "scale", loc=0.0, scale=1.0)


# -- discrete --------------------------------------------------------------------------
class PoissonRV(RandomVariable):
    """``poisson(lam=1.0)``: ``Generator.poisson``."""

    name = "poisson"
    signature = "()->()"
    dtype = "int64"
    _print_name = ("Poisson", "\\operatorname{Poisson}")
    _params = _p("lam", lam=1.0)


class GeometricRV(RandomVariable):
    """``geometric(p)``: ``Generator.geometric`` (trials to the first success, >= 1)."""

    name = "geometric"
    signature = "()->()"
    dtype = "int64"
    _print_name = ("Geometric", "\\operatorname{Geometric}")
    _params = _p("p")


class HyperGeometricRV(RandomVariable):
    """``hypergeometric(ngood, nbad, nsample)``: ``Generator.hypergeometric``."""

    name = "hypergeometric"
    signature = "(),(),()->()"
    dtype = "int64"
    _print_name = ("HyperGeometric", "\\operatorname{HyperGeometric}")
    _params = _p("ngood", "nbad", "nsample")


class BernoulliRV(ScipyRandomVariable):
    """``bernoulli(p)``: ``Generator.binomial(1, p)`` (SciPy's ``bernoulli.rvs``, draw
    for draw; a scalar ``p`` takes a faster path with the same numbers)."""

    name = "bernoulli"
    signature = "()->()"
    dtype = "int64"
    _print_name = ("Bernoulli", "\\operatorname{Bernoulli}")
    _params = _p("p")

    @classmethod
    def rng_fn_scipy(cls, rng: Any, p: Any, size: Any) -> Any:
        return draws.binomial(rng, 1, p, size)


class BinomialRV(RandomVariable):
    """``binomial(n, p)``: ``Generator.binomial`` (with a faster path for ``n = 1`` and a
    scalar ``p``, giving the same numbers)."""

    name = "binomial"
    signature = "(),()->()"
    dtype = "int64"
    _print_name = ("Binomial", "\\operatorname{Binomial}")
    _params = _p("n", "p")

    @classmethod
    def rng_fn(cls, rng: Any, n: Any, p: Any, size: Any) -> Any:
        return draws.binomial(rng, n, p, size)


class NegBinomialRV(ScipyRandomVariable):
    """``negative_binomial(n, p)``: ``Generator.negative_binomial`` (SciPy's
    ``nbinom.rvs``, draw for draw)."""

    name = "negative_binomial"
    signature = "(),()->()"
    dtype = "int64"
    _print_name = ("NegativeBinomial", "\\operatorname{NegativeBinomial}")
    _params = _p("n", "p")

    @classmethod
    def rng_fn_scipy(cls, rng: Any, n: Any, p: Any, size: Any) -> Any:
        return rng.negative_binomial(n, p, size=size)


class BetaBinomialRV(ScipyRandomVariable):
    """``betabinom(n, a, b)``: ``binomial(n, beta(a, b))`` (SciPy's ``betabinom.rvs``,
    draw for draw)."""

    name = "beta_binomial"
    signature = "(),(),()->()"
    dtype = "int64"
    _print_name = ("BetaBinomial", "\\operatorname{BetaBinomial}")
    _params = _p("n", "a", "b")

    @classmethod
    def rng_fn_scipy(cls, rng: Any, n: Any, a: Any, b: Any, size: Any) -> Any:
        shape = _shape((n, a, b), size)
        return rng.binomial(n, rng.beta(a, b, size=shape), size=shape)


class MultinomialRV(RandomVariable):
    """``multinomial(n, p)``: ``Generator.multinomial`` (batched parameters drawn
    element by element in C order)."""

    name = "multinomial"
    signature = "(),(p)->(p)"
    dtype = "int64"
    _print_name = ("Multinomial", "\\operatorname{Multinomial}")
    _params = _p("n", "p")

    @classmethod
    def rng_fn(cls, rng: Any, n: Any, p: Any, size: Any) -> Any:
        return rng.multinomial(n, p, size=size)


class CategoricalRV(RandomVariable):
    """``categorical(p)``: one uniform per draw found in the cumulative sum of ``p``
    (for one vector ``p``, ``Generator.choice(len(p), p=p)``, draw for draw)."""

    name = "categorical"
    signature = "(p)->()"
    dtype = "int64"
    _print_name = ("Categorical", "\\operatorname{Categorical}")
    _params = _p("p")

    @classmethod
    def rng_fn(cls, rng: Any, p: Any, size: Any) -> Any:
        return draws.categorical(rng, p, size)


class IntegersRV(RandomVariable):
    """``integers(low, high=None)``: ``Generator.integers(low, high, dtype=dtype)``
    (``high`` excluded; ``integers(n)`` draws from ``[0, n)``)."""

    name = "integers"
    signature = "(),()->()"
    dtype = "int64"
    _print_name = ("integers", "\\operatorname{integers}")
    _params = _p("low", "high", high=None)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        bound = {k: kwargs.pop(k) for k in ("low", "high", "size") if k in kwargs}
        params, size = self._bind(args, {k: v for k, v in bound.items() if k != "size"},
                                  bound.get("size"))
        low, high = params
        if high is None:
            low, high = 0, low
        return super().__call__(low, high, size=size, **kwargs)

    def rng_fn(self, rng: Any, low: Any, high: Any, size: Any) -> Any:
        return rng.integers(low, high, size=size, dtype=self.dtype)


# -- the instances and functions --------------------------------------------------------
uniform = UniformRV()
triangular = TriangularRV()
beta = BetaRV()
normal = NormalRV()
halfnormal = HalfNormalRV()
lognormal = LogNormalRV()
_gamma = GammaRV()
pareto = ParetoRV()
gumbel = GumbelRV()
exponential = ExponentialRV()
weibull = WeibullRV()
logistic = LogisticRV()
vonmises = VonMisesRV()
multivariate_normal = MvNormalRV(method="cholesky")
dirichlet = DirichletRV()
cauchy = CauchyRV()
halfcauchy = HalfCauchyRV()
invgamma = InvGammaRV()
wald = WaldRV()
truncexpon = TruncExponentialRV()
t = StudentTRV()
gengamma = GenGammaRV()
laplace = LaplaceRV()
poisson = PoissonRV()
geometric = GeometricRV()
hypergeometric = HyperGeometricRV()
bernoulli = BernoulliRV()
binomial = BinomialRV()
nbinom = negative_binomial = NegBinomialRV()
betabinom = BetaBinomialRV()
multinomial = MultinomialRV()
categorical = CategoricalRV()
integers = IntegersRV()


def gamma(shape: Any, rate: Any = None, scale: Any = None, **kwargs: Any) -> Any:
    """Draws of the gamma distribution of ``shape`` and ``scale`` (``Generator.gamma``);
    ``rate`` (``1 / scale``) is PyTensor's deprecated spelling.  Without either, the
    scale is 1 (theon's default; PyTensor requires one).

    >>> gamma(2.0, scale=3.0, size=(2,), rng=shared_rng(0)).eval().shape
    (2,)
    """
    if rate is not None and scale is not None:
        raise ValueError("gamma: give rate or scale, not both")
    if rate is not None:
        warnings.warn("gamma: the rate argument is deprecated (it is the second positional "
                      "one); pass scale=1/rate instead", FutureWarning, stacklevel=2)
        scale = 1.0 / rate
    return _gamma(shape, 1.0 if scale is None else scale, **kwargs)


def chisquare(df: Any, size: Any = None, **kwargs: Any) -> Any:
    """Draws of the chi-square distribution with ``df`` degrees of freedom:
    ``gamma(df / 2, scale=2)`` (``Generator.chisquare``'s numbers).

    >>> x = chisquare(4.0, size=(3,), rng=shared_rng(1))
    >>> bool((x.eval() == np.random.default_rng(1).chisquare(4.0, size=3)).all())
    True
    """
    return _gamma(df / 2.0, 2.0, size=size, **kwargs)


def rayleigh(scale: Any = 1.0, *, size: Any = None, **kwargs: Any) -> Any:
    """Draws of the Rayleigh distribution: ``sqrt(chisquare(2)) * scale``.

    >>> rayleigh(2.0, size=(3,), rng=shared_rng(0)).eval().shape
    (3,)
    """
    from theon.tensor.basic import as_tensor_variable
    from theon.tensor.math import sqrt

    s = as_tensor_variable(scale)
    if size is None:
        size = s.shape
    ret_next = kwargs.pop("return_next_rng", False)
    next_rng, x = chisquare(2, size=size, return_next_rng=True, **kwargs)
    out = sqrt(x) * s
    return (next_rng, out) if ret_next else out


def standard_normal(*, size: Any = None, rng: Any = None, dtype: Any = None,
                    return_next_rng: bool = False, name: str | None = None) -> Any:
    """Draws of the standard normal distribution: ``normal(0, 1)``.

    >>> x = standard_normal(size=(2,), rng=shared_rng(3))
    >>> bool((x.eval() == np.random.default_rng(3).standard_normal(2)).all())
    True
    """
    return normal(0.0, 1.0, size=size, rng=rng, dtype=dtype, name=name,
                  return_next_rng=return_next_rng)


def standard_t(df: Any, size: Any = None, **kwargs: Any) -> Any:
    """Draws of Student's t with ``df`` degrees of freedom: ``t(df, 0, 1)``
    (``Generator.standard_t``'s numbers).

    >>> x = standard_t(5.0, size=(2,), rng=shared_rng(3))
    >>> bool((x.eval() == np.random.default_rng(3).standard_t(5.0, size=2)).all())
    True
    """
    return t(df, 0.0, 1.0, size=size, **kwargs)


#: the names of the draws (instances and functions), for random streams and generator
#: variables' methods
DISTRIBUTIONS: tuple[str, ...] = (
    "bernoulli", "beta", "betabinom", "binomial", "categorical", "cauchy", "chisquare",
    "dirichlet", "exponential", "gamma", "gengamma", "geometric", "gumbel", "halfcauchy",
    "halfnormal", "hypergeometric", "integers", "invgamma", "laplace", "logistic",
    "lognormal", "multinomial", "multivariate_normal", "negative_binomial", "normal",
    "pareto", "poisson", "rayleigh", "standard_normal", "standard_t", "t", "triangular",
    "truncexpon", "uniform", "vonmises", "wald", "weibull",
)
