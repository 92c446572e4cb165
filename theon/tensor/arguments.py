"""Integer arguments as users give them: Python ints, NumPy integers, 0-d integer arrays.

NumPy takes ``np.int64(1)`` and ``np.array(1)`` wherever it takes ``1`` (an axis, a
length, an entry of a permutation), and a 1-d integer array wherever it takes a tuple
of them.  The functions of ``theon.tensor`` that read such an argument while building
a graph go through :func:`as_int` and :func:`as_int_tuple` (axes also through
:func:`axis_index`), so each accepts the same spellings and refuses the rest with an
error that names the argument.

>>> import numpy as np
>>> as_int(np.array(3), "n"), as_int_tuple(np.array([1, 0]), "axes")
(3, (1, 0))
>>> axis_index(np.int64(-1), 3)
2
"""

from __future__ import annotations

from typing import Any

import numpy as np

from theon.graph.basic import Constant, Variable
from theon.graph.fg import describe

__all__ = ["as_int", "as_int_tuple", "axis_index", "int_value", "reduction_axes"]


def int_value(v: Any) -> int | None:
    """``v`` as a Python int when it is an integer known now, else None.

    Integers are Python ints, NumPy integers, and 0-d integer arrays or constants;
    booleans are not (NumPy refuses ``axis=True`` too).

    >>> int_value(2), int_value(np.uint8(2)), int_value(np.array(2)), int_value(2.0)
    (2, 2, 2, None)
    """
    if isinstance(v, (bool, np.bool_)):
        return None
    if isinstance(v, int):
        return int(v)
    if isinstance(v, np.integer):
        return int(v)
    data = v.data if isinstance(v, Constant) else v
    if isinstance(data, np.ndarray) and data.ndim == 0 and data.dtype.kind in "iu":
        return int(data)
    return None


def _shown(v: Any) -> str:
    if isinstance(v, Variable):
        return describe(v)
    return f"{type(v).__name__} {v!r}"


def as_int(v: Any, what: str) -> int:
    """``v`` as a Python int (see :func:`int_value`); ``TypeError`` naming ``what`` if it
    is not an integer.

    >>> as_int(np.int32(4), "n")
    4
    """
    r = int_value(v)
    if r is None:
        raise TypeError(f"{what} must be an integer, got {_shown(v)}")
    return r


def as_int_tuple(v: Any, what: str) -> tuple[int, ...]:
    """An integer, or a tuple, list or 1-d array (or constant) of integers, as a tuple
    of Python ints; ``TypeError`` naming ``what`` for anything else.

    An empty array is an empty tuple whatever its dtype (``np.array([])`` is float64).

    >>> as_int_tuple(1, "axis"), as_int_tuple((np.array(0), np.int64(2)), "axis")
    ((1,), (0, 2))
    >>> as_int_tuple(np.array([]), "shape")
    ()
    """
    r = int_value(v)
    if r is not None:
        return (r,)
    data = v.data if isinstance(v, Constant) else v
    if isinstance(data, np.ndarray):
        if data.ndim == 1 and (data.dtype.kind in "iu" or data.size == 0):
            return tuple(int(a) for a in data)
        raise TypeError(
            f"{what} must be an integer or a vector of integers, got an array of dtype "
            f"{data.dtype} and shape {data.shape}"
            + (f": {describe(v)}" if isinstance(v, Variable) else "")
        )
    if isinstance(v, (tuple, list)):
        out = []
        for k, a in enumerate(v):
            e = int_value(a)
            if e is None:
                raise TypeError(f"{what} must hold integers, but entry {k} of {v!r} is "
                                f"{_shown(a)}")
            out.append(e)
        return tuple(out)
    raise TypeError(f"{what} must be an integer or a sequence of integers, got {_shown(v)}")


def axis_index(axis: Any, ndim: int, what: str = "axis", of: Variable | None = None) -> int:
    """``axis`` (an integer, negative from the end) as an index in ``range(ndim)``.

    Out of range: NumPy's ``AxisError`` (a ``ValueError`` and an ``IndexError``), naming
    ``what`` and the variable ``of`` when given.

    >>> axis_index(-1, 2)
    1
    """
    a = as_int(axis, what)
    if not -ndim <= a < ndim:
        where = f"{describe(of)}, which has" if of is not None else "an array of"
        raise np.exceptions.AxisError(
            f"{what} {a} is out of bounds for {where} {ndim} dimension{'s' * (ndim != 1)}"
        )
    return a % ndim


def reduction_axes(
    axis: Any, ndim: int, what: str = "axis", of: Variable | None = None
) -> tuple[int, ...] | None:
    """A reduction's ``axis`` (an integer, negative from the end, a sequence or 1-d array
    of them, or None for all) as a sorted tuple of non-negative ints, or None.

    A symbolic entry must be a constant.  Errors name ``what`` and the variable ``of``.

    >>> reduction_axes(-1, 3), reduction_axes((0, np.array(-1)), 2), reduction_axes(None, 2)
    ((2,), (0, 1), None)
    """
    if axis is None:
        return None
    if isinstance(axis, (list, tuple)):
        axis = [_known(a, what) for a in axis]
    else:
        axis = _known(axis, what)
    out: list[int] = []
    for a in as_int_tuple(axis, what):
        k = axis_index(a, ndim, what, of)
        if k in out:
            shown = tuple(axis) if isinstance(axis, list) else axis
            raise ValueError(f"repeated {what} {k} in {shown!r}"
                             + (f" for {describe(of)}" if of is not None else ""))
        out.append(k)
    return tuple(sorted(out))


def _known(a: Any, what: str) -> Any:
    """A symbolic entry as the value of the constant it is (other entries unchanged)."""
    if not isinstance(a, Variable) or isinstance(a, Constant):
        return a
    from theon.tensor.basic import NotScalarConstantError, get_scalar_constant_value

    try:
        value = get_scalar_constant_value(a)
    except NotScalarConstantError:
        raise TypeError(f"{what} must be known when the graph is built, got {describe(a)}"
                        ) from None
    return np.asarray(value)
