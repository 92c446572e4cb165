"""Small helpers used by scalar ops' ``py_expr`` code: NumPy float64 semantics on Python floats.

The ``math`` module raises where NumPy returns inf or nan (``math.log(0)``,
``1.0 / 0``, ``math.exp(1000)``).  Each helper here computes with ``math`` and,
only when that raises, falls back to the NumPy/SciPy function, so results
match NumPy exactly on the edge values.  SciPy is imported on the first call
that needs it.  Generated code runs with :func:`py_namespace` as its globals.

>>> _log(0.0)
-inf
>>> _div(1.0, -0.0)
-inf
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["py_namespace"]

_INF = math.inf
_NAN = math.nan


def _guard1(fm: Callable[[float], Any], fn: Callable[[Any], Any]) -> Callable[[float], float]:
    """A unary helper: ``fm`` on Python floats, ``fn`` (NumPy) when ``fm`` raises."""

    def f(a: float) -> float:
        try:
            return float(fm(a))
        except (ValueError, OverflowError, ZeroDivisionError):
            with np.errstate(all="ignore"):
                return float(fn(np.float64(a)))

    f.__name__ = "_" + getattr(fn, "__name__", "f")
    _mark_raising(f, fm)
    return f


def _mark_raising(f: Any, fm: Any) -> None:
    """Give ``f`` a ``raising`` attribute: ``fm`` itself, where that returns the same float.

    A caller that redoes all its work on any error (a scan's fast loop) may call
    ``f.raising`` instead of ``f``: equal results where it returns, and where it
    raises the caller's rerun calls ``f``.  Only ``math``'s float functions
    qualify (``float(fm(a)) is fm(a)``'s value).
    """
    if getattr(fm, "__module__", None) == "math" and fm.__name__ not in _MATH_NOT_FLOAT:
        f.raising = fm


# math functions that return ints (the float() of a guard changes their result's type)
_MATH_NOT_FLOAT = frozenset(("floor", "ceil", "trunc", "factorial", "gcd", "lcm", "isqrt",
                             "comb", "perm", "prod", "fsum"))


def _guard2(
    fm: Callable[[float, float], Any], fn: Callable[[Any, Any], Any]
) -> Callable[[float, float], float]:
    """A binary helper: ``fm`` on Python floats, ``fn`` (NumPy) when ``fm`` raises."""

    def f(a: float, b: float) -> float:
        try:
            return float(fm(a, b))
        except (ValueError, OverflowError, ZeroDivisionError):
            with np.errstate(all="ignore"):
                return float(fn(np.float64(a), np.float64(b)))

    f.__name__ = "_" + getattr(fn, "__name__", "f")
    _mark_raising(f, fm)
    return f


def _np1(fn: Callable[[Any], Any]) -> Callable[[float], float]:
    """A unary helper that always calls NumPy/SciPy (no ``math`` equivalent)."""

    def f(a: float) -> float:
        with np.errstate(all="ignore"):
            return float(fn(np.float64(a)))

    return f


def _sps(name: str) -> Callable[[Any], Any]:
    """``scipy.special.<name>``, imported on the first call (SciPy is slow to import)."""
    fn: Callable[[Any], Any] | None = None

    def f(a: Any) -> Any:
        nonlocal fn
        if fn is None:
            import scipy.special

            fn = getattr(scipy.special, name)
        return fn(a)

    f.__name__ = name
    return f


_exp = _guard1(math.exp, np.exp)
_exp2 = _guard1(lambda a: 2.0**a, np.exp2)
_expm1 = _guard1(math.expm1, np.expm1)
_log = _guard1(math.log, np.log)
_log2 = _guard1(math.log2, np.log2)
_log10 = _guard1(math.log10, np.log10)
_log1p = _guard1(math.log1p, np.log1p)
_sqrt = _guard1(math.sqrt, np.sqrt)
_sin = _guard1(math.sin, np.sin)
_cos = _guard1(math.cos, np.cos)
_tan = _guard1(math.tan, np.tan)
_arcsin = _guard1(math.asin, np.arcsin)
_arccos = _guard1(math.acos, np.arccos)
_arctan = _guard1(math.atan, np.arctan)
_sinh = _guard1(math.sinh, np.sinh)
_cosh = _guard1(math.cosh, np.cosh)
_tanh = _guard1(math.tanh, np.tanh)
_arcsinh = _guard1(math.asinh, np.arcsinh)
_arccosh = _guard1(math.acosh, np.arccosh)
_arctanh = _guard1(math.atanh, np.arctanh)
_arctan2 = _guard2(math.atan2, np.arctan2)
# copysign keeps NumPy's signed zeros (np.ceil(-0.5) is -0.0)
_floor = _guard1(lambda a: math.copysign(math.floor(a), a), np.floor)
_ceil = _guard1(lambda a: math.copysign(math.ceil(a), a), np.ceil)
_trunc = _guard1(lambda a: math.copysign(math.trunc(a), a), np.trunc)
_round = _guard1(lambda a: math.copysign(round(a), a), np.round)
_div = _guard2(lambda a, b: a / b, np.true_divide)
_floordiv = _guard2(lambda a, b: a // b, np.floor_divide)
_mod = _guard2(lambda a, b: a % b, np.mod)


def _pow_float(a: float, b: float) -> float:
    """``math.pow``, except that NumPy computes ``x ** 0.5`` as ``sqrt(x)`` (so -0.0 -> -0.0)."""
    if b == 0.5:
        return math.sqrt(a)
    return math.pow(a, b)


_pow = _guard2(_pow_float, np.power)
_erf = _guard1(math.erf, _sps("erf"))
_erfc = _guard1(math.erfc, _sps("erfc"))
_gamma = _guard1(math.gamma, _sps("gamma"))
_erfinv = _np1(_sps("erfinv"))
_erfcinv = _np1(_sps("erfcinv"))
_psi = _np1(_sps("psi"))
# math.lgamma differs from SciPy by a few ulp and at -inf
_gammaln = _np1(_sps("gammaln"))
# scipy.special.expit where sigmoid's spelling would overflow exp(-a) (a below about -709.78)
_expit_tail = _np1(_sps("expit"))


def _maximum(a: float, b: float) -> float:
    """``np.maximum``: nan propagates; ties give ``b`` (NumPy's choice for signed zeros)."""
    if a > b:
        return a
    if b >= a:
        return b
    return a + b


def _minimum(a: float, b: float) -> float:
    """``np.minimum``: nan propagates; ties give ``b``."""
    if a < b:
        return a
    if b <= a:
        return b
    return a + b


def _log1mexp(a: float) -> float:
    """``log(1 - exp(a))`` for ``a <= 0``, accurate at both ends; nan for ``a > 0``."""
    if a < -0.6931471805599453:
        return math.log1p(-math.exp(a))
    if a < 0.0:
        return math.log(-math.expm1(a))
    if a == 0.0:
        return -_INF
    return _NAN


def _clip(a: float, lo: float, hi: float) -> float:
    """``np.clip`` on floats (nan propagates)."""
    return _minimum(_maximum(a, lo), hi)


def py_namespace() -> dict[str, Any]:
    """The globals that ``py_expr`` code needs: ``math``, ``inf``, ``nan`` and the helpers.

    >>> ns = py_namespace()
    >>> eval("_exp(a)", ns, {"a": 1000.0})
    inf
    """
    ns: dict[str, Any] = {"math": math, "inf": _INF, "nan": _NAN, "np": np}
    for k, v in globals().items():
        if (
            k.startswith("_")
            and not k.startswith("__")
            and callable(v)
            and k
            not in (
                "_guard1",
                "_guard2",
                "_np1",
                "_sps",
            )
        ):
            ns[k] = v
    return ns
