"""Vectorizable float64 ``sin``, ``cos`` and ``log1p`` for the tier-1 XLA kernels.

XLA's CPU backend computes float64 ``sin``/``cos`` one element at a time
(about 9 ns per element on an AVX2 core, the speed of scalar libm), and its
``log1p`` at about 6.5 ns.  The functions here are written only with
arithmetic, comparisons, selects and bit casts, which XLA turns into SIMD
loops: on the same core ``sin`` takes about 3.6 ns per element.  They are
used by :mod:`theon.link.tier1.xla` for float64 steps; every tier-1 kernel is
still compared with tier 0 on its first call.

The math:

- **sin, cos.** ``q = round(x * 2/pi)`` and ``r = x - q*pi/2`` (Cody and
  Waite's reduction: pi/2 is split into three doubles whose first two have
  their low 27 bits cleared, so ``q*P1`` and ``q*P2`` are exact while
  ``|q| < 2**26``), so ``|r| <= pi/4``.  On that interval the Taylor series of
  ``sin r`` to ``r**19`` and of ``cos r`` to ``r**20`` have truncation errors
  below 1e-19 relative, so no fitted coefficients are needed.  ``sin x`` is
  ``sin r``, ``cos r``, ``-sin r``, ``-cos r`` for ``q mod 4 = 0, 1, 2, 3``;
  ``cos x`` is ``sin`` of ``q + 1``.  Arrays holding any ``|x| > 2**20`` (where
  the reduction loses accuracy) are computed with XLA's own function instead,
  chosen by one ``lax.cond`` per call.  Measured error: at most 1.6 ulp
  (NumPy's: 0.5 ulp).
- **log1p.** ``w = 1 + u`` rounds; ``c = (u - (w - 1)) / w`` is the first-order
  correction, so ``log1p(u) = log(w) + c`` to about 1 ulp.  ``log(w)``: write
  ``w = m * 2**e`` with ``m`` in ``[sqrt(1/2), sqrt(2))`` (from the bits of
  ``w``), then ``log m = 2 atanh(s)``, ``s = (m - 1)/(m + 1)``, ``|s| < 0.172``,
  by its odd series to ``s**25`` (truncation below 1e-20), and ``e * log 2`` in
  three parts.  ``u < -1``, ``-1``, ``inf``, nan and ``|u| < 1e-300`` are
  handled by selects, as ``numpy.log1p`` gives them.

>>> import math
>>> P1 + P2 + P3 == math.pi / 2 and _L1 + _L2 + _L3 == math.log(2)
True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

__all__ = ["FLOAT64", "P1", "P2", "P3", "VERSION", "functions"]

#: Bumped whenever a function here changes (it is part of the kernels' disk-cache key).
VERSION = 1

#: pi/2 and log(2) as sums of three doubles, the first two with 26 significant bits
#: (``split`` in tests/link/tier1/test_vmath.py derives them from 60-digit decimals).
P1, P2, P3 = 1.5707963109016418, 1.5893254712295857e-08, 6.123233995736766e-17
_L1, _L2, _L3 = 0.6931471675634384, 1.2996506759677118e-08, 1.3421277060097865e-16

#: Taylor coefficients: sin r = r + r**3 * S(r**2), cos r = 1 - r**2/2 + r**4 * C(r**2).
_SIN = tuple((-1) ** k / math.factorial(2 * k + 1) for k in range(1, 10))
_COS = tuple((-1) ** k / math.factorial(2 * k) for k in range(2, 11))
#: 2 atanh(s) = 2 s (1 + s**2/3 + s**4/5 + ...), to s**25.
_ATANH = tuple(1.0 / (2 * k + 1) for k in range(1, 13))

#: Beyond this |x| the sin/cos reduction is not trusted: XLA's own function is used.
LIMIT = 2.0**20

#: The ufunc names this module replaces for float64 steps.
FLOAT64 = frozenset({"sin", "cos", "log1p"})


def _poly(jnp: Any, z: Any, coefs: tuple[float, ...]) -> Any:
    """``coefs[0] + coefs[1] z + ...`` by Horner's rule."""
    acc = jnp.full_like(z, coefs[-1])
    for c in reversed(coefs[:-1]):
        acc = acc * z + c
    return acc


def functions() -> dict[str, Callable[[Any], Any]]:
    """The float64 replacements by ufunc name, as functions of jax arrays (imports jax)."""
    import jax.numpy as jnp
    from jax import lax

    def reduced(x: Any, shift: int) -> Any:
        q = jnp.round(x * (2.0 / math.pi))
        r = ((x - q * P1) - q * P2) - q * P3
        z = r * r
        s = r + r * z * _poly(jnp, z, _SIN)
        c = 1.0 - 0.5 * z + z * z * _poly(jnp, z, _COS)
        n = jnp.bitwise_and(q.astype(jnp.int64) + shift, 3)
        v = jnp.where(jnp.bitwise_and(n, 1) == 1, c, s)
        return jnp.where(n >= 2, -v, v)

    def fast_sin(x: Any) -> Any:
        return jnp.where(x == 0.0, x, reduced(x, 0))  # keeps sin(-0.0) = -0.0

    def fast_cos(x: Any) -> Any:
        return reduced(x, 1)

    def sin(x: Any) -> Any:
        return lax.cond(jnp.all(jnp.abs(x) <= LIMIT), fast_sin, jnp.sin, x)

    def cos(x: Any) -> Any:
        return lax.cond(jnp.all(jnp.abs(x) <= LIMIT), fast_cos, jnp.cos, x)

    def log1p(u: Any) -> Any:
        # the barrier keeps XLA's simplifier from folding (1 + u) - 1 into u
        w = lax.optimization_barrier(1.0 + u)
        corr = (u - (w - 1.0)) / w
        bits = lax.bitcast_convert_type(w, jnp.int64)
        e = jnp.right_shift(bits, 52) - 1023
        m = lax.bitcast_convert_type(
            jnp.bitwise_or(jnp.bitwise_and(bits, (1 << 52) - 1), 1023 << 52), jnp.float64
        )  # in [1, 2)
        big = m > math.sqrt(2.0)
        m = jnp.where(big, m * 0.5, m)
        ef = (e + big.astype(jnp.int64)).astype(jnp.float64)
        s = (m - 1.0) / (m + 1.0)
        z = s * s
        logm = 2.0 * s + 2.0 * s * z * _poly(jnp, z, _ATANH)
        v = ef * _L1 + (logm + ((ef * _L3 + corr) + ef * _L2))
        v = jnp.where(u == jnp.inf, u, v)
        v = jnp.where(u == -1.0, -jnp.inf, v)
        v = jnp.where((u < -1.0) | jnp.isnan(u), jnp.nan, v)
        return jnp.where(jnp.abs(u) < 1e-300, u, v)  # log1p(+-0) = +-0, and subnormals

    return {"sin": sin, "cos": cos, "log1p": log1p}
