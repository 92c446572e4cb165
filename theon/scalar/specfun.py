"""NumPy functions behind the special-function rows: the derivatives with respect to a
parameter that have no closed form, and a few functions SciPy spells another way.

Derivatives with respect to a parameter (the ``a`` of ``gammainc(a, x)``, the ``a``
and ``b`` of ``betainc(a, b, x)``, the ``a``, ``b``, ``c`` of ``hyp2f1``) are
computed by forward-mode differentiation of the series or continued fraction that
evaluates the function: each term (or each convergent) carries its derivative along,
by the product and quotient rules, so the derivative converges with the function and
needs no step size.  Which expansion applies depends on the arguments:

========================  ==========================================  ================
function                  expansion                                   where
========================  ==========================================  ================
``gammainc_grad(a, x)``   power series of P(a, x)                     ``x < a + 1``
                          Legendre continued fraction of Q(a, x)      ``x >= a + 1``
``betainc_grad_*``        continued fraction of I_x(a, b)             ``x < (a+1)/(a+b+2)``
                          the same of I_{1-x}(b, a) = 1 - I_x(a, b)   otherwise
``hyp2f1_grad_*``         Gauss series in ``z``                       ``0 <= z < 1``
                          Pfaff: (1-z)^-a 2F1(a, c-b; c; z/(z-1))     ``z < 0``
                          Gauss's sum (digammas)                      ``z == 1``, ``c > a + b``
========================  ==========================================  ================

In each region the terms of the function and of its derivative have one sign (or
the expansion converges geometrically), so nothing cancels; no expansion is used
outside its region.  An expansion that has not converged after :data:`MAX_TERMS`
terms gives nan (a parameter above about 5e6 next to ``x``, or ``z`` within about
0.003 of 1): nothing returned is an unconverged value.  Arguments whose estimated
number of terms exceeds that bound give nan without summing.  Arguments outside the
function's domain give nan, as SciPy's own functions do.

Every function takes and returns float64 arrays (the rows' ``impl`` computes in a
precision SciPy supports and casts).  SciPy is imported on first use.

>>> import numpy as np
>>> round(float(gammainc_da(np.float64(2.0), np.float64(1.0))), 8)
-0.27619605
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "MAX_TERMS",
    "apply_float",
    "betainc_da",
    "betainc_dab",
    "betainc_db",
    "chi2sf",
    "float_impl",
    "gammainc_da",
    "gammal",
    "gammau",
    "hyp2f1_da",
    "hyp2f1_dabc",
    "hyp2f1_db",
    "hyp2f1_dc",
    "kn",
    "xlogx",
    "xlogy0",
]

#: the most terms (or convergents) an expansion may take before giving nan
MAX_TERMS = 20000
_EPS = np.finfo(np.float64).eps
_TINY = 1e-300


def _sp() -> Any:
    import scipy.special

    return scipy.special


def _f64(*xs: Any) -> list[np.ndarray]:
    """The arguments as float64 arrays broadcast to one shape (copies: they are written)."""
    return [np.array(a, dtype=np.float64) for a in np.broadcast_arrays(*xs)]


def _scalar(r: np.ndarray) -> Any:
    return r[()] if r.ndim == 0 else r


# functions the rows compute ----------------------------------------------------------------
def apply_float(fn: Any, x: Any) -> Any:
    """``fn`` on ``x`` computed in a SciPy-supported precision, returned in np.exp's dtype
    (float16 computes in float32: SciPy's ufuncs would widen float16/float32 to float64
    in several cases).

    >>> apply_float(np.sqrt, np.float16(4.0))
    np.float16(2.0)
    """
    out = np.result_type(np.asarray(x).dtype, np.float16)
    comp = np.dtype(np.float32) if out == np.float16 else out
    xa = np.asarray(x)
    if xa.dtype != comp:
        xa = xa.astype(comp)
    r = np.asarray(fn(xa))
    if r.dtype != out:
        r = r.astype(out)
    return _scalar(r)


def float_impl(op: Any, *xs: Any) -> Any:
    """``op.ufunc`` on ``xs`` computed in a precision SciPy supports, returned in the
    dtype of ``np.exp``'s rule over all inputs (float16 computes in float32).

    >>> class Op:
    ...     ufunc = staticmethod(np.hypot)
    >>> float_impl(Op(), np.float16(3.0), np.int8(4))
    np.float16(5.0)
    """
    out = np.result_type(*(np.asarray(x).dtype for x in xs), np.float16)
    comp = np.dtype(np.float32) if out == np.float16 else out
    args = [np.asarray(x) if np.asarray(x).dtype == comp else np.asarray(x).astype(comp)
            for x in xs]
    r = np.asarray(op.ufunc(*args))
    if r.dtype != out:
        r = r.astype(out)
    return _scalar(r)


def gammal(k: Any, x: Any) -> Any:
    """The lower incomplete gamma function ``gamma(k) * gammainc(k, x)`` (unregularized).

    Where that product overflows or loses its value (``gamma(k)`` infinite beside a
    ``gammainc`` that underflowed: ``inf * 0``), the logarithm: ``log gammainc(k, x) +
    gammaln(k)``, or where ``gammainc`` underflowed, ``k log x - x - log k + log
    1F1(1; k+1; x)``.

    >>> float(gammal(200.0, 1.0)) > 0, float(gammal(1.0, np.inf))
    (True, 1.0)
    """
    sp = _sp()
    return _unregularized(k, x, sp.gammainc(k, x), lambda k, x: (
        k * np.log(x) - x - np.log(k) + np.log(sp.hyp1f1(1.0, k + 1, x))))


def gammau(k: Any, x: Any) -> Any:
    """The upper incomplete gamma function ``gamma(k) * gammaincc(k, x)`` (unregularized),
    in logarithms where the product overflows or loses its value (:func:`gammal`; where
    ``gammaincc`` underflowed, ``k log x - x + log U(1, 1+k, x)``).  At ``k == 0``, where
    SciPy's ``gammaincc`` is 0 and ``gamma`` infinite, the exponential integral
    ``E1(x)``.

    >>> float(gammau(200.0, 1000.0)) < np.inf, round(float(gammau(0.0, 1.0)), 6)
    (True, 0.219384)
    """
    sp = _sp()
    out = _unregularized(k, x, sp.gammaincc(k, x), lambda k, x: (
        k * np.log(x) - x + np.log(sp.hyperu(1.0, k + 1, x))))
    k0 = np.asarray(k) == 0
    if k0.any():
        out = np.where(k0 & (np.asarray(x) > 0), sp.exp1(x), out).astype(np.asarray(out).dtype)
        out = _scalar(np.asarray(out))
    return out


def _unregularized(k: Any, x: Any, reg: Any, log_tail: Any) -> Any:
    """``gamma(k) * reg``, redone in logarithms where the product is not the value."""
    sp = _sp()
    with np.errstate(all="ignore"):
        k, x, reg = np.broadcast_arrays(np.asarray(k), np.asarray(x), np.asarray(reg))
        out = np.array(reg * sp.gamma(k))
        redo = (np.isinf(out) | (np.isnan(out) & ~np.isnan(reg)) | ((out == 0) & (reg > 0)))
        redo &= (k > 0) & (x > 0) & np.isfinite(x)
        if redo.any():
            kk, xx, rr = (np.asarray(v[redo], dtype=np.float64) for v in (k, x, reg))
            log_v = np.log(rr) + sp.gammaln(kk)
            # the tail only where reg underflowed (x far on the small side of k for the
            # lower function, the large side for the upper), where its series converges
            # fast: elsewhere SciPy's hyp1f1(1, k + 1, x) can run for minutes (x >> k)
            tail = ~(rr > 0)
            if tail.any():
                log_v[tail] = log_tail(kk[tail], xx[tail])
            out[redo] = np.exp(log_v)
    return _scalar(out)


def chi2sf(x: Any, k: Any) -> Any:
    """The chi-squared survival function of ``x`` with ``k`` degrees of freedom:
    ``scipy.stats.chi2.sf(x, k)``, SciPy's ``chdtrc(k, x)``."""
    return _sp().chdtrc(k, x)


def xlogx(x: Any) -> Any:
    """``x * log(x)``, 0 at ``x == 0`` (SciPy's ``xlogy(x, x)``)."""
    return _sp().xlogy(x, x)


def xlogy0(x: Any, y: Any) -> Any:
    """``x * log(y)``, 0 where ``x == 0`` (SciPy's ``xlogy``)."""
    return _sp().xlogy(x, y)


def kn(n: Any, x: Any) -> Any:
    """SciPy's ``kn(n, x)``: the modified Bessel function of the second kind of integer
    order ``n`` (a float order is truncated, as SciPy does, without its warning; a
    non-finite order gives nan)."""
    n = np.asarray(n)
    if n.dtype.kind in "iub":
        return _sp().kn(n.astype(np.int64), x)
    finite = np.isfinite(n)
    order = np.where(finite, np.trunc(np.where(finite, n, 0.0)), 0.0)
    order = np.clip(order, -(2.0**62), 2.0**62).astype(np.int64)
    return np.where(finite, _sp().kn(order, x), np.nan)


# d/da of the regularized incomplete gamma function ----------------------------------------
def gammainc_da(a: Any, x: Any) -> Any:
    """``d/da gammainc(a, x)``, the derivative of the regularized lower incomplete gamma
    function in its first argument (``d/da gammaincc = -gammainc_da``).

    The power series ``P = x^a e^-x / Gamma(a+1) sum_n x^n / ((a+1)...(a+n))`` where
    ``x < a + 1``, Legendre's continued fraction of ``Q = 1 - P`` elsewhere; each
    differentiated term by term (see the module docstring).  0 at ``x == 0`` and at
    ``x == inf``; nan for ``a <= 0``, ``x < 0`` or nan.

    >>> round(float(gammainc_da(np.float64(3.0), np.float64(10.0))), 10)
    -0.0041204708
    """
    sp = _sp()
    a, x = _f64(a, x)
    out = np.full(a.shape, np.nan)
    ok = (a > 0) & (x >= 0) & ~np.isnan(a) & ~np.isnan(x)
    flat = (x == 0) | np.isinf(x) | np.isinf(a)
    out[ok & flat] = 0.0
    with np.errstate(all="ignore"):  # terms needed: at most ~9 sqrt(a), near x = a
        need = np.minimum(40 / np.abs(np.log(x / (a + 1))), 9 * np.sqrt(a)) + 10
    ok &= ~(need > MAX_TERMS)  # (nan: it would not converge)
    ser = ok & ~flat & (x < a + 1)
    cf = ok & ~flat & (x >= a + 1)
    if ser.any():
        aa, xx = a[ser], x[ser]
        log_pre = aa * np.log(xx) - xx - sp.gammaln(aa + 1)
        s, ds = _gamma_series(aa, xx)
        out[ser] = np.exp(log_pre) * (s * (np.log(xx) - sp.digamma(aa + 1)) + ds)
    if cf.any():
        aa, xx = a[cf], x[cf]
        log_pre = aa * np.log(xx) - xx - sp.gammaln(aa)
        h, dh = _gamma_fraction(aa, xx)
        out[cf] = -np.exp(log_pre) * (h * (np.log(xx) - sp.digamma(aa)) + dh)
    return _scalar(out)


def _gamma_series(a: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``S = sum_n t_n`` with ``t_0 = 1``, ``t_n = t_{n-1} x / (a + n)``, and ``dS/da``."""
    s, ds = np.ones_like(a), np.zeros_like(a)
    t, dt = np.ones_like(a), np.zeros_like(a)
    live = np.arange(a.size)
    for n in range(1, MAX_TERMS + 1):
        an = a[live] + n
        r = x[live] / an
        dt[live] = dt[live] * r - t[live] * r / an
        t[live] = t[live] * r
        s[live] += t[live]
        ds[live] += dt[live]
        done = (np.abs(t[live]) <= _EPS * np.abs(s[live])) & \
            (np.abs(dt[live]) <= _EPS * np.abs(ds[live]))
        broken = ~(np.isfinite(s[live]) & np.isfinite(ds[live]))  # overflowed: nan
        s[live[broken]] = np.nan
        live = live[~(done | broken)]
        if live.size == 0:
            break
    s[live] = np.nan
    return s, ds


def _gamma_fraction(a: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Legendre's continued fraction ``h`` of ``Q(a, x) e^x x^-a Gamma(a)`` by the modified
    Lentz method, and ``dh/da`` carried along."""
    b = x + 1 - a
    db = -np.ones_like(a)
    c, dc = np.full_like(a, 1 / _TINY), np.zeros_like(a)
    d = 1 / b
    dd = -db / b**2
    h, dh = d.copy(), dd.copy()
    live = np.arange(a.size)
    for i in range(1, MAX_TERMS + 1):
        al = a[live]
        an = -i * (i - al)
        dan = i * np.ones_like(al)
        b[live] += 2
        bl, dbl = b[live], db[live]
        dl, ddl, cl, dcl = d[live], dd[live], c[live], dc[live]
        den = an * dl + bl
        dden = dan * dl + an * ddl + dbl
        den = np.where(np.abs(den) < _TINY, _TINY, den)
        cn = bl + an / cl
        dcn = dbl + dan / cl - an * (dcl / cl) / cl
        cn = np.where(np.abs(cn) < _TINY, _TINY, cn)
        dn = 1 / den
        ddn = -dden * dn**2
        delta = dn * cn
        ddelta = ddn * cn + dn * dcn
        dh[live] = dh[live] * delta + h[live] * ddelta
        h[live] = h[live] * delta
        d[live], dd[live], c[live], dc[live] = dn, ddn, cn, dcn
        done = (np.abs(delta - 1) <= _EPS) & \
            (np.abs(ddelta * h[live]) <= _EPS * np.maximum(np.abs(dh[live]), _TINY))
        broken = ~(np.isfinite(h[live]) & np.isfinite(dh[live]))  # overflowed: nan
        h[live[broken]] = np.nan
        live = live[~(done | broken)]
        if live.size == 0:
            break
    h[live] = np.nan
    return h, dh


# d/da, d/db of the regularized incomplete beta function -----------------------------------
def betainc_dab(a: Any, b: Any, x: Any) -> tuple[Any, Any]:
    """``(d/da, d/db) betainc(a, b, x)``, the derivatives of the regularized incomplete
    beta function ``I_x(a, b)`` in its parameters.

    ``I_x(a, b) = x^a (1-x)^b / (a B(a, b)) * K`` with ``K`` the continued fraction of
    Numerical Recipes' ``betacf``, differentiated convergent by convergent, for
    ``x < (a + 1) / (a + b + 2)``; elsewhere the same for ``I_{1-x}(b, a) = 1 - I_x(a, b)``
    (see the module docstring).  0 at ``x == 0`` and ``x == 1``; nan for ``a <= 0``,
    ``b <= 0``, ``x`` outside ``[0, 1]`` or nan.

    >>> da, db = betainc_dab(np.float64(2.0), np.float64(3.0), np.float64(0.4))
    >>> round(float(da), 8), round(float(db), 8)
    (-0.24086938, 0.15634434)
    """
    a, b, x = _f64(a, b, x)
    da, db = np.full(a.shape, np.nan), np.full(a.shape, np.nan)
    ok = (a > 0) & (b > 0) & (x >= 0) & (x <= 1) & np.isfinite(a) & np.isfinite(b)
    edge = ok & ((x == 0) | (x == 1))
    da[edge] = db[edge] = 0.0
    inner = ok & ~edge
    split = (a + 1) / (a + b + 2)
    with np.errstate(all="ignore"):  # convergents needed: at most ~2 sqrt(a + b)
        near = np.where(x < split, np.log(x / split), np.log((1 - x) / (1 - split)))
        need = np.minimum(40 / np.abs(near), 2 * np.sqrt(a + b)) + 10
    inner &= ~(need > MAX_TERMS)  # (nan: it would not converge)
    direct = inner & (x < split)
    flip = inner & ~direct
    if direct.any():
        da[direct], db[direct] = _beta_parts(a[direct], b[direct], x[direct])
    if flip.any():
        # I_x(a, b) = 1 - I_{1-x}(b, a): the parameters trade places
        dq, dp = _beta_parts(b[flip], a[flip], 1 - x[flip])
        da[flip], db[flip] = -dp, -dq
    return _scalar(da), _scalar(db)


def betainc_da(a: Any, b: Any, x: Any) -> Any:
    """``d/da betainc(a, b, x)`` (:func:`betainc_dab`)."""
    return betainc_dab(a, b, x)[0]


def betainc_db(a: Any, b: Any, x: Any) -> Any:
    """``d/db betainc(a, b, x)`` (:func:`betainc_dab`)."""
    return betainc_dab(a, b, x)[1]


def _beta_parts(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(dI/da, dI/db)`` of ``I_x(a, b)`` from the continued fraction (``x`` in its region)."""
    sp = _sp()
    log_pre = a * np.log(x) + b * np.log1p(-x) - sp.betaln(a, b) - np.log(a)
    psi_ab = sp.digamma(a + b)
    dlog_a = np.log(x) - sp.digamma(a) + psi_ab - 1 / a
    dlog_b = np.log1p(-x) - sp.digamma(b) + psi_ab
    k, dk_a, dk_b = _beta_fraction(a, b, x)
    pre = np.exp(log_pre)
    return pre * (k * dlog_a + dk_a), pre * (k * dlog_b + dk_b)


def _beta_fraction(a: np.ndarray, b: np.ndarray, x: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The continued fraction of ``I_x(a, b) a B(a, b) x^-a (1-x)^-b`` (modified Lentz,
    two steps per convergent), with its derivatives in ``a`` and ``b``."""
    qab, qap = a + b, a + 1
    c = np.ones_like(a)
    dc_a, dc_b = np.zeros_like(a), np.zeros_like(a)
    d0 = 1 - qab * x / qap
    dd0_a, dd0_b = -x * (1 - b) / qap**2, -x / qap
    d0 = np.where(np.abs(d0) < _TINY, _TINY, d0)
    d = 1 / d0
    dd_a, dd_b = -dd0_a * d**2, -dd0_b * d**2
    h, dh_a, dh_b = d.copy(), dd_a.copy(), dd_b.copy()
    live = np.arange(a.size)
    for m in range(1, MAX_TERMS + 1):
        al, bl, xl = a[live], b[live], x[live]
        state = [d[live], dd_a[live], dd_b[live], c[live], dc_a[live], dc_b[live],
                 h[live], dh_a[live], dh_b[live]]
        # the even step: m (b - m) x / ((a + 2m - 1)(a + 2m))
        p, q = al + 2 * m - 1, al + 2 * m
        coef = m * (bl - m) * xl / (p * q)
        state = _lentz_step(state, coef, coef * (-1 / p - 1 / q), m * xl / (p * q))
        # the odd step: -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1))
        r = q + 1
        coef = -(al + m) * (al + bl + m) * xl / (q * r)
        dcoef_a = coef * (1 / (al + m) + 1 / (al + bl + m) - 1 / q - 1 / r)
        dcoef_b = -(al + m) * xl / (q * r)
        state = _lentz_step(state, coef, dcoef_a, dcoef_b)
        (d[live], dd_a[live], dd_b[live], c[live], dc_a[live], dc_b[live],
         h[live], dh_a[live], dh_b[live]) = state
        done = _settled(state)
        broken = ~(np.isfinite(state[6]) & np.isfinite(state[7]) & np.isfinite(state[8]))
        h[live[broken]] = np.nan  # (overflowed)
        live = live[~(done | broken)]
        if live.size == 0:
            break
    h[live] = np.nan
    return h, dh_a, dh_b


def _settled(state: list[np.ndarray]) -> np.ndarray:
    """Whether the last step changed ``h`` and its derivatives by less than eps (the
    step's factor ``d c`` is 1 within eps, its derivatives 0)."""
    d, dd_a, dd_b, c, dc_a, dc_b, h = state[:7]
    delta = d * c
    ok: np.ndarray = np.abs(delta - 1) <= _EPS
    for dd, dc, dh in ((dd_a, dc_a, state[7]), (dd_b, dc_b, state[8])):
        ddelta = dd * c + d * dc
        ok &= np.abs(ddelta * h) <= _EPS * np.maximum(np.abs(dh), _TINY)
    return ok


def _lentz_step(state: list[np.ndarray], coef: np.ndarray, dcoef_a: np.ndarray,
                dcoef_b: np.ndarray) -> list[np.ndarray]:
    """One step ``d = 1/(1 + coef d)``, ``c = 1 + coef/c``, ``h *= d c`` of the modified
    Lentz method, with the derivatives in two directions carried along."""
    d, dd_a, dd_b, c, dc_a, dc_b, h, dh_a, dh_b = state
    den = 1 + coef * d
    dden_a = dcoef_a * d + coef * dd_a
    dden_b = dcoef_b * d + coef * dd_b
    den = np.where(np.abs(den) < _TINY, _TINY, den)
    cn = 1 + coef / c
    dcn_a = dcoef_a / c - coef * (dc_a / c) / c
    dcn_b = dcoef_b / c - coef * (dc_b / c) / c
    cn = np.where(np.abs(cn) < _TINY, _TINY, cn)
    dn = 1 / den
    ddn_a, ddn_b = -dden_a * dn**2, -dden_b * dn**2
    delta = dn * cn
    dh_a = dh_a * delta + h * (ddn_a * cn + dn * dcn_a)
    dh_b = dh_b * delta + h * (ddn_b * cn + dn * dcn_b)
    return [dn, ddn_a, ddn_b, cn, dcn_a, dcn_b, h * delta, dh_a, dh_b]


# d/da, d/db, d/dc of the Gauss hypergeometric function -----------------------------------
def hyp2f1_dabc(a: Any, b: Any, c: Any, z: Any) -> tuple[Any, Any, Any]:
    """``(d/da, d/db, d/dc) hyp2f1(a, b, c, z)``.

    The Gauss series ``sum_n (a)_n (b)_n / ((c)_n n!) z^n`` differentiated term by term
    for ``0 <= z < 1``; Pfaff's ``(1-z)^-a 2F1(a, c-b; c; z/(z-1))`` for ``z < 0`` (its
    argument lies in ``(0, 1)``); at ``z == 1`` (where ``c > a + b``) Gauss's sum
    ``Gamma(c) Gamma(c-a-b) / (Gamma(c-a) Gamma(c-b))`` times digamma differences.
    0 at ``z == 0``; nan for ``z > 1``, a ``c`` that is 0 or a negative integer, nan.
    A terminating series (``a`` or ``b`` a non-positive integer) still has non-zero
    derivatives beyond its last term: they are summed too.

    >>> da, db, dc = hyp2f1_dabc(1.0, 2.0, 3.0, 0.5)
    >>> round(float(da), 8), round(float(db), 8), round(float(dc), 8)
    (0.69440078, 0.37663461, -0.2619701)
    """
    a, b, c, z = _f64(a, b, c, z)
    outs = [np.full(a.shape, np.nan) for _ in range(3)]
    bad_c = (c <= 0) & (c == np.floor(c))
    ok = np.isfinite(a) & np.isfinite(b) & np.isfinite(c) & ~bad_c & ~np.isnan(z)
    zero = ok & (z == 0)
    for o in outs:
        o[zero] = 0.0
    with np.errstate(all="ignore"):  # terms needed: about (40 + |a| + |b|) / (1 - |w|)
        w = np.where(z < 0, z / (z - 1), z)
        need = (40 + np.abs(a) + np.abs(np.where(z < 0, c - b, b))) / (1 - np.abs(w))
    summed = ok & ~(need > MAX_TERMS)  # (else nan: it would not converge)
    series = summed & (z > 0) & (z < 1)
    pfaff = summed & (z < 0) & np.isfinite(z)
    gauss = ok & (z == 1) & (c > a + b)
    if series.any():
        _, ga, gb, gc = _hyp_series(a[series], b[series], c[series], z[series])
        for o, g in zip(outs, (ga, gb, gc)):
            o[series] = g
    if pfaff.any():
        ap, bp, cp, zp = a[pfaff], b[pfaff], c[pfaff], z[pfaff]
        g, ga, gb2, gc = _hyp_series(ap, cp - bp, cp, zp / (zp - 1))
        scale = (1 - zp) ** -ap
        outs[0][pfaff] = scale * (ga - np.log1p(-zp) * g)
        outs[1][pfaff] = -scale * gb2
        outs[2][pfaff] = scale * (gb2 + gc)
    if gauss.any():
        sp = _sp()
        ag, bg, cg = a[gauss], b[gauss], c[gauss]
        f = sp.hyp2f1(ag, bg, cg, 1.0)
        s = sp.digamma(cg - ag - bg)
        outs[0][gauss] = f * (sp.digamma(cg - ag) - s)
        outs[1][gauss] = f * (sp.digamma(cg - bg) - s)
        outs[2][gauss] = f * (sp.digamma(cg) + s - sp.digamma(cg - ag) - sp.digamma(cg - bg))
    return _scalar(outs[0]), _scalar(outs[1]), _scalar(outs[2])


def hyp2f1_da(a: Any, b: Any, c: Any, z: Any) -> Any:
    """``d/da hyp2f1(a, b, c, z)`` (:func:`hyp2f1_dabc`)."""
    return hyp2f1_dabc(a, b, c, z)[0]


def hyp2f1_db(a: Any, b: Any, c: Any, z: Any) -> Any:
    """``d/db hyp2f1(a, b, c, z)`` (:func:`hyp2f1_dabc`)."""
    return hyp2f1_dabc(a, b, c, z)[1]


def hyp2f1_dc(a: Any, b: Any, c: Any, z: Any) -> Any:
    """``d/dc hyp2f1(a, b, c, z)`` (:func:`hyp2f1_dabc`)."""
    return hyp2f1_dabc(a, b, c, z)[2]


def _hyp_series(a: np.ndarray, b: np.ndarray, c: np.ndarray, z: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The Gauss series (``0 < z < 1``) and its derivatives in ``a``, ``b`` and ``c``."""
    s = np.ones_like(a)
    ds = [np.zeros_like(a) for _ in range(3)]
    t = np.ones_like(a)
    dt = [np.zeros_like(a) for _ in range(3)]
    live = np.arange(a.size)
    for n in range(MAX_TERMS):
        al, bl, cl, zl = a[live] + n, b[live] + n, c[live] + n, z[live]
        w = zl / (cl * (n + 1))
        tl = t[live]
        r = al * bl * w
        new_da = dt[0][live] * r + tl * bl * w
        new_db = dt[1][live] * r + tl * al * w
        new_dc = dt[2][live] * r - tl * r / cl
        t[live] = tl * r
        dt[0][live], dt[1][live], dt[2][live] = new_da, new_db, new_dc
        s[live] += t[live]
        small = (np.abs(r) < 1) & (np.abs(t[live]) <= _EPS * np.abs(s[live]))
        for k in range(3):
            ds[k][live] += dt[k][live]
            small &= np.abs(dt[k][live]) <= _EPS * np.maximum(np.abs(ds[k][live]), _TINY)
        broken = ~np.isfinite(s[live])
        for k in range(3):
            broken |= ~np.isfinite(ds[k][live])
        s[live[broken]] = np.nan  # (overflowed)
        live = live[~(small | broken)]
        if live.size == 0:
            break
    for arr in (s, *ds):
        arr[live] = np.nan
    return s, ds[0], ds[1], ds[2]
