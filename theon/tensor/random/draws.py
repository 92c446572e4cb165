"""NumPy draws that NumPy's ``Generator`` methods do not make directly, or make slowly.

Each equals a stated NumPy (or SciPy) computation on the same generator state, draw for
draw; the distributions' ``rng_fn`` in :mod:`theon.tensor.random.basic` call them.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["batch_shape", "binomial", "categorical", "looped"]


def batch_shape(params: Sequence[Any], ndims_params: Sequence[int],
                size: tuple[int, ...] | None) -> tuple[int, ...]:
    """``size``, or the broadcast of the parameters' batch shapes.

    >>> batch_shape([np.zeros((2, 1)), np.zeros((3, 4))], [0, 1], None)
    (2, 3)
    """
    if size is not None:
        return tuple(size)
    return tuple(np.broadcast_shapes(*(np.shape(p)[: np.ndim(p) - nd]
                                       for p, nd in zip(params, ndims_params))))


def looped(method: Callable[..., Any], params: Sequence[Any], ndims_params: Sequence[int],
           size: tuple[int, ...] | None, dtype: Any = None) -> np.ndarray:
    """``method(*core_params)`` once per batch element, in C order, stacked: NumPy's
    methods that take only unbatched parameters (``dirichlet``, ``multinomial``).

    >>> g = np.random.default_rng(0)
    >>> looped(g.dirichlet, [np.ones((2, 3))], [1], None).shape
    (2, 3)
    """
    bshape = batch_shape(params, ndims_params, size)
    bparams = [np.broadcast_to(p, bshape + np.shape(p)[np.ndim(p) - nd:])
               for p, nd in zip(params, ndims_params)]
    draws = [method(*(p[idx] for p in bparams)) for idx in np.ndindex(*bshape)]
    if not draws:
        first = method(*(np.asarray(p).reshape(-1, *np.shape(p)[np.ndim(p) - nd:])[0]
                         if np.size(p) else p for p, nd in zip(params, ndims_params)))
        return np.empty(bshape + np.shape(first), dtype=dtype or np.asarray(first).dtype)
    out = np.asarray(draws, dtype=dtype)
    return out.reshape(bshape + out.shape[1:])


def categorical(rng: np.random.Generator, p: Any, size: tuple[int, ...] | None
                ) -> np.ndarray:
    """Category indices drawn from the probabilities in the last axis of ``p``: one
    uniform per draw, found in the cumulative sum (normalized by its last entry).  For
    one vector ``p`` this is ``Generator.choice(len(p), size, p=p)``, draw for draw.

    >>> g, h = np.random.default_rng(1), np.random.default_rng(1)
    >>> p = np.array([0.2, 0.5, 0.3])
    >>> bool((categorical(g, p, (5,)) == h.choice(3, size=5, p=p)).all())
    True
    """
    p = np.asarray(p, dtype=np.float64)
    bshape = batch_shape([p], [1], size)
    cdf = np.cumsum(p, axis=-1)
    cdf /= cdf[..., -1:]
    u = rng.random(bshape)
    if p.ndim == 1:
        return np.asarray(cdf.searchsorted(u, side="right"))
    cdf_b = np.broadcast_to(cdf, bshape + p.shape[-1:])
    return np.asarray((cdf_b <= u[..., None]).sum(axis=-1))


_local = threading.local()


def _scratch(shape: tuple[int, ...]) -> np.ndarray:
    """A float64 buffer of ``shape`` for this thread, reused by later calls (the
    uniforms of a coin flip never leave :func:`binomial`).  A fresh 256 KB array
    each call costs about as much in page faults as drawing it: glibc hands such
    sizes back to the system when they are freed."""
    buf: np.ndarray | None = getattr(_local, "uniform", None)
    if buf is None or buf.shape != shape:
        buf = _local.uniform = np.empty(shape)
    return buf


def binomial(rng: np.random.Generator, n: Any, p: Any, size: tuple[int, ...] | None,
             dtype: Any = np.int64) -> np.ndarray:
    """``rng.binomial(n, p, size)``, draw for draw; a coin flip (``n = 1``) five times faster.

    For ``n = 1`` and one ``p`` in ``(0, 1]`` NumPy's inversion algorithm reduces to:
    with ``r = min(p, 1 - p)`` (``r = 1 - p`` for ``p > 0.5``, the result then being
    ``1 - X``), ``qn = exp(log(1 - r))`` (libm, as NumPy's C code), one uniform ``U``
    per draw and ``X = U > qn``; it draws ``U`` again only when
    ``U - qn > r * qn / (1 - r)``, which rounding makes possible but rare.  The
    uniforms are ``rng.random``'s (the same ``next_double`` of the bit generator);
    when a draw would need a second uniform, the generator is rewound and NumPy
    draws instead.

    >>> g, h = np.random.default_rng(2), np.random.default_rng(2)
    >>> bool((binomial(g, 1, 0.3, (100,)) == h.binomial(1, 0.3, size=100)).all())
    True
    >>> bool((binomial(g, np.array([[1]]), np.array([[0.6]]), (3, 4))
    ...       == h.binomial(1, 0.6, size=(3, 4))).all())
    True
    """
    # one n and one p: 0-d, or of one element broadcast against ``size`` (a random
    # variable's parameters come with the draw's rank, ``[[1]]`` for a matrix of draws)
    one = np.ndim(n) == np.ndim(p) == 0 or (size is not None and np.size(n) == np.size(p) == 1
                                            and max(np.ndim(n), np.ndim(p)) <= len(size))
    if not one or np.ravel(n)[0] != 1 or not 0.0 < np.ravel(p)[0] <= 1.0:
        return np.asarray(rng.binomial(n, p, size=size))
    pf = float(np.ravel(p)[0])
    flip = pf > 0.5
    r = 1.0 - pf if flip else pf
    q = 1.0 - r
    qn = math.exp(math.log(q))
    state = rng.bit_generator.state
    u = rng.random(out=_scratch(size)) if size else np.asarray(rng.random(size))
    # ``U - qn`` grows with ``U``: only the largest uniform can need a second one
    if u.size and (u.max() - qn) > (r * qn) / q:
        rng.bit_generator.state = state
        return np.asarray(rng.binomial(n, p, size=size))
    x = u <= qn if flip else u > qn
    return x.astype(dtype)  # straight to the draw's dtype (0 and 1 are exact in any)
