"""Theano's ``MRG_RandomStreams``, backed by ``theon.tensor.random``'s Ops.

The methods and their argument order are Theano's MRG ones (``size`` first;
``binomial(size, p, n)``; ``nstreams`` accepted and ignored), but the numbers come
from ``numpy.random.Generator`` (PCG64), NOT from Theano's MRG31k3p generator: the
same seed gives different numbers than Theano did (no bit compatibility).  Draws
are reproducible from the seed (``seed(s)`` reseeds every generator made).

>>> import theon
>>> import theon.tensor as T
>>> from theon.sandbox.rng_mrg import MRG_RandomStreams
>>> srng = MRG_RandomStreams(seed=12345)
>>> x = T.matrix("x")
>>> mask = srng.binomial(size=x.shape, n=1, p=0.5, dtype=theon.config.floatX)
>>> f = theon.function([x], mask * x)
>>> import numpy as np
>>> sorted(set(f(np.ones((4, 4), dtype=theon.config.floatX)).ravel().tolist()))
[0.0, 1.0]
"""

from __future__ import annotations

from typing import Any

from theon.tensor.random.utils import RandomStreams

__all__ = ["MRG_RandomStreams"]


class MRG_RandomStreams(RandomStreams):  # Theano's name
    """Theano's ``MRG_RandomStreams(seed=12345)``: a :class:`RandomStreams` with the MRG
    methods' spellings; not bit-compatible with Theano's MRG31k3p numbers.

    >>> MRG_RandomStreams(1).uniform((2, 3), nstreams=30).eval().shape
    (2, 3)
    """

    def __init__(self, seed: Any = 12345) -> None:
        super().__init__(seed)

    def uniform(self, size: Any = None, low: Any = 0.0,  # type: ignore[override]
                high: Any = 1.0, ndim: Any = None,
                dtype: Any = None, nstreams: Any = None, name: str | None = None) -> Any:
        return RandomStreams.uniform(self, size, low, high, ndim, dtype, name)

    def normal(self, size: Any = None, avg: Any = 0.0,  # type: ignore[override]
               std: Any = 1.0, ndim: Any = None,
               dtype: Any = None, nstreams: Any = None, truncate: bool = False,
               name: str | None = None) -> Any:
        if truncate:
            raise NotImplementedError("MRG_RandomStreams.normal(truncate=True) is not "
                                      "supported; use theon.tensor.random.normal and clip")
        return RandomStreams.normal(self, size, avg, std, ndim, dtype, name)

    def binomial(self, size: Any = None, p: Any = 0.5, n: Any = 1,  # type: ignore[override]
                 ndim: Any = None, dtype: Any = "int64", nstreams: Any = None,
                 name: str | None = None, prob: Any = None) -> Any:
        return RandomStreams.binomial(self, size, n, p if prob is None else prob, ndim, dtype,
                                      name)

    def multinomial(self, size: Any = None, n: Any = 1,  # type: ignore[override]
                    pvals: Any = None,
                    ndim: Any = None, dtype: Any = "int64", nstreams: Any = None,
                    name: str | None = None) -> Any:
        """``n`` draws from each row of ``pvals`` (a matrix gives one row of counts per
        row, as Theano's MRG one did); ``size`` as in ``theon.tensor.random.multinomial``."""
        if pvals is None:
            raise TypeError("multinomial: argument 'pvals' is required")
        return RandomStreams.multinomial(self, size, n, pvals, ndim, dtype, name)
