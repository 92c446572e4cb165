"""One-dimensional interpolation: ``interp`` (``numpy.interp``) and PyTensor's
``interpolate1d`` (a function of the query points, with several methods).

Both find each query point's interval by ``searchsorted`` and gather the data there,
so they are differentiable in the query points and in the data (``xp`` and ``fp``)
wherever the interval does not change.

>>> import theon.tensor as tt
>>> x = tt.dvector("x")
>>> interp(x, [0.0, 1.0, 2.0], [0.0, 10.0, 0.0]).eval({x: [0.5, 1.5, 3.0]})
array([5., 5., 0.])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from theon.graph.fg import describe
from theon.tensor.basic import as_tensor_variable, cast
from theon.tensor.variable import TensorVariable

__all__ = ["interp", "interpolate1d"]

InterpolationMethod = Literal["linear", "nearest", "first", "last", "mean"]
_METHODS = ("linear", "nearest", "first", "last", "mean")


def _vector(v: Any, what: str, dtype: str) -> TensorVariable:
    t = as_tensor_variable(v)
    if t.type.ndim != 1:
        raise ValueError(f"{what} must be 1-d, got {describe(t)}")
    return cast(t, dtype) if t.type.dtype != dtype else t


def _periodic(x: TensorVariable, xp: TensorVariable, fp: TensorVariable,
              period: Any) -> tuple[TensorVariable, TensorVariable, TensorVariable]:
    """NumPy's periodic ``interp``: everything modulo ``period``, ``xp`` sorted, one
    point repeated at each end so the wrap-around interval exists."""
    from theon.tensor.joining import concatenate
    from theon.tensor.math import abs as tabs
    from theon.tensor.math import mod
    from theon.tensor.sort import argsort

    p = abs(float(period)) if not hasattr(period, "type") else tabs(as_tensor_variable(period))
    x = mod(x, p)
    xp = mod(xp, p)
    order = argsort(xp)
    xp, fp = xp[order], fp[order]
    xp = concatenate([xp[-1:] - p, xp, xp[0:1] + p])
    fp = concatenate([fp[-1:], fp, fp[0:1]])
    return x, xp, fp


def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None,
           period: Any = None) -> TensorVariable:
    """The piecewise-linear interpolant of the points ``(xp, fp)`` (``xp`` increasing) at
    ``x``, like ``numpy.interp``: ``left``/``right`` (default ``fp[0]``/``fp[-1]``)
    outside ``[xp[0], xp[-1]]``, ``period`` for periodic ``x``; float64 (complex128 for
    complex ``fp``), nan where ``x`` is nan.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> interp(x, [1.0, 2.0], [3.0, 5.0], left=-1.0).eval({x: [0.0, 1.25]})
    array([-1. ,  3.5])
    """
    from theon.tensor.math import eq, gt, isnan, lt, maximum, minimum, switch
    from theon.tensor.searching import searchsorted

    xv = as_tensor_variable(x)
    f_dtype = "complex128" if as_tensor_variable(fp).type.dtype.startswith("complex") \
        else "float64"
    xv = cast(xv, "float64") if xv.type.dtype != "float64" else xv
    xpv = _vector(xp, "interp: xp", "float64")
    fpv = _vector(fp, "interp: fp", f_dtype)
    if period is not None:
        if not hasattr(period, "type") and float(period) == 0:
            raise ValueError("interp: period must be a non-zero value")
        xv, xpv, fpv = _periodic(xv, xpv, fpv, period)
        left = right = None
    n = xpv.shape[0]
    j = minimum(maximum(searchsorted(xpv, xv, side="right") - 1, 0), maximum(n - 2, 0))
    j1 = minimum(j + 1, n - 1)
    x0, x1, y0, y1 = xpv[j], xpv[j1], fpv[j], fpv[j1]
    slope = (y1 - y0) / (x1 - x0)
    res = slope * (xv - x0) + y0
    # NumPy's fallbacks: from the right end when nan, then the common value of a flat step
    res = switch(isnan(res), slope * (xv - x1) + y1, res)
    res = switch(isnan(res) & eq(y0, y1), y0, res)
    res = switch(eq(xv, x0), y0, res)  # NumPy: at a data point, its value (no 0 * inf)
    res = switch(eq(xv, xpv[-1]), fpv[-1], res)
    lo = fpv[0] if left is None else cast(as_tensor_variable(left), f_dtype)
    hi = fpv[-1] if right is None else cast(as_tensor_variable(right), f_dtype)
    res = switch(lt(xv, xpv[0]), lo, switch(gt(xv, xpv[-1]), hi, res))
    return switch(isnan(xv), cast(xv, f_dtype), res)


def interpolate1d(x: Any, y: Any, method: InterpolationMethod = "linear",
                  left_pad: Any = None, right_pad: Any = None,
                  extrapolate: bool = True) -> Callable[[Any], TensorVariable]:
    """A function of query points interpolating the data ``(x, y)`` (sorted by ``x``
    first), PyTensor's ``interpolate1d``.

    ``method``: ``'linear'``; ``'nearest'`` (the nearer point's value, the left one on
    a tie); ``'first'`` (the value of the nearest point strictly to the left);
    ``'last'`` (of the nearest point at or to the right); ``'mean'`` (the mean of the
    values of the interval's two ends).  Outside ``[x[0], x[-1]]`` the linear method
    extends the end intervals and the others keep their rule (or clamp) when
    ``extrapolate``; otherwise ``left_pad``/``right_pad`` (default ``y[0]``/``y[-1]``)
    are returned (at the end points themselves, the data's values: PyTensor returns the
    pads there too).

    >>> import theon.tensor as tt
    >>> f = interpolate1d([0.0, 1.0, 2.0], [0.0, 10.0, 20.0])
    >>> q = tt.dvector("q")
    >>> f(q).eval({q: [-1.0, 0.5]})
    array([-10.,   5.])
    """
    from theon.tensor.math import gt, le, lt, maximum, minimum, switch
    from theon.tensor.searching import searchsorted
    from theon.tensor.sort import argsort

    if method not in _METHODS:
        raise ValueError(f"interpolate1d: method must be one of {', '.join(_METHODS)}, "
                         f"got {method!r}")
    xv = as_tensor_variable(x)
    yv = as_tensor_variable(y)
    if xv.type.ndim != 1 or yv.type.ndim != 1:
        raise ValueError(f"interpolate1d: x and y must be vectors, got {describe(xv)} and "
                         f"{describe(yv)}")
    order = argsort(xv)
    xs, ys = xv[order], yv[order]
    n = xs.shape[0]

    def at(i: Any) -> TensorVariable:
        return ys[minimum(maximum(i, 0), n - 1)]

    def fn(x_hat: Any) -> TensorVariable:
        q = as_tensor_variable(x_hat)
        if method == "linear":
            i = minimum(maximum(searchsorted(xs, q, side="right") - 1, 0), maximum(n - 2, 0))
            i1 = minimum(i + 1, n - 1)
            x0, x1 = xs[i], xs[i1]
            out = ys[i] + (ys[i1] - ys[i]) * ((q - x0) / (x1 - x0))
        elif method == "nearest":
            k = searchsorted(xs, q, side="left")
            lo, hi = xs[maximum(k - 1, 0)], xs[minimum(k, n - 1)]
            out = switch(le(q - lo, hi - q), at(k - 1), at(k))
        elif method == "first":
            out = at(searchsorted(xs, q, side="left") - 1)
        elif method == "last":
            out = at(searchsorted(xs, q, side="left"))
        else:
            k = minimum(maximum(searchsorted(xs, q, side="left"), 1), n - 1)
            out = (ys[k - 1] + ys[k]) / 2
        if extrapolate:
            return out
        lp = ys[0] if left_pad is None else as_tensor_variable(left_pad)
        rp = ys[-1] if right_pad is None else as_tensor_variable(right_pad)
        return switch(lt(q, xs[0]), lp, switch(gt(q, xs[-1]), rp, out))

    return fn

