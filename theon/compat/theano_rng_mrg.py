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

import math
from typing import Any

from theon import config
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
            return self.truncated_normal(size, avg, std, ndim, dtype, nstreams, name)
        return RandomStreams.normal(self, size, avg, std, ndim, dtype, name)

    def truncated_normal(self, size: Any = None, avg: Any = 0.0, std: Any = 1.0,
                         ndim: Any = None, dtype: Any = None, nstreams: Any = None,
                         name: str | None = None) -> Any:
        """A normal truncated at two standard deviations from ``avg``.

        Drawn by the inverse CDF of a uniform on ``[Phi(-2), Phi(2)]``, so this is
        exactly the truncated normal (Theano's MRG bounded the Box-Muller radius
        instead, which gives another distribution on the same interval).

        >>> x = MRG_RandomStreams(0).truncated_normal((1000,), avg=1.0, std=0.5).eval()
        >>> bool(x.min() >= 0.0 and x.max() <= 2.0)
        True
        """
        from theon.tensor.basic import cast
        from theon.tensor.special import erfinv

        # Phi(x) = erfc(-x / sqrt(2)) / 2
        lo, hi = 0.5 * math.erfc(2.0 / math.sqrt(2.0)), 0.5 * math.erfc(-2.0 / math.sqrt(2.0))
        u = RandomStreams.uniform(self, size, lo, hi, ndim, "float64")
        z = math.sqrt(2.0) * erfinv(2.0 * u - 1.0)
        out = avg + std * z
        want = dtype or config.floatX
        out = cast(out, want) if out.type.dtype != want else out
        if name is not None:
            out.name = name
        return out

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

    def choice(self, size: Any = 1, a: Any = None,  # type: ignore[override]
               replace: bool = True, p: Any = None, ndim: Any = None,
               dtype: Any = "int64", nstreams: Any = None, name: str | None = None) -> Any:
        """Theano's MRG ``choice``: ``size`` category indices from each row of the
        probability matrix ``p`` (``a`` must be None), a ``(p.shape[0], size)`` matrix.

        >>> import numpy as np
        >>> p = np.array([[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]])
        >>> x = MRG_RandomStreams(3).choice(size=3, p=p, replace=False).eval()
        >>> [sorted(r) for r in x.tolist()]
        [[0, 1, 2], [0, 1, 2]]
        """
        if a is not None:
            raise TypeError("MRG_RandomStreams.choice: only a=None is supported (draws "
                            "category indices from the rows of p), as in Theano; use "
                            "RandomStreams.choice for a vector a")
        if p is None:
            raise TypeError("MRG_RandomStreams.choice: argument 'p' (a matrix of "
                            "probabilities, one row per draw) is required")
        from theon.tensor.basic import cast
        from theon.tensor.random.sampling import row_choice

        out = self.gen(row_choice, size, p, replace=replace)
        if dtype is not None and out.type.dtype != str(dtype):
            out = cast(out, dtype)
        if name is not None:
            out.name = name
        return out

    def multinomial_wo_replacement(self, size: Any = None, n: Any = 1, pvals: Any = None,
                                   ndim: Any = None, dtype: Any = "int64",
                                   nstreams: Any = None, name: str | None = None) -> Any:
        """Theano's (deprecated) name for ``choice(size=n, a=None, replace=False, p=pvals)``."""
        return self.choice(size=n, a=None, replace=False, p=pvals, ndim=ndim, dtype=dtype,
                           name=name)
