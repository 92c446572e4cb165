"""Made arrays: ``empty``/``empty_like``, the grids ``mgrid``/``ogrid``, the spacings
``logspace``/``geomspace`` (with array bounds and ``axis``, as NumPy's), and the
window ``bartlett``.

All are compositions of ``arange``, ``alloc`` and elementwise arithmetic.

>>> logspace(0, 2, 3).eval()
array([  1.,  10., 100.])
>>> [g.eval().tolist() for g in mgrid[0:2, 0:3]]
[[[0, 0, 0], [1, 1, 1]], [[0, 1, 2], [0, 1, 2]]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from theon.graph.basic import Variable
from theon.graph.fg import describe
from theon.tensor.basic import as_tensor_variable, cast
from theon.tensor.creation import arange, broadcast_to, zeros
from theon.tensor.variable import TensorVariable

__all__ = ["bartlett", "empty", "empty_like", "geomspace", "logspace", "mgrid", "ogrid"]


def _floatx() -> str:
    from theon.config import config

    return str(config.floatX)


def empty(shape: Any, dtype: Any = None) -> TensorVariable:
    """An array of ``shape`` whose values are not to be read before they are written
    (``numpy.empty``; ``dtype`` defaults to ``config.floatX``, as in PyTensor).  theon
    fills it with zeros, so a graph that does read it is still deterministic.

    >>> empty((2, 3)).type
    TensorType(float64, shape=(2, 3))
    """
    return zeros(shape, dtype=dtype or _floatx())


def empty_like(prototype: Any, dtype: Any = None) -> TensorVariable:
    """An array with ``prototype``'s shape (and by default its dtype) whose values are
    not to be read before they are written, like ``numpy.empty_like`` (zeros here).

    >>> import theon.tensor as tt
    >>> empty_like(tt.ivector("v")).type
    TensorType(int32, shape=(None,))
    """
    from theon.tensor.math import zeros_like

    return zeros_like(prototype, dtype=dtype)


# --------------------------------------------------------------------------- grids
def _grid_axis(sl: Any, what: str) -> TensorVariable:
    """The values of one slice of ``mgrid[...]``: ``arange``, or ``linspace`` for an
    imaginary step (its modulus is the number of points, the stop included)."""
    from theon.tensor.creation import linspace

    if not isinstance(sl, slice):
        raise TypeError(f"{what}: each index must be a slice like 0:5 or 0:1:5j, got {sl!r}")
    start = 0 if sl.start is None else sl.start
    step = 1 if sl.step is None else sl.step
    if isinstance(step, complex):
        return linspace(start, sl.stop, int(abs(step)))
    if sl.stop is None:
        raise ValueError(f"{what}: a slice needs a stop, got {sl!r}")
    return arange(start, sl.stop, step)


class _Grid:
    """``mgrid[...]`` and ``ogrid[...]``: a list of one array per slice."""

    def __init__(self, sparse: bool) -> None:
        self.sparse = sparse
        self.__doc__ = (
            "Open grids (``numpy.ogrid``): one array per slice, of length 1 along the "
            "other axes." if sparse else
            "Dense grids (``numpy.mgrid``): one array per slice, each of the full shape "
            "(a list, as PyTensor's; ``stack`` it for NumPy's single array).")

    def __getitem__(self, key: Any) -> list[TensorVariable]:
        what = "ogrid" if self.sparse else "mgrid"
        keys = key if isinstance(key, tuple) else (key,)
        axes = [_grid_axis(k, what) for k in keys]
        dt = str(np.result_type(*[a.type.dtype for a in axes]))
        axes = [cast(a, dt) if a.type.dtype != dt else a for a in axes]
        nd = len(axes)
        shaped = [a[tuple(slice(None) if d == k else None for d in range(nd))]
                  for k, a in enumerate(axes)]
        if self.sparse:
            return shaped
        full = tuple(a.shape[0] for a in axes)
        return [broadcast_to(s, full) for s in shaped]

    def __repr__(self) -> str:
        return "ogrid" if self.sparse else "mgrid"


#: ``mgrid[0:3, 0:2]``: the dense coordinate arrays of a grid (a list, as PyTensor's)
mgrid = _Grid(sparse=False)
#: ``ogrid[0:3, 0:2]``: the open coordinate arrays of a grid, broadcastable together
ogrid = _Grid(sparse=True)


# --------------------------------------------------------------------------- spacings
def _spaced(start: Any, stop: Any, num: Any, endpoint: bool, axis: int,
            what: str) -> tuple[TensorVariable, str]:
    """NumPy's ``linspace`` of array bounds, as a graph: ``start + i * step`` with the
    last point exactly ``stop`` when ``endpoint``; also the dtype NumPy gives it."""
    from theon.tensor.arguments import int_value
    from theon.tensor.math import eq, maximum, switch

    a, b = as_tensor_variable(start), as_tensor_variable(stop)
    dt = str(np.result_type(np.zeros(0, a.type.dtype), np.zeros(0, b.type.dtype), 1.0))
    if dt.startswith("complex"):
        raise TypeError(f"{what}: complex bounds are not supported, got {describe(a)}, "
                        f"{describe(b)}")
    n = int_value(num)
    if n is not None and n < 0:
        raise ValueError(f"{what}: num must be non-negative, got {n}")
    a, b = cast(a, dt), cast(b, dt)
    nd = max(a.type.ndim, b.type.ndim)
    ax = axis if axis >= 0 else axis + nd + 1
    if not 0 <= ax <= nd:
        raise ValueError(f"{what}: axis {axis} is out of range for {nd}-d bounds")

    def place(v: TensorVariable, k: int) -> TensorVariable:
        v = v[(None,) * (nd - k)] if k < nd else v
        return v[(slice(None),) * ax + (None,)]

    a_, b_ = place(a, a.type.ndim), place(b, b.type.ndim)
    count = as_tensor_variable(num)
    i = cast(arange(count), dt)[(None,) * ax + (slice(None),) + (None,) * (nd - ax)]
    # num = 1 with the endpoint: one point, start (NumPy: 0 * delta + start)
    div = maximum(count - 1, 1) if endpoint else maximum(count, 1)
    y = i * ((b_ - a_) / cast(div, dt)) + a_
    if endpoint:  # NumPy sets the last point to stop exactly
        y = switch(eq(i, cast(count - 1, dt)) & (count > 1), b_, y)
    return y, dt


def _aliases(stop: Any, num: Any, end: Any, steps: Any, what: str) -> tuple[Any, Any]:
    """PyTensor's ``end``/``steps`` spellings of ``stop``/``num``."""
    if end is not None:
        if stop is not None:
            raise TypeError(f"{what}: give stop or end, not both")
        stop = end
    if steps is not None:
        num = steps
    if stop is None:
        raise TypeError(f"{what}: missing stop")
    return stop, num


def logspace(start: Any, stop: Any = None, num: Any = 50, base: Any = 10.0,
             endpoint: bool = True, dtype: Any = None, axis: int = 0, *,
             end: Any = None, steps: Any = None) -> TensorVariable:
    """``base ** linspace(start, stop, num)``, like ``numpy.logspace`` (``start``,
    ``stop`` and ``base`` may be arrays; the new axis goes at ``axis``).  ``end`` and
    ``steps`` are PyTensor's spellings of ``stop`` and ``num``.

    >>> logspace(0, 3, 4, base=2.0).eval()
    array([1., 2., 4., 8.])
    """
    from theon.tensor.layout import atleast_Nd

    stop, num = _aliases(stop, num, end, steps, "logspace")
    base_v = as_tensor_variable(base)
    if base_v.type.ndim:  # NumPy broadcasts the bounds and the base together
        start = atleast_Nd(start, n=base_v.type.ndim)
    y, dt = _spaced(start, stop, num, endpoint, axis, "logspace")
    if base_v.type.ndim:
        nd = y.type.ndim - 1
        ax = axis if axis >= 0 else axis + nd + 1
        bv = base_v[(None,) * (nd - base_v.type.ndim)]
        base_v = bv[(slice(None),) * ax + (None,)]
    out = base_v ** y if base_v.type.ndim else base ** y
    out_dt = str(np.dtype(dtype)) if dtype is not None else out.type.dtype
    return cast(out, out_dt) if out.type.dtype != out_dt else out


def geomspace(start: Any, stop: Any = None, num: Any = 50, endpoint: bool = True,
              dtype: Any = None, axis: int = 0, *, base: Any = None, end: Any = None,
              steps: Any = None) -> TensorVariable:
    """Numbers spaced evenly on a log scale from ``start`` to ``stop`` (both included
    exactly), like ``numpy.geomspace``: negative bounds give negative numbers, a zero
    bound is an error.  ``base`` (PyTensor's argument) does not change the numbers.

    >>> geomspace(1, 1000, 4).eval()
    array([   1.,   10.,  100., 1000.])
    """
    from theon.tensor.math import abs as tabs
    from theon.tensor.math import eq, log10, sign, switch

    stop, num = _aliases(stop, num, end, steps, "geomspace")
    for v in (start, stop):
        if not isinstance(v, Variable) and np.any(np.asarray(v) == 0):
            raise ValueError("geomspace: a geometric sequence cannot include zero")
    a, b = as_tensor_variable(start), as_tensor_variable(stop)
    wide = str(np.result_type(a.type.dtype, b.type.dtype, np.float64))  # NumPy's dtype
    a, b = cast(a, wide), cast(b, wide)
    # NumPy's: the sign of start; both bounds divided by it, so opposite signs give nan
    s = sign(a)
    y, dt = _spaced(log10(tabs(a)), log10(b * s), num, endpoint, axis, "geomspace")
    s_, a_, b_ = (_along(v, y, axis) for v in (s, a, b))
    out = s_ * 10.0 ** y
    i = arange(y.shape[axis if axis >= 0 else y.type.ndim + axis])
    first = _along(eq(i, 0), y, axis, vector=True)
    out = switch(first, cast(a_, out.type.dtype), out)
    if endpoint:
        last = _along(eq(i, i.shape[0] - 1) & (i.shape[0] > 1), y, axis, vector=True)
        out = switch(last, cast(b_, out.type.dtype), out)
    out_dt = str(np.dtype(dtype)) if dtype is not None else out.type.dtype
    return cast(out, out_dt) if out.type.dtype != out_dt else out


def _along(v: TensorVariable, y: TensorVariable, axis: int,
           vector: bool = False) -> TensorVariable:
    """``v`` placed against ``y``: a bound gets an axis of length 1 at ``axis``, a vector
    along ``axis`` gets length-1 axes elsewhere."""
    nd = y.type.ndim
    ax = axis if axis >= 0 else axis + nd
    if vector:
        return v[(None,) * ax + (slice(None),) + (None,) * (nd - ax - 1)]
    v = v[(None,) * (nd - 1 - v.type.ndim)] if v.type.ndim < nd - 1 else v
    return v[(slice(None),) * ax + (None,)]


def bartlett(M: Any) -> TensorVariable:
    """The Bartlett (triangular) window of ``M`` points, like ``numpy.bartlett``.

    >>> bartlett(5).eval()
    array([0. , 0.5, 1. , 0.5, 0. ])
    """
    from theon.tensor.math import le, switch

    m = as_tensor_variable(M)
    if m.type.ndim != 0 or not m.type.dtype.startswith(("int", "uint")):
        raise TypeError(f"bartlett: M must be an integer scalar, got {describe(m)}")
    n = cast(arange(1 - m, m, 2), "float64")
    half = cast(m - 1, "float64")
    safe = switch(half > 0, half, 1.0)  # M = 1: the single point is 1
    window = switch(le(n, 0), 1 + n / safe, 1 - n / safe)
    return cast(switch(m > 1, window, 1.0), "float64")
