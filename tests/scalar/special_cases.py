"""SciPy's special functions as rows of the scalar table: references, inputs, extreme values.

Shared by the value, gradient and JAX tests of the special-function rows
(``tests/scalar/test_special_functions.py``, ``tests/backends/jax/test_special_functions.py``).
Each :class:`Case` gives the tensor function, an independent NumPy/SciPy reference
(SciPy's function of the same name where it has one, otherwise a formula or
``scipy.stats``), random typical inputs and extreme ones (0, tiny, huge, inf, nan,
outside the domain).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.special as sps
import scipy.stats

import theon.tensor as tt

Sampler = Callable[[np.random.Generator, int], list[np.ndarray]]


def logu(rng: np.random.Generator, lo: float, hi: float, n: int) -> np.ndarray:
    """``n`` numbers spread evenly in log scale over ``[lo, hi]``."""
    return np.exp(rng.uniform(np.log(lo), np.log(hi), n))


def fd(f: Callable[[float], float], x: float, h: float) -> float:
    """Richardson-extrapolated central difference: error O(h^6)."""

    def d(s: float) -> float:
        return (f(x + s) - f(x - s)) / (2 * s)

    d1, d2, d3 = d(h), d(h / 2), d(h / 4)
    e1, e2 = (4 * d2 - d1) / 3, (4 * d3 - d2) / 3
    return (16 * e2 - e1) / 15


def _fd_param(fn: Callable[..., Any], k: int) -> Callable[..., Any]:
    """The derivative of ``fn`` in its argument ``k``, by :func:`fd`, elementwise."""

    def ref(*args: Any) -> Any:
        cols = np.broadcast_arrays(*[np.asarray(a, dtype=np.float64) for a in args])
        out = np.empty(cols[0].shape)
        for i in np.ndindex(out.shape):
            pt = [float(c[i]) for c in cols]

            def g(v: float, pt: list[float] = pt) -> float:
                q = list(pt)
                q[k] = v
                return float(fn(*q))

            out[i] = fd(g, pt[k], 1e-3 * max(abs(pt[k]), 0.1))
        return out

    return ref


def _quad(f: Callable[[float], float], lo: float, hi: float) -> float:
    import scipy.integrate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(scipy.integrate.quad(f, lo, hi, epsabs=0.0, epsrel=1e-12, limit=400)[0])


def _elementwise(fn: Callable[..., float]) -> Callable[..., Any]:
    def ref(*args: Any) -> Any:
        cols = np.broadcast_arrays(*[np.asarray(a, dtype=np.float64) for a in args])
        out = np.empty(cols[0].shape)
        for i in np.ndindex(out.shape):
            pt = [float(c[i]) for c in cols]
            out[i] = np.nan if np.isnan(pt).any() else fn(*pt)
        return out

    return ref


@_elementwise
def gammainc_da_by_quadrature(a: float, x: float) -> float:
    """``d/da P(a, x) = (1/Gamma(a)) int_0^x (log t - psi(a)) t^(a-1) e^-t dt``, integrated
    on the side of ``x`` where the integrand keeps one sign (``t = x u^(1/a)`` below,
    ``t = x + s`` above), so the value is accurate however small it is."""
    if a <= 0 or x < 0:
        return np.nan
    if x == 0 or x == np.inf:
        return 0.0
    psi = float(sps.digamma(a))
    lx = np.log(x)
    if np.log(x) < psi:  # (log t - psi(a)) < 0 on (0, x)
        scale = np.exp(a * lx - float(sps.gammaln(a + 1)))
        return scale * _quad(lambda u: (lx + np.log(u) / a - psi) * np.exp(-x * u ** (1 / a)),
                             0.0, 1.0)
    scale = np.exp((a - 1) * lx - x - float(sps.gammaln(a)))
    return -scale * _quad(lambda s: (np.log(x + s) - psi) * np.exp((a - 1) * np.log1p(s / x) - s),
                          0.0, np.inf)


def _betainc_d(a: float, b: float, x: float, wrt_a: bool) -> float:
    """``d/da`` (or ``d/db``) of ``I_x(a, b)`` by quadrature of ``(1/B) int_0^x g(t)
    t^(a-1) (1-t)^(b-1) dt`` with ``g = log t - psi(a) + psi(a+b)`` (``log(1-t) - psi(b) +
    psi(a+b)``), on the side of ``x`` where ``g`` keeps one sign (the whole integral is 0)."""
    if not (a > 0 and b > 0 and 0 <= x <= 1):
        return np.nan
    if x in (0.0, 1.0):
        return 0.0
    pab = float(sps.digamma(a + b))
    lnb = float(sps.betaln(a, b))
    # g(log t, log(1 - t)), and where it changes sign (the whole integral is 0)
    if wrt_a:
        shift = float(sps.digamma(a)) - pab
        pivot = np.exp(shift)

        def g(log_t: float, log_1mt: float) -> float:
            return log_t - shift
    else:
        shift = float(sps.digamma(b)) - pab
        pivot = -np.expm1(shift)

        def g(log_t: float, log_1mt: float) -> float:
            return log_1mt - shift

    if x <= pivot:  # t = x u^(1/a): t^(a-1) dt = x^a / a du
        scale = np.exp(a * np.log(x) - np.log(a) - lnb)

        def lower(u: float) -> float:
            t = x * u ** (1 / a)
            return g(np.log(x) + np.log(u) / a, np.log1p(-t)) * np.exp((b - 1) * np.log1p(-t))

        return scale * _quad(lower, 0.0, 1.0)
    y = 1 - x  # s = 1 - t = y w^(1/b): s^(b-1) ds = y^b / b dw
    scale = np.exp(b * np.log(y) - np.log(b) - lnb)

    def upper(w: float) -> float:
        s = y * w ** (1 / b)
        return g(np.log1p(-s), np.log(y) + np.log(w) / b) * np.exp((a - 1) * np.log1p(-s))

    return -scale * _quad(upper, 0.0, 1.0)


betainc_da_by_quadrature = _elementwise(lambda a, b, x: _betainc_d(a, b, x, True))
betainc_db_by_quadrature = _elementwise(lambda a, b, x: _betainc_d(a, b, x, False))


@_elementwise
def gammal_by_quadrature(k: float, x: float) -> float:
    """``int_0^x t^(k-1) e^-t dt`` (``t = x u^(1/k)``); inf for ``k == 0 < x``."""
    if k < 0 or x < 0:
        return np.nan
    if x == 0:
        return 0.0
    if k == 0 or x == np.inf:
        return float(sps.gamma(k))
    # (x u^(1/k) is at most x: the integrand is at least e^-x, scaled out)
    return float(np.exp(k * np.log(x) - np.log(k) - x)) * _quad(
        lambda u: np.exp(x - x * u ** (1 / k)), 0.0, 1.0)


@_elementwise
def gammau_by_quadrature(k: float, x: float) -> float:
    """``int_x^inf t^(k-1) e^-t dt`` (``t = x + s``)."""
    if k < 0 or x < 0:
        return np.nan
    if x == 0:
        return float(sps.gamma(k))
    if x == np.inf:
        return 0.0
    # the integrand's exponent (k-1) log1p(s/x) - s peaks at s = k - 1 - x: scaled out
    s0 = max(k - 1 - x, 0.0)
    top = (k - 1) * np.log1p(s0 / x) - s0
    return float(np.exp(top + (k - 1) * np.log(x) - x)) * _quad(
        lambda s: np.exp((k - 1) * np.log1p(s / x) - s - top), 0.0, np.inf)


def _chi2sf_ref(x: Any, k: Any) -> Any:
    """``scipy.stats.chi2.sf`` on the distribution's support (``x >= 0``, ``k > 0``);
    outside it the special function's value, SciPy's ``chdtrc(k, x)``."""
    x, k = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(k, dtype=np.float64))
    with np.errstate(all="ignore"):
        return np.where((x >= 0) & (k > 0), scipy.stats.chi2.sf(x, k), sps.chdtrc(k, x))


def _kn_ref(n: Any, x: Any) -> Any:
    return sps.kn(np.trunc(np.asarray(n)).astype(np.int64), x)


def _xlogx_ref(x: Any) -> Any:
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        return np.where(x == 0, 0.0, x * np.log(x))


def _xlogy_ref(x: Any, y: Any) -> Any:
    x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    with np.errstate(all="ignore"):
        return np.where((x == 0) & ~np.isnan(y), 0.0, x * np.log(y))


@dataclass
class Case:
    """One special function: ``fn`` (theon.tensor), ``ref`` (NumPy/SciPy), inputs.

    ``exact``: ``ref`` is the SciPy function the row calls (float64 results agree bit
    for bit); otherwise they agree to ``rtol``.  ``grad_args``: the inputs with a
    gradient (the others: orders, with none).  ``grad_points``: named regions (the
    method of the derivative that applies there) and a point in each.
    """

    name: str
    ref: Callable[..., Any]
    sample: Sampler
    extremes: list[tuple[float, ...]]
    exact: bool = True
    rtol: float = 1e-13
    grad_args: tuple[int, ...] = (0,)
    grad_points: dict[str, tuple[float, ...]] = field(default_factory=dict)

    @property
    def fn(self) -> Any:
        return getattr(tt, self.name)

    @property
    def nin(self) -> int:
        return len(self.extremes[0])


INF, NAN = np.inf, np.nan


def _u(lo: float, hi: float) -> Callable[[np.random.Generator, int], np.ndarray]:
    return lambda rng, n: rng.uniform(lo, hi, n)


def _lu(lo: float, hi: float) -> Callable[[np.random.Generator, int], np.ndarray]:
    return lambda rng, n: logu(rng, lo, hi, n)


def _ints(lo: int, hi: int) -> Callable[[np.random.Generator, int], np.ndarray]:
    return lambda rng, n: rng.integers(lo, hi, n).astype(np.float64)


def _cols(*makers: Callable[[np.random.Generator, int], np.ndarray]) -> Sampler:
    return lambda rng, n: [m(rng, n) for m in makers]


_BESSEL_EXTREMES = [(0.0, 0.0), (1.5, 0.0), (2.0, -3.0), (0.5, -3.0), (-2.5, 1.0), (0.0, 700.0),
                    (1.0, 1e300), (1.0, INF), (INF, 1.0), (NAN, 1.0), (1.0, NAN), (300.0, 1.0),
                    (1.0, 1e-300)]

CASES: dict[str, Case] = {c.name: c for c in [
    Case("erfcx", sps.erfcx, _cols(_u(-5, 30)),
         [(0.0,), (-26.0,), (-30.0,), (1e-300,), (1e5,), (1e300,), (INF,), (-INF,), (NAN,)],
         grad_points={"negative": (-2.0,), "small": (0.3,), "large": (40.0,)}),
    Case("owens_t", sps.owens_t, _cols(_u(-5, 5), _u(-5, 5)),
         [(0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, INF), (INF, 1.0), (-3.0, -INF),
          (NAN, 1.0), (1.0, NAN), (40.0, 2.0)],
         grad_args=(0, 1), grad_points={"inside": (0.7, -1.3), "wide": (-2.0, 4.0)}),
    Case("i0", sps.i0, _cols(_u(-50, 50)),
         [(0.0,), (700.0,), (-700.0,), (800.0,), (INF,), (-INF,), (NAN,), (1e-300,)],
         grad_points={"small": (0.4,), "negative": (-3.0,), "large": (30.0,)}),
    Case("i1", sps.i1, _cols(_u(-50, 50)),
         [(0.0,), (700.0,), (-700.0,), (800.0,), (INF,), (-INF,), (NAN,), (1e-300,)],
         grad_points={"zero": (0.0,), "negative": (-3.0,), "large": (30.0,)}),
    Case("iv", sps.iv, _cols(_u(-3, 5), _u(0.01, 30)), _BESSEL_EXTREMES, grad_args=(1,),
         grad_points={"small x": (1.5, 0.3), "negative order": (-0.7, 4.0)}),
    Case("ive", sps.ive, _cols(_u(-3, 5), _u(-30, 30)), _BESSEL_EXTREMES, grad_args=(1,),
         grad_points={"positive x": (1.5, 2.3), "negative x, integer order": (2.0, -4.0)}),
    Case("j0", sps.j0, _cols(_u(-50, 50)),
         [(0.0,), (1e10,), (-1e10,), (INF,), (NAN,), (1e-300,)],
         grad_points={"small": (0.4,), "negative": (-7.0,)}),
    Case("j1", sps.j1, _cols(_u(-50, 50)),
         [(0.0,), (1e10,), (-1e10,), (INF,), (NAN,), (1e-300,)],
         grad_points={"zero": (0.0,), "negative": (-7.0,)}),
    Case("jv", sps.jv, _cols(_u(-3, 5), _u(-30, 30)), _BESSEL_EXTREMES, grad_args=(1,),
         grad_points={"positive x": (2.5, 3.1), "negative x, integer order": (3.0, -2.0)}),
    Case("kv", sps.kv, _cols(_u(-3, 5), _u(0.01, 30)), _BESSEL_EXTREMES, grad_args=(1,),
         grad_points={"small x": (0.5, 0.2), "large x": (2.5, 20.0)}),
    Case("kve", sps.kve, _cols(_u(-3, 5), _u(0.01, 30)), _BESSEL_EXTREMES, grad_args=(1,),
         grad_points={"small x": (0.5, 0.2), "large x": (2.5, 200.0)}),
    Case("kn", _kn_ref, _cols(_ints(-3, 6), _u(0.01, 30)),
         [(0.0, 0.0), (2.0, 1e-300), (2.7, 1.0), (-2.7, 1.0), (1.0, -1.0), (1.0, INF),
          (3.0, 800.0), (NAN, 1.0), (1.0, NAN), (INF, 1.0)],
         grad_args=(1,), grad_points={"order 0": (0.0, 0.7), "order 3": (3.0, 2.5)}),
    Case("gammainc", sps.gammainc, _cols(_lu(1e-3, 1e3), _lu(1e-3, 1e3)),
         [(0.0, 1.0), (1.0, 0.0), (0.0, 0.0), (1.0, INF), (INF, 1.0), (-1.0, 1.0),
          (1.0, -1.0), (NAN, 1.0), (1e-300, 1e-300), (1e10, 1e10), (1e-10, 1e10)],
         grad_args=(0, 1),
         grad_points={"series (x < k + 1)": (3.0, 1.5), "continued fraction (x >= k + 1)":
                      (2.5, 7.0), "series, small k": (0.2, 0.1),
                      "continued fraction, large": (40.0, 55.0)}),
    Case("gammaincc", sps.gammaincc, _cols(_lu(1e-3, 1e3), _lu(1e-3, 1e3)),
         [(0.0, 1.0), (1.0, 0.0), (0.0, 0.0), (1.0, INF), (INF, 1.0), (-1.0, 1.0),
          (1.0, -1.0), (NAN, 1.0), (1e-300, 1e-300), (1e10, 1e10), (1e-10, 1e10)],
         grad_args=(0, 1),
         grad_points={"series (x < k + 1)": (3.0, 1.5), "continued fraction (x >= k + 1)":
                      (2.5, 7.0), "series, large": (60.0, 50.0)}),
    Case("gammaincinv", sps.gammaincinv, _cols(_lu(1e-2, 1e3), _u(0, 1)),
         [(1.0, 0.0), (1.0, 1.0), (0.0, 0.5), (-1.0, 0.5), (1.0, 1.5), (NAN, 0.5),
          (1e10, 0.5), (1e-300, 0.5)],
         grad_args=(0, 1),
         grad_points={"series side": (4.0, 0.3), "fraction side": (1.5, 0.9)}),
    Case("gammainccinv", sps.gammainccinv, _cols(_lu(1e-2, 1e3), _u(0, 1)),
         [(1.0, 0.0), (1.0, 1.0), (0.0, 0.5), (-1.0, 0.5), (1.0, 1.5), (NAN, 0.5),
          (1e10, 0.5), (1e-300, 0.5)],
         grad_args=(0, 1),
         grad_points={"series side": (4.0, 0.7), "fraction side": (1.5, 0.1)}),
    Case("gammal", gammal_by_quadrature,
         _cols(_u(0.1, 20), _u(0, 30)),
         [(1.0, 0.0), (1.0, INF), (200.0, 1.0), (180.0, 20.0), (0.0, 1.0), (NAN, 1.0),
          (1.0, -1.0)],
         exact=False, rtol=1e-11, grad_args=(0, 1),
         grad_points={"series": (3.0, 1.5), "fraction": (2.5, 7.0)}),
    Case("gammau", gammau_by_quadrature,
         _cols(_u(0.1, 20), _u(0, 30)),
         [(1.0, 0.0), (1.0, INF), (200.0, 1.0), (200.0, 1000.0), (0.0, 1.0), (NAN, 1.0),
          (1.0, -1.0)],
         exact=False, rtol=1e-11, grad_args=(0, 1),
         grad_points={"series": (3.0, 1.5), "fraction": (2.5, 7.0)}),
    Case("chi2sf", _chi2sf_ref, _cols(_u(0, 50), _u(0.5, 30)),
         [(0.0, 2.0), (INF, 2.0), (1.0, INF), (-1.0, 2.0), (1.0, 0.0), (NAN, 2.0)],
         exact=False, rtol=1e-12, grad_args=(0, 1),
         grad_points={"series": (1.0, 4.0), "fraction": (9.0, 3.0)}),
    Case("gammainc_grad", gammainc_da_by_quadrature, _cols(_lu(0.05, 50), _lu(0.05, 50)),
         [(1.0, 0.0), (1.0, INF), (0.0, 1.0), (-1.0, 1.0), (1.0, -1.0), (NAN, 1.0)],
         exact=False, rtol=1e-10, grad_args=(1,),
         grad_points={"series": (3.0, 1.5), "fraction": (2.5, 7.0)}),
    Case("betainc", sps.betainc, _cols(_lu(1e-2, 1e3), _lu(1e-2, 1e3), _u(0, 1)),
         [(1.0, 1.0, 0.0), (1.0, 1.0, 1.0), (0.0, 1.0, 0.5), (1.0, 0.0, 0.5), (-1.0, 1.0, 0.5),
          (1.0, 1.0, 1.5), (NAN, 1.0, 0.5), (1e10, 1e10, 0.5), (1e-300, 1.0, 1e-300)],
         grad_args=(0, 1, 2),
         grad_points={"continued fraction of I_x": (2.0, 3.0, 0.2),
                      "of I_{1-x}(b, a)": (2.0, 3.0, 0.8), "small a, b": (0.3, 0.6, 0.4),
                      "large": (30.0, 40.0, 0.45)}),
    Case("betaincinv", sps.betaincinv, _cols(_lu(1e-1, 1e2), _lu(1e-1, 1e2), _u(0, 1)),
         [(1.0, 1.0, 0.0), (1.0, 1.0, 1.0), (0.0, 1.0, 0.5), (1.0, 1.0, 1.5), (NAN, 1.0, 0.5),
          (1e-300, 1.0, 0.5)],
         grad_args=(0, 1, 2),
         grad_points={"direct side": (2.0, 3.0, 0.2), "flipped side": (2.0, 3.0, 0.9)}),
    Case("betainc_grad_a", betainc_da_by_quadrature,
         _cols(_lu(0.1, 30), _lu(0.1, 30), _u(0.01, 0.99)),
         [(1.0, 1.0, 0.0), (1.0, 1.0, 1.0), (0.0, 1.0, 0.5), (1.0, 1.0, 1.5), (NAN, 1.0, 0.5)],
         exact=False, rtol=1e-10, grad_args=(2,),
         grad_points={"direct": (2.0, 3.0, 0.2), "flipped": (2.0, 3.0, 0.8)}),
    Case("betainc_grad_b", betainc_db_by_quadrature,
         _cols(_lu(0.1, 30), _lu(0.1, 30), _u(0.01, 0.99)),
         [(1.0, 1.0, 0.0), (1.0, 1.0, 1.0), (1.0, 0.0, 0.5), (1.0, 1.0, -0.5), (1.0, NAN, 0.5)],
         exact=False, rtol=1e-10, grad_args=(2,),
         grad_points={"direct": (2.0, 3.0, 0.2), "flipped": (2.0, 3.0, 0.8)}),
    Case("hyp2f1", sps.hyp2f1, _cols(_u(-3, 3), _u(-3, 3), _u(0.5, 5), _u(-5, 0.95)),
         [(1.0, 1.0, 2.0, 0.0), (1.0, 1.0, 3.0, 1.0), (1.0, 1.0, 2.0, 1.0), (1.0, 1.0, -2.0, 0.5),
          (-2.0, 1.0, 2.0, 7.0), (1.0, 1.0, 2.0, -1e10), (NAN, 1.0, 2.0, 0.5),
          (1.0, 1.0, 2.0, NAN), (1.0, 2.0, 3.0, -INF)],
         grad_args=(0, 1, 2, 3),
         grad_points={"series (0 < z < 1)": (0.7, 1.3, 2.9, 0.6),
                      "Pfaff (z < 0)": (0.7, 1.3, 2.9, -2.5),
                      "polynomial (a = -2)": (-2.0, 1.3, 2.9, 0.4),
                      "near 1": (0.3, 0.4, 2.5, 0.97)}),
    Case("hyp2f1_grad_a", _fd_param(sps.hyp2f1, 0),
         _cols(_u(-2, 2), _u(-2, 2), _u(0.5, 4), _u(-3, 0.9)),
         [(1.0, 1.0, 2.0, 0.0), (1.0, 1.0, 2.0, 1.5), (1.0, 1.0, 2.0, NAN)],
         exact=False, rtol=5e-8, grad_args=(3,),
         grad_points={"series": (0.7, 1.3, 2.9, 0.5), "Pfaff": (0.7, 1.3, 2.9, -1.5)}),
    Case("hyp2f1_grad_b", _fd_param(sps.hyp2f1, 1),
         _cols(_u(-2, 2), _u(-2, 2), _u(0.5, 4), _u(-3, 0.9)),
         [(1.0, 1.0, 2.0, 0.0), (1.0, 1.0, 2.0, 1.5), (1.0, 1.0, 2.0, NAN)],
         exact=False, rtol=5e-8, grad_args=(3,),
         grad_points={"series": (0.7, 1.3, 2.9, 0.5), "Pfaff": (0.7, 1.3, 2.9, -1.5)}),
    Case("hyp2f1_grad_c", _fd_param(sps.hyp2f1, 2),
         _cols(_u(-2, 2), _u(-2, 2), _u(0.5, 4), _u(-3, 0.9)),
         [(1.0, 1.0, 2.0, 0.0), (1.0, 1.0, 2.0, 1.5), (1.0, 1.0, 2.0, NAN)],
         exact=False, rtol=5e-8, grad_args=(3,),
         grad_points={"series": (0.7, 1.3, 2.9, 0.5), "Pfaff": (0.7, 1.3, 2.9, -1.5)}),
    Case("xlogx", _xlogx_ref, _cols(_lu(1e-300, 1e300)),
         [(0.0,), (-0.0,), (-1.0,), (1e-320,), (1e308,), (INF,), (NAN,)],
         exact=False, rtol=1e-15,
         grad_points={"small": (1e-3,), "large": (40.0,)}),
    Case("xlogy0", _xlogy_ref, _cols(_u(-5, 5), _lu(1e-10, 1e10)),
         [(0.0, 0.0), (0.0, INF), (0.0, -1.0), (1.0, 0.0), (-1.0, 0.0), (2.0, -1.0),
          (INF, 2.0), (1.0, INF), (NAN, 1.0)],
         exact=False, rtol=1e-15, grad_args=(0, 1),
         grad_points={"x > 0": (1.5, 0.4), "x < 0": (-2.0, 30.0)}),
]}

#: the rows of the special-function work (issue 35), as in the scalar table
NAMES = sorted(CASES)


def values(case: Case, rng: np.random.Generator, n: int = 40) -> list[np.ndarray]:
    """Random typical inputs with the extreme points appended (float64 columns)."""
    cols = case.sample(rng, n)
    ext = np.array(case.extremes, dtype=np.float64)
    return [np.concatenate([c, ext[:, k]]) for k, c in enumerate(cols)]
