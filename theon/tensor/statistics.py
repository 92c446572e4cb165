"""Statistics with NumPy's semantics: ``cov``, ``ptp``, ``quantile``/``percentile``
(NumPy's interpolation methods), ``nanmean``/``nansum``.

All are compositions (sorts, indexing, reductions, elementwise arithmetic), written to
compute what NumPy computes operation for operation, so values, dtypes and nan/inf
results agree: ``quantile`` interpolates as NumPy's ``_lerp`` does, and a slice with
a nan has a nan quantile.

>>> import theon.tensor as tt
>>> x = tt.dvector("x")
>>> quantile(x, 0.25).eval({x: [1.0, 2.0, 3.0, 4.0]})
array(1.75)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from theon.graph.basic import Variable
from theon.graph.fg import describe
from theon.tensor.arguments import as_int_tuple
from theon.tensor.basic import as_tensor_variable, cast, is_weak_scalar
from theon.tensor.variable import TensorVariable

__all__ = ["cov", "nanmean", "nansum", "percentile", "ptp", "quantile"]


def _axes(axis: Any, nd: int, what: str, of: Variable) -> tuple[int, ...]:
    """``axis`` (None, an int or a tuple) as sorted non-negative axes."""
    if axis is None:
        return tuple(range(nd))
    axes = as_int_tuple(axis, f"{what}: axis")
    out = []
    for a in axes:
        if not -nd <= a < nd:
            raise ValueError(f"{what}: axis {a} is out of range for {describe(of)}")
        out.append(a % nd)
    if len(set(out)) != len(out):
        raise ValueError(f"{what}: repeated axis in {axis!r}")
    return tuple(sorted(out))


def ptp(a: Any, axis: Any = None, keepdims: bool = False) -> TensorVariable:
    """The range ``max - min`` along ``axis``, like ``numpy.ptp`` (in ``a``'s dtype,
    so an integer range wraps as NumPy's does).

    >>> import theon.tensor as tt
    >>> m = tt.imatrix("m")
    >>> ptp(m, axis=1).eval({m: [[1, 5, 3]]})
    array([4], dtype=int32)
    """
    from theon.tensor.reduction import max as tmax
    from theon.tensor.reduction import min as tmin

    v = as_tensor_variable(a)
    if v.type.dtype == "bool":
        raise TypeError(f"ptp: NumPy cannot subtract booleans, got {describe(v)}")
    return tmax(v, axis=axis, keepdims=keepdims) - tmin(v, axis=axis, keepdims=keepdims)


# --------------------------------------------------------------------------- cov
def cov(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: Any = None,
        fweights: Any = None, aweights: Any = None, *, dtype: Any = None) -> TensorVariable:
    """The covariance matrix of the variables in the rows of ``m`` (the columns when
    ``rowvar`` is False), with ``y``'s appended, like ``numpy.cov``: normalized by
    ``N - 1`` (``N`` with ``bias``, ``N - ddof`` with ``ddof``), frequency and
    analytic weights as NumPy's, float64 at least.

    NumPy decides two things from the data's shape: a matrix whose one row is the
    observations is not transposed, and the result is squeezed.  theon decides them
    from the static shape: an unknown number of rows is taken to be more than one.

    >>> import theon.tensor as tt
    >>> x = tt.dmatrix("x")
    >>> cov(x).eval({x: [[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]})
    array([[ 1., -1.],
           [-1.,  1.]])
    """
    from theon.tensor.blas import dot
    from theon.tensor.joining import concatenate
    from theon.tensor.math import conj, maximum
    from theon.tensor.reduction import sum as tsum

    def rows(v: Any) -> TensorVariable:
        t = as_tensor_variable(v)
        if t.type.ndim > 2:
            raise ValueError(f"cov: needs a vector or matrix, got {describe(t)}")
        t = t[(None,) * (2 - t.type.ndim)] if t.type.ndim < 2 else t
        if not rowvar and t.type.shape[0] != 1:
            t = t.T
        return t

    parts = [rows(m)] + ([] if y is None else [rows(y)])
    dt = str(np.dtype(dtype)) if dtype is not None else str(
        np.result_type(*[p.type.dtype for p in parts], np.float64))
    parts = [cast(p, dt) for p in parts]
    x = parts[0] if len(parts) == 1 else concatenate(parts, axis=0)
    dd = (0 if bias else 1) if ddof is None else ddof
    n_obs = cast(x.shape[1], dt)
    w: Any = None
    if fweights is not None:
        w = cast(as_tensor_variable(fweights), "float64")
    if aweights is not None:
        aw = cast(as_tensor_variable(aweights), "float64")
        w = aw if w is None else w * aw
    if w is None:
        avg = tsum(x, axis=1) / n_obs
        fact: Any = n_obs - dd
        xc = x - avg[:, None]
        xw = xc
    else:
        w_sum = tsum(w)
        avg = tsum(x * w, axis=1) / w_sum
        if dd == 0:
            fact = w_sum
        elif aweights is None:
            fact = w_sum - dd
        else:
            fact = w_sum - dd * tsum(w * aw) / w_sum
        xc = x - avg[:, None]
        xw = xc * w
    fact = maximum(fact, 0.0)  # NumPy: a non-positive normalizer becomes 0 (inf, nan)
    c = dot(xc, conj(xw.T)) if dt.startswith("complex") else dot(xc, xw.T)
    c = c * (1.0 / fact)
    c = cast(c, dt) if c.type.dtype != dt else c
    n_var = sum(p.type.shape[0] or 2 for p in parts)
    return c[0, 0] if n_var == 1 else c


# --------------------------------------------------------------------------- quantiles
_CONTINUOUS = {  # NumPy's (alpha, beta) of the Hyndman and Fan methods
    "interpolated_inverted_cdf": (0.0, 1.0), "hazen": (0.5, 0.5), "weibull": (0.0, 0.0),
    "median_unbiased": (1 / 3.0, 1 / 3.0), "normal_unbiased": (3 / 8.0, 3 / 8.0),
}
METHODS = ("inverted_cdf", "averaged_inverted_cdf", "closest_observation", "linear",
           "lower", "higher", "midpoint", "nearest", *_CONTINUOUS)


def _discrete_index(index: Any, take_previous: Any) -> Any:
    """NumPy's boundary rule of the discrete methods: ``floor(index)`` where
    ``take_previous``, else the next integer, never below 0."""
    from theon.tensor.math import floor, maximum, switch

    prev = floor(index)
    return maximum(cast(switch(take_previous, prev, prev + 1), "int64"), 0)


def _quantile_sorted(s: TensorVariable, q: TensorVariable, method: str, weak: bool,
                     int_q: bool = False) -> TensorVariable:
    """The quantiles ``q`` of the sorted values along axis 0 of ``s``: ``q``'s axes,
    then ``s``'s other axes."""
    from theon.tensor.math import abs as tm_abs
    from theon.tensor.math import ceil, eq, floor, isnan, maximum, minimum, mod, switch
    from theon.tensor.math import round as tround

    # NumPy's sample size is a Python int: weak, so a float32 q stays float32
    n = cast(s.shape[0], q.type.dtype)
    last = n - 1
    qf = q
    integer_index: Any = None
    if method == "linear" and int_q:  # NumPy: an integer q (0 or 1) indexes directly
        integer_index = cast(last * qf, "int64")
    elif method == "linear":
        vi = last * qf
    elif method in _CONTINUOUS:
        al, be = _CONTINUOUS[method]
        vi = n * qf + (al + qf * (1 - al - be)) - 1
    elif method == "averaged_inverted_cdf":
        vi = n * qf - 1
    elif method == "midpoint":
        vi = 0.5 * (floor(last * qf) + ceil(last * qf))
    elif method == "lower":
        integer_index = cast(floor(last * qf), "int64")
    elif method == "higher":
        integer_index = cast(ceil(last * qf), "int64")
    elif method == "nearest":
        integer_index = cast(tround(last * qf), "int64")
    elif method == "inverted_cdf":
        index = n * qf - 1
        integer_index = _discrete_index(index, eq(index - floor(index), 0))
    elif method == "closest_observation":
        index = n * qf - 1 - 0.5
        odd = eq(mod(floor(index), 2), 1)
        integer_index = _discrete_index(index, eq(index - floor(index), 0) & odd)
    else:
        raise ValueError(f"quantile: method must be one of {', '.join(METHODS)}, got {method!r}")
    nan_slices = isnan(s[-1]) if s.type.dtype.startswith("float") else None
    if integer_index is not None:
        result = s[integer_index]
    else:
        prev = floor(vi)
        above = vi >= last
        below = vi < 0
        vi_nan = isnan(vi)
        top = cast(last, prev.type.dtype)
        prev = switch(above | vi_nan, top, switch(below, 0, prev))
        nxt = switch(above | vi_nan, top, switch(below, 0, minimum(prev + 1, top)))
        gamma = vi - prev
        if method == "midpoint":
            gamma = switch(eq(mod(vi, 1), 0), 0.0, 0.5)
        elif method == "averaged_inverted_cdf":
            gamma = switch(eq(gamma, 0), 0.5, 1.0)
        gamma = cast(gamma, vi.type.dtype)
        lo, hi = s[cast(maximum(prev, 0), "int64")], s[cast(nxt, "int64")]
        g, g1 = gamma, 1 - gamma
        if weak:  # a Python q: NumPy's weak promotion, the weights in the values' dtype
            wdt = str((np.zeros(0, s.type.dtype) * 0.5).dtype)
            g, g1 = cast(g, wdt), cast(g1, wdt)
        pad = (...,) + (None,) * (s.type.ndim - 1)
        # where both ends are one element (q at or past either end), NumPy's lerp is
        # ``a + (a - a) * t``: nan for an infinite ``a``.  ``hi - lo`` of one element
        # cancels to 0 once its index is a constant (x - x -> 0), so that difference is
        # written as |a| * 0 there: 0 for a finite a, nan for inf and nan
        same = (above | below | vi_nan)[pad]
        diff = switch(same, tm_abs(lo) * np.asarray(0.0, lo.type.dtype), hi - lo)
        result = switch(gamma[pad] >= 0.5, hi - diff * g1[pad], lo + diff * g[pad])
    if nan_slices is not None:
        result = switch(nan_slices, s[-1], result)
    return result


def quantile(a: Any, q: Any, axis: Any = None, method: str = "linear",
             keepdims: bool = False, *, interpolation: str | None = None) -> TensorVariable:
    """The ``q``-th quantiles (``q`` in ``[0, 1]``, a number or an array) of ``a`` along
    ``axis`` (an int, a tuple, or None for all), like ``numpy.quantile``: ``q``'s axes
    come first; ``method`` is one of NumPy's thirteen; a slice holding a nan gives nan;
    a Python ``q`` keeps a float32 ``a`` in float32, as NumPy's weak promotion does.

    >>> import theon.tensor as tt
    >>> m = tt.dmatrix("m")
    >>> quantile(m, [0.0, 0.5], axis=1, method="lower").eval({m: [[3.0, 1.0, 2.0]]})
    array([[1.],
           [2.]])
    """
    from theon.tensor.reshaping import reshape, transpose
    from theon.tensor.sort import sort

    if interpolation is not None:  # NumPy's old name of method
        method = interpolation
    v = as_tensor_variable(a)
    if v.type.dtype.startswith("complex"):
        raise TypeError(f"quantile: a must be real, got {describe(v)}")
    weak = is_weak_scalar(q)
    int_q = np.asarray(q).dtype.kind in "biu" if not isinstance(q, Variable) else \
        as_tensor_variable(q).type.dtype.startswith(("int", "uint", "bool"))
    if not isinstance(q, Variable):
        qa = np.asarray(q, dtype=np.result_type(np.asarray(q).dtype, np.float64)
                        if np.asarray(q).dtype.kind in "biu" else None)
        if qa.size and not (qa.min() >= 0 and qa.max() <= 1):
            raise ValueError("quantile: quantiles must be in the range [0, 1]")
        qv = as_tensor_variable(qa)
    else:
        qv = as_tensor_variable(q)
        if not qv.type.dtype.startswith("float"):
            qv = cast(qv, "float64")
    if qv.type.ndim > 1:
        raise ValueError(f"quantile: q must be a scalar or 1-d, got {describe(qv)}")
    nd = v.type.ndim
    axes = _axes(axis, nd, "quantile", v)
    rest = [d for d in range(nd) if d not in axes]
    moved = transpose(v, (*axes, *rest)) if nd else v[None]
    if nd and len(axes) != 1:
        k = len(axes)
        lead: Any = 1
        for d in range(k):
            lead = lead * moved.shape[d]
        moved = reshape(moved, [lead, *[moved.shape[d] for d in range(k, moved.type.ndim)]],
                        ndim=moved.type.ndim - k + 1)
    s = sort(moved, axis=0)
    result = _quantile_sorted(s, qv, method, weak, int_q)
    if keepdims:
        qd = qv.type.ndim
        idx: list[Any] = [slice(None)] * qd
        for d in range(nd):
            idx.append(None if d in axes else slice(None))
        result = result[tuple(idx)]
    return result


def percentile(a: Any, q: Any, axis: Any = None, method: str = "linear",
               keepdims: bool = False, *, interpolation: str | None = None) -> TensorVariable:
    """The ``q``-th percentiles (``q`` in ``[0, 100]``) of ``a``, like
    ``numpy.percentile``: :func:`quantile` of ``q / 100``.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> percentile(x, 50).eval({x: [1.0, 2.0, 3.0, 4.0]})
    array(2.5)
    """
    from theon.tensor.math import true_div

    if isinstance(q, Variable):
        qq: Any = true_div(q, 100)
    elif is_weak_scalar(q):
        qq = float(q) / 100
    else:
        qa = np.asarray(q)
        if qa.size and not (qa.min() >= 0 and qa.max() <= 100):
            raise ValueError("percentile: percentiles must be in the range [0, 100]")
        qq = np.true_divide(qa, 100)
    return quantile(a, qq, axis=axis, method=method, keepdims=keepdims,
                    interpolation=interpolation)


# --------------------------------------------------------------------------- nan-aware
def _nan_to_zero(v: TensorVariable) -> TensorVariable:
    from theon.tensor.basic import constant
    from theon.tensor.math import isnan, switch

    if not v.type.dtype.startswith(("float", "complex")):
        return v
    return switch(isnan(v), constant(np.zeros((), v.type.dtype)), v)


def nansum(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> TensorVariable:
    """The sum along ``axis`` with nans counted as zero, like ``numpy.nansum``.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> nansum(x).eval({x: [1.0, float("nan"), 2.0]})
    array(3.)
    """
    from theon.tensor.reduction import sum as tsum

    return tsum(_nan_to_zero(as_tensor_variable(a)), axis=axis, dtype=dtype, keepdims=keepdims)


def nanmean(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> TensorVariable:
    """The mean along ``axis`` of the elements that are not nan, like ``numpy.nanmean``
    (an all-nan slice gives nan); integers are averaged as by ``mean``.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> nanmean(x).eval({x: [1.0, float("nan"), 2.0]})
    array(1.5)
    """
    from theon.tensor.math import isnan
    from theon.tensor.reduction import mean
    from theon.tensor.reduction import sum as tsum

    v = as_tensor_variable(a)
    if not v.type.dtype.startswith(("float", "complex")):
        return mean(v, axis=axis, dtype=dtype, keepdims=keepdims)
    total = tsum(_nan_to_zero(v), axis=axis, dtype=dtype, keepdims=keepdims)
    count = tsum(~isnan(v), axis=axis, dtype="int64", keepdims=keepdims)
    out = total / count
    dt = total.type.dtype  # NumPy divides in place, into the sum's dtype
    return cast(out, dt) if out.type.dtype != dt else out
