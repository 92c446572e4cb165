"""``pad``: NumPy's ``numpy.pad`` with its modes, as a graph.

Each axis is padded in turn (axis 0 first, as NumPy does, so the corners of later
axes see the padding of earlier ones).  Every mode is one gather along the axis
(``take`` with a computed index vector: clipped for ``edge``, modular for ``wrap``,
mirrored for ``reflect`` and ``symmetric``) and, for the modes that make new values,
a ``switch`` choosing the padded positions' values.  The ``'odd'`` reflections use
the exact extension NumPy builds: each reflection is ``2 * edge - value``, so one
period further on adds ``2 * (last - first)``.

>>> import theon.tensor as tt
>>> x = tt.dvector("x")
>>> pad(x, (2, 1), mode="reflect").eval({x: [1.0, 2.0, 3.0]})
array([3., 2., 1., 2., 3., 2.])
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from theon.graph.basic import Variable
from theon.graph.fg import describe
from theon.tensor.basic import as_tensor_variable, cast
from theon.tensor.variable import TensorVariable

__all__ = ["pad"]

PadMode = Literal["constant", "edge", "linear_ramp", "maximum", "minimum", "mean", "median",
                  "wrap", "symmetric", "reflect", "empty"]
_MODES = ("constant", "edge", "linear_ramp", "maximum", "minimum", "mean", "median", "wrap",
          "symmetric", "reflect", "empty")
_KWARGS = {"constant": {"constant_values"}, "linear_ramp": {"end_values"},
           "maximum": {"stat_length"}, "minimum": {"stat_length"}, "mean": {"stat_length"},
           "median": {"stat_length"}, "reflect": {"reflect_type"},
           "symmetric": {"reflect_type"}}


def _as_pairs(value: Any, nd: int, what: str, as_index: bool = False) -> list[tuple[Any, Any]]:
    """NumPy's broadcasting of a pad argument to one ``(before, after)`` pair per axis:
    a scalar, a pair, or a sequence of pairs."""
    if value is None:
        return [(None, None)] * nd
    if as_index and isinstance(value, Variable):
        raise TypeError(f"pad: {what} must be integers known when the graph is built, got "
                        f"{describe(value)}")
    if isinstance(value, Variable) and as_tensor_variable(value).type.ndim == 0:
        return [(value, value)] * nd
    if isinstance(value, Variable):
        raise TypeError(f"pad: {what} must be a scalar or nested sequences, got {describe(value)}")
    arr = np.asarray(value, dtype=object)
    if arr.ndim == 0:
        pairs = [(value, value)] * nd
    elif arr.shape == (1,):
        pairs = [(arr[0], arr[0])] * nd
    elif arr.shape == (2,) and nd != 2 or arr.shape == (2,) and not isinstance(arr[0], tuple):
        pairs = [(arr[0], arr[1])] * nd
    elif arr.shape == (1, 2):
        pairs = [(arr[0, 0], arr[0, 1])] * nd
    elif arr.shape == (nd, 2):
        pairs = [(arr[d, 0], arr[d, 1]) for d in range(nd)]
    elif arr.shape == (nd, 1):
        pairs = [(arr[d, 0], arr[d, 0]) for d in range(nd)]
    else:
        raise ValueError(f"pad: {what} {value!r} does not broadcast to ({nd}, 2)")
    if as_index:
        out = []
        for b, a in pairs:
            if not all(isinstance(v, (int, np.integer)) for v in (b, a)):
                raise TypeError(f"pad: {what} must be integers, got {value!r}")
            if b < 0 or a < 0:
                raise ValueError(f"pad: {what} cannot be negative, got {value!r}")
            out.append((int(b), int(a)))
        return out
    return pairs


def _along(v: TensorVariable, axis: int, nd: int) -> TensorVariable:
    """A vector laid along ``axis`` of an ``nd``-d array."""
    return v[(None,) * axis + (slice(None),) + (None,) * (nd - axis - 1)]


def _round_like(v: TensorVariable, dtype: str) -> TensorVariable:
    """NumPy's ``_round_if_needed``: round half to even before a cast to integers."""
    from theon.tensor.math import round as tround

    if dtype.startswith(("int", "uint")):
        v = tround(v)
    return cast(v, dtype)


def _slab(x: TensorVariable, axis: int, lo: Any, hi: Any) -> TensorVariable:
    return x[(slice(None),) * axis + (slice(lo, hi),)]


def _edge(x: TensorVariable, axis: int, k: Any) -> TensorVariable:
    """The slice ``k`` along ``axis``, kept as an axis of static length 1 (so it
    broadcasts against the padded axis)."""
    return x[(slice(None),) * axis + (k,)][(slice(None),) * axis + (None,)]


def _stat(mode: str, part: TensorVariable, axis: int, dtype: str) -> TensorVariable:
    """The statistic of ``part`` along ``axis``, kept as an axis of length 1."""
    from theon.tensor.math import max as tmax
    from theon.tensor.math import mean, median
    from theon.tensor.math import min as tmin

    if mode == "maximum":
        return tmax(part, axis=axis, keepdims=True)
    if mode == "minimum":
        return tmin(part, axis=axis, keepdims=True)
    if mode == "mean":
        return _round_like(mean(part, axis=axis, keepdims=True), dtype)
    m = median(part, axis=axis)
    return _round_like(m[(slice(None),) * axis + (None,)], dtype)


def _pad_axis(x: TensorVariable, axis: int, before: int, after: int, mode: str,
              opts: dict[str, Any]) -> TensorVariable:
    from theon.tensor.creation import arange
    from theon.tensor.math import clip, floor_divide, ge, lt, maximum, minimum, mod, switch
    from theon.tensor.subtensor import take

    if before == 0 and after == 0:
        return x
    nd = x.type.ndim
    dt = x.type.dtype
    n = x.shape[axis]
    j = arange(-before, n + after)  # the source position of each output position
    jl = _along(j, axis, nd)
    left, right = lt(jl, 0), ge(jl, n)

    if mode in ("constant", "empty", "edge", "linear_ramp", "maximum", "minimum", "mean",
                "median"):
        inner = take(x, clip(j, 0, n - 1), axis=axis)  # the edge values outside
        if mode == "edge":
            return inner
        if mode in ("constant", "empty"):
            cb, ca = opts.get("constant", (0, 0))
            return switch(left, cast(as_tensor_variable(cb), dt),
                          switch(right, cast(as_tensor_variable(ca), dt), inner))
        if mode == "linear_ramp":
            from theon.tensor.math import floor

            ends = opts.get("end", (0, 0))
            # NumPy's linspace(end, edge, width, endpoint=False, dtype=x's): computed in
            # the float dtype linspace picks, i * step + end, floored for integers
            first = ends[0]
            sample = np.zeros((), as_tensor_variable(first).type.dtype) \
                if isinstance(first, Variable) else first
            wt = str(np.linspace(sample, np.zeros(1, dt), 1, endpoint=False).dtype)
            eb, ea = (cast(as_tensor_variable(e), wt) for e in ends)
            edge_b = cast(_edge(x, axis, 0), wt)
            edge_a = cast(_edge(x, axis, n - 1), wt)
            i_b = cast(jl + before, wt)
            i_a = cast(after - 1 - (jl - n), wt)
            ramp_b = i_b * ((edge_b - eb) / before) + eb if before else eb
            ramp_a = i_a * ((edge_a - ea) / after) + ea if after else ea
            if dt.startswith(("int", "uint")):
                ramp_b, ramp_a = floor(ramp_b), floor(ramp_a)
            return switch(left, cast(ramp_b, dt), switch(right, cast(ramp_a, dt), inner))
        lb, la = opts.get("stat", (None, None))
        sb = n if lb is None else minimum(maximum(lb, 1), n)
        sa = n if la is None else minimum(maximum(la, 1), n)
        stat_b = _stat(mode, _slab(x, axis, 0, sb), axis, dt)
        stat_a = _stat(mode, _slab(x, axis, n - sa, n), axis, dt)
        return switch(left, stat_b, switch(right, stat_a, inner))

    if mode == "wrap":
        return take(x, mod(j, n), axis=axis)
    odd = opts.get("reflect_type", "even") == "odd"
    if mode == "symmetric":
        period = 2 * n
        r = mod(j, period)
        mirror = ge(r, n)
        src = switch(mirror, period - 1 - r, r)
    else:  # reflect: the edges are not repeated; a single element is its own mirror
        period = maximum(2 * (n - 1), 1)
        r = mod(j, period)
        mirror = ge(r, n)
        src = switch(mirror, period - r, r)
    out = take(x, src, axis=axis)
    if not odd:
        return out
    first, last = _edge(x, axis, 0), _edge(x, axis, n - 1)
    shift = cast(_along(floor_divide(j, period), axis, nd), dt)
    mirrored = switch(_along(mirror, axis, nd), 2 * last - out, out)
    return mirrored + shift * (2 * (last - first))


def pad(x: Any, pad_width: Any, mode: PadMode = "constant", **kwargs: Any) -> TensorVariable:
    """``x`` padded, like ``numpy.pad``: ``pad_width`` is an int, a ``(before, after)``
    pair, or one pair per axis (integers known when the graph is built); ``mode`` is
    one of NumPy's (``'empty'`` pads with zeros), with its keyword arguments
    (``constant_values``, ``end_values``, ``stat_length``, ``reflect_type``).

    >>> import theon.tensor as tt
    >>> m = tt.dmatrix("m")
    >>> pad(m, 1, constant_values=9.0).eval({m: [[1.0]]})
    array([[9., 9., 9.],
           [9., 1., 9.],
           [9., 9., 9.]])
    """
    v = as_tensor_variable(x)
    if mode not in _MODES:
        raise ValueError(f"pad: mode must be one of {', '.join(_MODES)}, got {mode!r}")
    extra = set(kwargs) - _KWARGS.get(mode, set())
    if extra:
        raise TypeError(f"pad: unsupported keyword arguments for mode {mode!r}: {sorted(extra)}")
    nd = v.type.ndim
    widths = _as_pairs(pad_width, nd, "pad_width", as_index=True)
    opts: dict[str, Any] = {}
    per_axis: dict[str, list[tuple[Any, Any]]] = {}
    if mode == "constant":
        per_axis["constant"] = _as_pairs(kwargs.get("constant_values", 0), nd, "constant_values")
    if mode == "linear_ramp":
        per_axis["end"] = _as_pairs(kwargs.get("end_values", 0), nd, "end_values")
    if mode in ("maximum", "minimum", "mean", "median"):
        per_axis["stat"] = _as_pairs(kwargs.get("stat_length"), nd, "stat_length")
    if mode in ("reflect", "symmetric"):
        rt = kwargs.get("reflect_type", "even")
        if rt not in ("even", "odd"):
            raise ValueError(f"pad: reflect_type must be 'even' or 'odd', got {rt!r}")
        opts["reflect_type"] = rt
    out = v
    for d, (b, a) in enumerate(widths):
        axis_opts = dict(opts)
        for key, pairs in per_axis.items():
            axis_opts[key] = pairs[d]
        out = _pad_axis(out, d, b, a, mode, axis_opts)
    return out
