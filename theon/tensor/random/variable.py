"""Generator variables: symbolic ``numpy.random.Generator`` values that draw.

A :class:`RandomGeneratorVariable` has ``numpy.random.Generator``'s methods: each
returns ``(next_rng, draw)``, the generator after the draw and the draw (PyTensor 3's
form).  :func:`rng` makes one as a function input; :func:`shared_rng` (or
``theon.shared(np.random.default_rng(seed))``) a shared one, whose update the caller
stores back:

>>> import numpy as np
>>> import theon
>>> r = shared_rng(np.random.default_rng(153), name="rng")
>>> next_r, x = r.normal(0.0, 1.0, size=(2,))
>>> f = theon.function([], x, updates={r: next_r})
>>> bool((f() == np.random.default_rng(153).normal(size=2)).all())
True
>>> r.set_value(seed=153)  # reseed: the same numbers again
>>> bool((f() == np.random.default_rng(153).normal(size=2)).all())
True

Shared generators are copies (unless ``borrow=True``): the caller's generator is never
advanced by theon.  ``theon.tensor.random.var`` (PyTensor 2's path) is this module.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

import numpy as np

from theon.compile.sharedvalue import SharedVariable, shared_constructor
from theon.graph.basic import Variable

if TYPE_CHECKING:
    from theon.tensor.variable import TensorVariable

__all__ = [
    "RandomGeneratorSharedVariable",
    "RandomGeneratorVariable",
    "generator_constructor",
    "rng",
    "shared_rng",
]


class _Unset:
    """The "not given" marker of ``seed`` (``None`` is a seed: the OS's entropy)."""

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()

#: what a generator's method returns: the generator after the draw, and the draw
RngAndDraw = tuple["RandomGeneratorVariable", "TensorVariable"]


class RandomGeneratorVariable(Variable):
    """A symbolic generator; each distribution of ``theon.tensor.random`` is a method
    returning ``(next_rng, draw)``.

    >>> r = rng("r")
    >>> next_r, x = r.poisson(3.0, size=(4,))
    >>> next_r.type, x.type
    (RandomGeneratorType, TensorType(int64, shape=(4,)))
    """

    def _draw(self, dist: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> RngAndDraw:
        from theon.tensor.random import basic

        for k in ("rng", "return_next_rng"):
            if k in kwargs:
                raise TypeError(f"{self}.{dist}(): argument {k!r} is implied by the method")
        next_rng, draw = getattr(basic, dist)(*args, rng=self, return_next_rng=True, **kwargs)
        return next_rng, draw

    # one method per distribution of theon.tensor.random.basic
    def bernoulli(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("bernoulli", args, kwargs)

    def beta(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("beta", args, kwargs)

    def betabinom(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("betabinom", args, kwargs)

    def binomial(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("binomial", args, kwargs)

    def categorical(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("categorical", args, kwargs)

    def cauchy(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("cauchy", args, kwargs)

    def chisquare(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("chisquare", args, kwargs)

    def choice(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("choice", args, kwargs)

    def dirichlet(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("dirichlet", args, kwargs)

    def exponential(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("exponential", args, kwargs)

    def gamma(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("gamma", args, kwargs)

    def gengamma(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("gengamma", args, kwargs)

    def geometric(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("geometric", args, kwargs)

    def gumbel(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("gumbel", args, kwargs)

    def halfcauchy(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("halfcauchy", args, kwargs)

    def halfnormal(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("halfnormal", args, kwargs)

    def hypergeometric(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("hypergeometric", args, kwargs)

    def integers(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("integers", args, kwargs)

    def invgamma(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("invgamma", args, kwargs)

    def laplace(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("laplace", args, kwargs)

    def logistic(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("logistic", args, kwargs)

    def lognormal(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("lognormal", args, kwargs)

    def multinomial(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("multinomial", args, kwargs)

    def multivariate_normal(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("multivariate_normal", args, kwargs)

    def negative_binomial(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("negative_binomial", args, kwargs)

    def normal(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("normal", args, kwargs)

    def pareto(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("pareto", args, kwargs)

    def permutation(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("permutation", args, kwargs)

    def poisson(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("poisson", args, kwargs)

    def rayleigh(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("rayleigh", args, kwargs)

    def shuffle(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("shuffle", args, kwargs)

    def standard_normal(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("standard_normal", args, kwargs)

    def standard_t(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("standard_t", args, kwargs)

    def t(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("t", args, kwargs)

    def triangular(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("triangular", args, kwargs)

    def truncexpon(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("truncexpon", args, kwargs)

    def uniform(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("uniform", args, kwargs)

    def vonmises(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("vonmises", args, kwargs)

    def wald(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("wald", args, kwargs)

    def weibull(self, *args: Any, **kwargs: Any) -> RngAndDraw:
        return self._draw("weibull", args, kwargs)


class RandomGeneratorSharedVariable(SharedVariable, RandomGeneratorVariable):
    """A shared variable holding a ``numpy.random.Generator``; its methods draw as a
    :class:`RandomGeneratorVariable`'s do."""

    def __str__(self) -> str:
        return self.name or f"RNG({id(self):#x})"

    def set_value(self, new_value: Any = None, borrow: bool = False, *,
                  seed: Any = UNSET) -> None:
        """Store a generator (a copy unless ``borrow=True``), or ``default_rng(seed)``.

        >>> r = shared_rng(seed=1)
        >>> r.set_value(seed=2)
        >>> r.get_value().random() == np.random.default_rng(2).random()
        True
        """
        if new_value is None:
            if seed is UNSET:
                raise ValueError(f"set_value of {self}: give a generator or seed=")
            new_value, borrow = np.random.default_rng(seed), True
        elif seed is not UNSET:
            raise ValueError(f"set_value of {self}: give a generator or a seed, not both")
        super().set_value(new_value, borrow=borrow)


def _as_generator(value: Any, seed: Any, borrow: bool, what: str) -> np.random.Generator:
    """The generator a shared rng starts from: ``value`` (copied unless ``borrow``), or
    ``np.random.default_rng(seed)``; a non-generator ``value`` is read as the seed."""
    if isinstance(value, np.random.Generator):
        if seed is not UNSET:
            raise ValueError(f"{what}: give a generator or a seed, not both")
        return value if borrow else copy.deepcopy(value)
    if isinstance(value, np.random.RandomState):
        raise TypeError(f"{what}: numpy.random.RandomState is not supported; use "
                        "numpy.random.default_rng(seed)")
    if value is not None and seed is not UNSET:
        raise ValueError(f"{what}: give a generator or a seed, not both")
    s = value if seed is UNSET else seed
    try:
        return np.random.default_rng(s)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{what}: expected a numpy.random.Generator or a seed, got "
                        f"{type(s).__name__} {s!r}") from e


def shared_rng(value: Any = None, name: str | None = None, *, seed: Any = UNSET,
               borrow: bool = False) -> RandomGeneratorSharedVariable:
    """A shared generator variable.

    Parameters
    ----------
    value
        A ``numpy.random.Generator`` (copied unless ``borrow=True``), or a seed for
        ``np.random.default_rng`` (theon also takes the seed here); ``None`` with no
        ``seed`` seeds from the operating system's entropy (not reproducible).
    name
        The variable's name.
    seed
        The seed of a new ``np.random.default_rng(seed)`` (PyTensor 3's keyword).
    borrow
        Keep ``value`` itself instead of a copy.

    Examples
    --------
    >>> a, b = shared_rng(1), shared_rng(seed=1)
    >>> a.get_value().random() == b.get_value().random()
    True
    >>> g = np.random.default_rng(3)
    >>> shared_rng(g).get_value(borrow=True) is g, shared_rng(g, borrow=True).get_value(
    ...     borrow=True) is g
    (False, True)
    """
    from theon.tensor.random.type import random_generator_type

    gen = _as_generator(value, seed, borrow, "shared_rng")
    return RandomGeneratorSharedVariable(name, random_generator_type, gen)


@shared_constructor
def generator_constructor(
    value: Any,
    name: str | None = None,
    strict: bool = False,
    allow_downcast: bool | None = None,
    borrow: bool = False,
    shape: Any = None,
    **kwargs: Any,
) -> RandomGeneratorSharedVariable:
    """``theon.shared`` of a ``numpy.random.Generator`` (a copy unless ``borrow=True``).

    Declines (``TypeError``) any other value, and refuses (``ValueError``) a
    ``numpy.random.RandomState``.

    >>> g = np.random.default_rng(3)
    >>> s = generator_constructor(g)
    >>> s.get_value(borrow=True) is g
    False
    """
    if not isinstance(value, np.random.Generator):
        if isinstance(value, np.random.RandomState):
            # refused, not declined (a TypeError would let the generic constructor take it)
            raise ValueError("numpy.random.RandomState is not supported as a shared random "
                             "generator; use numpy.random.default_rng(seed)")
        raise TypeError(f"not a numpy.random.Generator: {type(value).__name__}")
    if kwargs or shape is not None:
        raise TypeError("a shared random generator takes no shape or other arguments, got "
                        f"{sorted(kwargs) + (['shape'] if shape is not None else [])}")
    from theon.tensor.random.type import random_generator_type

    gen = value if borrow else copy.deepcopy(value)
    return RandomGeneratorSharedVariable(name, random_generator_type, gen, strict,
                                         allow_downcast)


def rng(name: str | None = None) -> RandomGeneratorVariable:
    """A generator variable with no value, for a function input.

    >>> import theon
    >>> from theon.compile.io import In
    >>> r = rng("r")
    >>> next_r, x = r.normal()
    >>> f = theon.function([In(r, mutable=True)], [next_r, x])
    >>> g, draw = f(np.random.default_rng(153))
    >>> float(draw) == np.random.default_rng(153).normal()
    True
    """
    from theon.tensor.random.type import random_generator_type

    var = random_generator_type(name)
    assert isinstance(var, RandomGeneratorVariable)
    return var
