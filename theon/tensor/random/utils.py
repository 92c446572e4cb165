"""Random streams: draws whose generators update themselves (Theano's and PyTensor's form).

A :class:`RandomStream` makes a new shared generator for every draw, seeded from the
stream's own ``numpy.random.SeedSequence``, and gives it the draw's next generator as
its *default update*: a compiled function then draws fresh numbers at each call
without listing updates, and ``srng.seed(s)`` makes the whole sequence reproducible.

:class:`RandomStream` takes the distribution's parameters first, as
``theon.tensor.random`` does (``srng.normal(0.0, 1.0, size=(3,))``);
:class:`RandomStreams` (also ``theon.tensor.shared_randomstreams.RandomStreams``)
takes ``size`` first, as Theano's ``RandomStreams`` did
(``srng.normal((3,), avg=0.0, std=1.0)``).  Both accept Theano's keyword spellings
(``avg``/``std`` for ``loc``/``scale``, ``ndim``, ``prob`` for ``p``).

This module also holds (PyTensor's path) the shape helpers of
:mod:`theon.tensor.random.shapes`: ``normalize_size_param``, ``broadcast_params``, ...

>>> import theon
>>> srng = RandomStream(seed=3)
>>> x = srng.uniform(0.0, 1.0, size=(2,))
>>> f = theon.function([], x)
>>> a, b = f(), f()
>>> bool((a != b).all())
True
>>> srng.seed(3)
>>> bool((f() == a).all())
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np

from theon.graph.basic import Variable
from theon.graph.op import Op
from theon.tensor.arguments import as_int_tuple
from theon.tensor.random import basic, sampling
from theon.tensor.random.basic import DISTRIBUTIONS
from theon.tensor.random.op import RandomVariable
from theon.tensor.random.shapes import (
    broadcast_params,
    compute_batch_shape,
    explicit_expand_dims,
    normalize_size_param,
    params_broadcast_shapes,
    supp_shape_from_ref_param_shape,
)
from theon.tensor.random.variable import RandomGeneratorSharedVariable, generator_constructor

__all__ = [
    "RandomStream",
    "RandomStreams",
    "broadcast_params",
    "compute_batch_shape",
    "explicit_expand_dims",
    "normalize_size_param",
    "params_broadcast_shapes",
    "supp_shape_from_ref_param_shape",
]

#: Theano's (and NumPy RandomState's and theon's earlier) keyword spellings
_ALIASES: dict[str, dict[str, str]] = {
    "normal": {"avg": "loc", "std": "scale"},
    "lognormal": {"avg": "mean", "std": "sigma"},
    "halfnormal": {"avg": "loc", "std": "scale"},
    "binomial": {"prob": "p"},
    "bernoulli": {"prob": "p"},
    "multinomial": {"pvals": "p"},
    "beta": {"a": "alpha", "b": "beta"},
    "dirichlet": {"alpha": "alphas"},
    "weibull": {"a": "shape"},
}


def _check_ndim(name: str, draw: Any, ndim: Any) -> None:
    if ndim is not None and draw.type.ndim != int(ndim):
        raise ValueError(f"{name}: ndim={ndim} but the draw has {draw.type.ndim} dimensions "
                         f"({draw.type})")


class RandomStream:
    """A source of random draws, each with its own self-updating shared generator.

    Parameters
    ----------
    seed
        The stream's seed (anything ``numpy.random.SeedSequence`` accepts); ``None``
        seeds from the operating system (not reproducible).

    Attributes
    ----------
    state_updates
        ``[(shared_rng, next_rng), ...]``, one pair per draw, in the order made.

    Every distribution of ``theon.tensor.random`` is a method taking its parameters
    first, then ``size``, ``ndim`` (checked against the draw when given), ``dtype``
    and ``name``; ``choice``, ``permutation`` and ``shuffle`` too.

    >>> srng = RandomStream(seed=0)
    >>> srng.normal(avg=0.0, std=2.0, size=(2, 3)).eval().shape
    (2, 3)
    >>> len(srng.state_updates)
    1
    """

    def __init__(self, seed: Any = None) -> None:
        self.state_updates: list[tuple[RandomGeneratorSharedVariable, Variable]] = []
        self.seed(seed)

    # -- generators ---------------------------------------------------------------

    def seed(self, seed: Any = None) -> None:
        """Reseed the stream and every generator it made, reproducibly.

        After ``seed(s)`` the generators hold the states that a new ``RandomStream(s)``
        making the same draws in the same order would give them.

        >>> srng = RandomStream(1)
        >>> x = srng.integers(0, 1000, size=(4,))
        >>> a = x.eval()
        >>> srng.seed(1)
        >>> bool((x.eval() == a).all())
        True
        """
        self._seed_seq = np.random.SeedSequence(seed)
        for rng, _ in self.state_updates:
            rng.set_value(self._next_generator(), borrow=True)

    def _next_generator(self) -> np.random.Generator:
        (child,) = self._seed_seq.spawn(1)
        return np.random.default_rng(child)

    def new_rng(self, name: str | None = None) -> RandomGeneratorSharedVariable:
        """A new shared generator seeded from this stream (no update attached)."""
        rng = generator_constructor(self._next_generator(), name=name, borrow=True)
        return cast(RandomGeneratorSharedVariable, rng)

    def updates(self) -> list[tuple[RandomGeneratorSharedVariable, Variable]]:
        """The ``(shared_rng, next_rng)`` pairs of every draw made so far (a copy)."""
        return list(self.state_updates)

    def gen(self, op: Any, *args: Any, **kwargs: Any) -> Any:
        """Draw with ``op`` on a new generator of this stream, updated by default.

        ``op`` is a distribution of ``theon.tensor.random`` (a ``RandomVariable`` or a
        function, called as ``op(*args, rng=..., return_next_rng=True, **kwargs)``) or
        another random Op (called as ``op(rng, *args)``).

        >>> import theon.tensor.random as tr
        >>> RandomStream(0).gen(tr.poisson, 3.0, size=(2,)).eval().shape
        (2,)
        """
        rng = self.new_rng(name=kwargs.pop("rng_name", None))
        if isinstance(op, Op) and not isinstance(op, RandomVariable):
            if kwargs:
                raise TypeError(f"gen: an Op takes positional inputs only, got {sorted(kwargs)}")
            next_rng, draw = op(rng, *args, return_list=True)
        else:
            next_rng, draw = op(*args, rng=rng, return_next_rng=True, **kwargs)
        rng.default_update = next_rng
        self.state_updates.append((rng, next_rng))
        return draw

    # -- drawing --------------------------------------------------------------------

    def _draw(self, dist: str, args: tuple[Any, ...], params: dict[str, Any], size: Any,
              ndim: Any, dtype: Any, name: str | None) -> Any:
        fn = getattr(basic, dist)
        kwargs = _bind(dist, params)
        spec = getattr(fn, "_params", None)
        taken = {n for n, _ in spec[: len(args)]} if spec else set()
        for orig, key in _ALIASES.get(dist, {}).items():
            if orig in params and key in taken:
                raise TypeError(f"{dist}() got {orig!r} (its parameter {key!r}) both "
                                "positionally and as a keyword")
        draw = self.gen(fn, *args, size=size, dtype=dtype, name=name, **kwargs)
        _check_ndim(dist, draw, ndim)
        return draw

    def choice(self, a: Any, size: Any = None, replace: bool = True, p: Any = None,
               ndim: Any = None, dtype: Any = None, name: str | None = None) -> Any:
        """``Generator.choice(a, size, replace, p)`` (see ``theon.tensor.random.choice``).

        >>> sorted(RandomStream(0).choice(4, size=(4,), replace=False).eval().tolist())
        [0, 1, 2, 3]
        """
        draw = self.gen(sampling.choice, a, size=size, replace=replace, p=p)
        return _finish("choice", draw, ndim, dtype, name)

    def permutation(self, x: Any, ndim: Any = None, dtype: Any = None,
                    name: str | None = None) -> Any:
        """``Generator.permutation(x)``: a permuted ``arange(x)``, or ``x`` permuted along
        its first axis.

        >>> sorted(RandomStream(0).permutation(3).eval().tolist())
        [0, 1, 2]
        """
        return _finish("permutation", self.gen(sampling.permutation, x), ndim, dtype, name)

    def shuffle(self, x: Any, name: str | None = None) -> Any:
        """A copy of ``x`` shuffled along its first axis."""
        return _finish("shuffle", self.gen(sampling.shuffle, x), None, None, name)

    def shuffle_row_elements(self, x: Any) -> Any:
        """Theano's name: ``x`` with its rows in a random order."""
        return self.shuffle(x)


def _finish(what: str, draw: Any, ndim: Any, dtype: Any, name: str | None) -> Any:
    _check_ndim(what, draw, ndim)
    if dtype is not None and str(np.dtype(dtype)) != draw.type.dtype:
        from theon.tensor.basic import cast

        draw = cast(draw, str(np.dtype(dtype)))
    if name is not None:
        draw.name = name
    return draw


def _bind(dist: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` with Theano's (and theon's earlier) spellings renamed."""
    aliases = _ALIASES.get(dist, {})
    out: dict[str, Any] = {}
    for k, v in kwargs.items():
        key = aliases.get(k, k)
        if key in out:
            raise TypeError(f"{dist}() got the argument {key!r} twice")
        out[key] = v
    return out


def _param_first_method(dist: str) -> Callable[..., Any]:
    def method(self: RandomStream, *args: Any, size: Any = None, ndim: Any = None,
               dtype: Any = None, name: str | None = None, **kwargs: Any) -> Any:
        return self._draw(dist, args, kwargs, size, ndim, dtype, name)

    method.__name__ = method.__qualname__ = dist
    method.__doc__ = (f"Draws of ``{dist}(*params)`` on a new generator of this stream, with "
                      f"``size``, ``ndim``, ``dtype`` and ``name`` keywords "
                      f"(see ``theon.tensor.random.{dist}``).")
    return method


for _d in DISTRIBUTIONS:
    if not hasattr(RandomStream, _d):
        setattr(RandomStream, _d, _param_first_method(_d))


class RandomStreams(RandomStream):
    """Theano's ``RandomStreams``: a :class:`RandomStream` whose methods take ``size``
    first, with Theano's parameter names and defaults.

    ``uniform(size=None, low=0.0, high=1.0, ndim=None, dtype=None)``,
    ``normal(size=None, avg=0.0, std=1.0, ...)``,
    ``binomial(size=None, n=1, p=0.5, ndim=None, dtype='int64')``,
    ``random_integers(size=None, low=0, high=1, ...)`` (``high`` included),
    ``poisson(size=None, lam=1.0, ...)``, ``choice(size=None, a=2, replace=True, p=None,
    ...)``, ``permutation(size=None, n=1, ...)`` (``size`` permutations of
    ``arange(n)``, stacked), ``multinomial(size=None, n=1, pvals=[0.5, 0.5], ...)``;
    every other distribution as ``name(size, *params)``.  Keywords may be given as
    ``RandomStream`` spells them (``loc``/``scale`` too).

    >>> srng = RandomStreams(seed=234)
    >>> srng.binomial((2, 3), n=1, p=0.5).eval().shape
    (2, 3)
    """

    def uniform(self, size: Any = None, low: Any = 0.0, high: Any = 1.0, ndim: Any = None,
                dtype: Any = None, name: str | None = None) -> Any:
        return self._draw("uniform", (), {"low": low, "high": high}, size, ndim, dtype, name)

    def normal(self, size: Any = None, avg: Any = 0.0, std: Any = 1.0, ndim: Any = None,
               dtype: Any = None, name: str | None = None, **kwargs: Any) -> Any:
        params = {"loc": kwargs.pop("loc", avg), "scale": kwargs.pop("scale", std)}
        if kwargs:
            raise TypeError(f"normal() got unexpected arguments {sorted(kwargs)}")
        return self._draw("normal", (), params, size, ndim, dtype, name)

    def binomial(self, size: Any = None, n: Any = 1, p: Any = 0.5, ndim: Any = None,
                 dtype: Any = "int64", name: str | None = None, prob: Any = None) -> Any:
        return self._draw("binomial", (), {"n": n, "p": p if prob is None else prob}, size, ndim,
                          dtype, name)

    def random_integers(self, size: Any = None, low: Any = 0, high: Any = 1, ndim: Any = None,
                        dtype: Any = "int64", name: str | None = None) -> Any:
        """Integers in ``[low, high]`` (``high`` included, as Theano's)."""
        return self._draw("integers", (), {"low": low, "high": high + 1}, size, ndim, dtype, name)

    def poisson(self, size: Any = None, lam: Any = 1.0, ndim: Any = None, dtype: Any = "int64",
                name: str | None = None) -> Any:
        return self._draw("poisson", (), {"lam": lam}, size, ndim, dtype, name)

    def multinomial(self, size: Any = None, n: Any = 1, pvals: Any = (0.5, 0.5),
                    ndim: Any = None, dtype: Any = "int64", name: str | None = None) -> Any:
        return self._draw("multinomial", (), {"n": n, "p": pvals}, size, ndim, dtype, name)

    def choice(self, size: Any = None, a: Any = 2, replace: bool = True,  # type: ignore[override]
               p: Any = None, ndim: Any = None, dtype: Any = "int64",
               name: str | None = None) -> Any:
        return RandomStream.choice(self, a, size=size, replace=replace, p=p, ndim=ndim,
                                   dtype=dtype, name=name)

    def permutation(self, size: Any = None, n: Any = 1,  # type: ignore[override]
                    ndim: Any = None, dtype: Any = "int64", name: str | None = None) -> Any:
        if size is None or (isinstance(size, (tuple, list)) and len(size) == 0):
            return RandomStream.permutation(self, n, ndim=ndim, dtype=dtype, name=name)
        shape = as_int_tuple(size, "permutation: argument 'size'")
        if any(s < 0 for s in shape):
            raise ValueError(f"permutation: argument 'size' {shape!r} has a negative length; "
                             f"lengths must be >= 0")
        from theon.tensor.joining import stack

        count = int(np.prod(shape))
        rows = [RandomStream.permutation(self, n) for _ in range(count)]
        out: Any = stack(rows)
        out = out.reshape((*shape, -1))
        return _finish("permutation", out, ndim, dtype, name)


def _size_first_method(dist: str) -> Callable[..., Any]:
    def method(self: RandomStreams, size: Any = None, *args: Any, ndim: Any = None,
               dtype: Any = None, name: str | None = None, **kwargs: Any) -> Any:
        return self._draw(dist, args, kwargs, size, ndim, dtype, name)

    method.__name__ = method.__qualname__ = dist
    method.__doc__ = f"``{dist}(size, *params)`` (see :meth:`RandomStream.{dist}`)."
    return method


for _d in DISTRIBUTIONS:
    if _d not in RandomStreams.__dict__:
        setattr(RandomStreams, _d, _size_first_method(_d))
