"""Reading index entries: PyTensor's ``is_basic_idx``, ``as_index_literal`` and
``get_canonical_form_slice`` (re-exported by :mod:`theon.tensor.subtensor`, their
PyTensor path).

An index entry is what goes between the brackets of ``x[...]``: an integer (Python or
a 0-d integer variable), a ``slice`` whose parts are such integers or ``None``, or
``None`` (a new axis; ``NoneConst`` as a variable).

>>> import theon.tensor as tt
>>> as_index_literal(slice(tt.constant(1), None))
slice(1, None, None)
>>> slc, direction = get_canonical_form_slice(slice(None, None, -2), 5)
>>> slc, direction
(slice(0, 5, 2), -1)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from theon.graph.basic import Constant, Variable
from theon.tensor.basic import ScalarFromTensor, as_tensor_variable, cast
from theon.tensor.exceptions import NotScalarConstantError
from theon.tensor.type_other import NoneTypeT, SliceType
from theon.tensor.variable import TensorVariable

__all__ = ["as_index_literal", "get_canonical_form_slice", "is_basic_idx"]


def is_basic_idx(idx: Any) -> bool:
    """Whether the index entry ``idx`` is basic whatever the other entries are: a slice
    or a new axis (an integer is not: next to an array it takes part in advanced
    indexing).

    >>> is_basic_idx(slice(1, 3)), is_basic_idx(None), is_basic_idx(2)
    (True, True, False)
    """
    return isinstance(idx, (slice, type(None))) or isinstance(
        getattr(idx, "type", None), (SliceType, NoneTypeT)
    )


def as_index_literal(idx: Any) -> Any:
    """The Python value of the index entry ``idx``: an ``int``, ``None`` or a ``slice`` of
    them; raises :class:`NotScalarConstantError` for a part known only at run time.

    >>> import theon.tensor as tt
    >>> as_index_literal(tt.constant(3)), as_index_literal(None)
    (3, None)
    """
    if idx is None or isinstance(idx, (int, np.integer)):
        return idx
    if isinstance(idx, slice):
        return slice(*(as_index_literal(p) for p in (idx.start, idx.stop, idx.step)))
    if not isinstance(idx, Variable):
        raise TypeError(f"as_index_literal: not an index entry: {idx!r}")
    if isinstance(idx.type, NoneTypeT):
        return None
    if isinstance(idx, Constant):
        data = idx.data
        if isinstance(data, slice):
            return data
        arr = np.asarray(data)
        if arr.ndim == 0 and arr.dtype.kind in "iu":
            return int(arr)
        raise TypeError(f"as_index_literal: the constant {idx} is not an integer index")
    if idx.owner is not None and isinstance(idx.owner.op, ScalarFromTensor):
        return as_index_literal(idx.owner.inputs[0])
    raise NotScalarConstantError(f"the index entry {idx} is known only when the graph runs")


def _analyze(v: Any) -> Any:
    """``v`` as an int when known now, else as an int64 0-d tensor."""
    if v is None:
        return None
    try:
        return as_index_literal(v)
    except NotScalarConstantError:
        t = as_tensor_variable(v)
        return t if t.type.dtype == "int64" else cast(t, "int64")


def get_canonical_form_slice(theslice: Any, length: Any) -> tuple[Any, Any]:
    """``(canonical, direction)`` such that ``x[theslice]`` is ``x[canonical][::direction]``
    for any ``x`` whose indexed dimension has ``length`` entries.

    For a slice, ``canonical`` is a slice with ``0 <= start <= stop <= length`` and a
    positive step, and ``direction`` is 1, or -1 for a negative step (a variable when the
    step's sign is known only at run time).  For an integer index, ``canonical`` is the
    non-negative index (``idx + length`` for a negative one) and ``direction`` is 1.  The
    parts are ints when everything is known now, else int64 variables.

    >>> get_canonical_form_slice(slice(-3, None), 5)
    (slice(2, 5, 1), 1)
    >>> get_canonical_form_slice(-1, 4)
    (3, 1)
    """
    n = _analyze(length)
    if not isinstance(theslice, slice):
        if isinstance(theslice, Variable) and getattr(theslice.type, "ndim", 0) != 0:
            raise ValueError(f"get_canonical_form_slice: {theslice} is not a slice or a scalar")
        i = _analyze(theslice)
        if isinstance(i, int) and isinstance(n, int):
            return (i + n if i < 0 else i), 1
        from theon.tensor.math import lt, switch

        return switch(lt(i, 0), i + n, i), 1
    start, stop, step = (_analyze(p) for p in (theslice.start, theslice.stop, theslice.step))
    if step is None:
        step = 1
    if isinstance(step, int) and step == 0:
        raise ValueError("get_canonical_form_slice: slice step cannot be zero")
    known = all(isinstance(p, (int, type(None))) for p in (start, stop))
    if known and isinstance(step, int) and isinstance(n, int):
        return _literal_form(slice(start, stop, step), n)
    if isinstance(step, int):
        return _positive(start, stop, step, n) if step > 0 else _negative(start, stop, step, n)
    from theon.tensor.math import gt, switch

    pos, _ = _positive(start, stop, step, n)
    neg, _ = _negative(start, stop, step, n)
    up = gt(step, 0)
    canonical = slice(*(switch(up, a, b) for a, b in
                        zip((pos.start, pos.stop, pos.step), (neg.start, neg.stop, neg.step))))
    return canonical, switch(up, 1, -1)


def _literal_form(slc: slice, n: int) -> tuple[slice, int]:
    """The canonical form of a slice of known parts and length, through ``range``."""
    r = range(*slc.indices(n))
    if len(r) == 0:
        return slice(0, 0, 1), 1
    if r.step > 0:
        return slice(r.start, r[-1] + 1, r.step), 1
    return slice(r[-1], r.start + 1, -r.step), -1


def _clip_index(v: Any, default: Any, lo: Any, hi: Any, n: Any) -> TensorVariable:
    """A slice bound as NumPy reads it: ``default`` for None, ``v + n`` for a negative
    ``v``, then clipped to ``[lo, hi]``."""
    from theon.tensor.math import clip, lt, switch

    if v is None:
        return as_tensor_variable(default)
    return clip(switch(lt(v, 0), v + n, v), lo, hi)


def _positive(start: Any, stop: Any, step: Any, n: Any) -> tuple[slice, int]:
    """The canonical form for a positive step: the bounds clipped, ``stop >= start``."""
    from theon.tensor.math import maximum

    s = _clip_index(start, 0, 0, n, n)
    e = maximum(_clip_index(stop, n, 0, n, n), s)
    return slice(s, e, step if isinstance(step, int) else as_tensor_variable(step)), 1


def _negative(start: Any, stop: Any, step: Any, n: Any) -> tuple[slice, int]:
    """The canonical form for a negative step: the entries ``start, start + step, ...``
    above ``stop``, listed from the lowest, the other way."""
    from theon.tensor.math import gt, maximum, switch

    s = _clip_index(start, n - 1, -1, n - 1, n)
    e = _clip_index(stop, -1, -1, n - 1, n)
    count = maximum((s - e - 1) // (-step) + 1, 0)
    lo = switch(gt(count, 0), s + (count - 1) * step, 0)
    hi = switch(gt(count, 0), s + 1, 0)
    return slice(lo, hi, -step if isinstance(step, int) else as_tensor_variable(-step)), -1
