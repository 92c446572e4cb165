"""Random numbers: symbolic draws from ``numpy.random.Generator``.

Each distribution is a :class:`~theon.tensor.random.op.RandomVariable` subclass with
PyTensor's name and parameters (``NormalRV``, instance ``normal``); a draw equals
PyTensor's on the same generator state (NumPy's ``Generator`` method, or SciPy's
``rvs`` where PyTensor uses it).  Three forms, backed by the same Ops:

**Explicit (PyTensor 3) form.**  A draw takes a generator variable; with
``return_next_rng=True`` it also returns the generator after it, which the caller
stores back with an update.  A generator variable's methods do the same:

>>> import numpy as np
>>> import theon
>>> import theon.tensor as T
>>> import theon.tensor.random as tr
>>> rng = tr.shared_rng(7)                 # or theon.shared(np.random.default_rng(7))
>>> next_rng, x = tr.normal(0.0, 1.0, size=(2,), rng=rng, return_next_rng=True)
>>> f = theon.function([], x, updates={rng: next_rng})
>>> bool((f() != f()).all())
True
>>> r = tr.rng("r")                        # a generator as a function input
>>> r_next, y = r.uniform(size=(2,))

**Stream (Theano) form.**  A stream makes a generator per draw, seeded from its own
seed, whose update is its *default update*: no updates to list, and ``seed(s)``
restarts the whole sequence (``theon.tensor.random.utils.RandomStream`` takes the
parameters first, ``theon.tensor.shared_randomstreams.RandomStreams`` and
``theon.sandbox.rng_mrg.MRG_RandomStreams`` take ``size`` first, as Theano's did):

>>> from theon.tensor.shared_randomstreams import RandomStreams
>>> srng = RandomStreams(seed=234)
>>> v = T.matrix("v")
>>> corrupted = srng.binomial(size=v.shape, n=1, p=0.7, dtype=theon.config.floatX) * v
>>> g = theon.function([v], corrupted)
>>> ones = np.ones((3, 4), dtype=theon.config.floatX)
>>> first = g(ones)
>>> bool((g(ones) != first).any())
True
>>> srng.seed(234)
>>> bool((g(ones) == first).all())
True

Without ``rng``, a draw reads a new shared generator seeded by the operating system,
which nothing updates (PyTensor's behaviour): the function repeats its numbers.
Importing this package registers the shared constructor for ``numpy.random.Generator``
values.
"""

from theon.compile.pipeline import register_graph_check as _register_graph_check
from theon.link.registry import register_linker_backend as _register_linker_backend
from theon.rewriting.db import register_rewrite_module as _register_rewrite_module
from theon.tensor.random import basic, checks, op, sampling, shapes, type, utils, variable
from theon.tensor.random.basic import (
    DISTRIBUTIONS,
    BernoulliRV,
    BetaBinomialRV,
    BetaRV,
    BinomialRV,
    CategoricalRV,
    CauchyRV,
    DirichletRV,
    ExponentialRV,
    GammaRV,
    GenGammaRV,
    GeometricRV,
    GumbelRV,
    HalfCauchyRV,
    HalfNormalRV,
    HyperGeometricRV,
    IntegersRV,
    InvGammaRV,
    LaplaceRV,
    LogisticRV,
    LogNormalRV,
    MultinomialRV,
    MvNormalRV,
    NegBinomialRV,
    NormalRV,
    ParetoRV,
    PoissonRV,
    ScipyRandomVariable,
    StudentTRV,
    TriangularRV,
    TruncExponentialRV,
    UniformRV,
    VonMisesRV,
    WaldRV,
    WeibullRV,
    bernoulli,
    beta,
    betabinom,
    binomial,
    categorical,
    cauchy,
    chisquare,
    dirichlet,
    exponential,
    gamma,
    gengamma,
    geometric,
    gumbel,
    halfcauchy,
    halfnormal,
    hypergeometric,
    integers,
    invgamma,
    laplace,
    logistic,
    lognormal,
    multinomial,
    multivariate_normal,
    nbinom,
    negative_binomial,
    normal,
    pareto,
    poisson,
    rayleigh,
    standard_normal,
    standard_t,
    t,
    triangular,
    truncexpon,
    uniform,
    vonmises,
    wald,
    weibull,
)
from theon.tensor.random.op import RandomVariable, RNGConsumerOp
from theon.tensor.random.sampling import ChoiceRV, PermutationRV, choice, permutation, shuffle
from theon.tensor.random.type import RandomGeneratorType, RandomType, random_generator_type
from theon.tensor.random.utils import RandomStream
from theon.tensor.random.variable import (
    RandomGeneratorSharedVariable,
    RandomGeneratorVariable,
    rng,
    shared_rng,
)

__all__ = [
    "DISTRIBUTIONS", "BernoulliRV", "BetaBinomialRV", "BetaRV", "BinomialRV", "CategoricalRV",
    "CauchyRV", "ChoiceRV", "DirichletRV", "ExponentialRV", "GammaRV", "GenGammaRV",
    "GeometricRV", "GumbelRV", "HalfCauchyRV", "HalfNormalRV", "HyperGeometricRV",
    "IntegersRV", "InvGammaRV", "LaplaceRV", "LogNormalRV", "LogisticRV", "MultinomialRV",
    "MvNormalRV", "NegBinomialRV", "NormalRV", "ParetoRV", "PermutationRV", "PoissonRV",
    "RNGConsumerOp", "RandomGeneratorSharedVariable", "RandomGeneratorType",
    "RandomGeneratorVariable", "RandomStream", "RandomType", "RandomVariable",
    "ScipyRandomVariable", "StudentTRV", "TriangularRV", "TruncExponentialRV", "UniformRV",
    "VonMisesRV", "WaldRV", "WeibullRV",
    "basic", "bernoulli", "beta", "betabinom", "binomial", "categorical", "cauchy",
    "checks", "chisquare", "choice", "dirichlet", "exponential", "gamma", "gengamma",
    "geometric", "gumbel", "halfcauchy", "halfnormal", "hypergeometric", "integers",
    "invgamma", "laplace", "logistic", "lognormal", "multinomial", "multivariate_normal",
    "nbinom", "negative_binomial", "normal", "op", "pareto", "permutation", "poisson",
    "random_generator_type", "rayleigh", "rng", "sampling", "shapes", "shared_rng",
    "shuffle", "standard_normal", "standard_t", "t", "triangular", "truncexpon", "type",
    "uniform", "utils", "variable", "vonmises", "wald", "weibull",
]

_register_rewrite_module("theon.tensor.random.rewriting")
_register_graph_check(checks.warn_reused_rng)


# the JAX rules of these Ops (mode="JAX"), imported by the JAX linker before its first link
_register_linker_backend("jax", "theon.backends.jax.random")
