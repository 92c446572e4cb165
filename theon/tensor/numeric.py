"""Small numeric functions NumPy and PyTensor have, written with the elementwise Ops:
``divmod``, ``isposinf``/``isneginf``, ``iround``, ``round_half_away_from_zero``,
``largest``/``smallest``, ``logaddexp``, ``ceil_intdiv``, ``tri_gamma``; the batched
products ``batched_dot``, ``batched_tensordot`` (one ``einsum``), ``kron``; and the
constants ``e``, ``pi``, ``inf``, ``nan``, ``newaxis``, ``euler_gamma``.

Each is a composition, so its gradient, shapes and backends are those of the Ops it
is made of.

>>> import theon.tensor as tt
>>> x = tt.dvector("x")
>>> logaddexp(x, 0.0).eval({x: [0.0, 30.0]})
array([ 0.69314718, 30.        ])
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from theon.graph.fg import describe
from theon.tensor.basic import as_tensor_variable, cast
from theon.tensor.variable import TensorVariable

__all__ = [
    "batched_dot",
    "batched_tensordot",
    "ceil_intdiv",
    "dense_dot",
    "divmod",
    "e",
    "euler_gamma",
    "inf",
    "iround",
    "isneginf",
    "isposinf",
    "kron",
    "largest",
    "logaddexp",
    "nan",
    "newaxis",
    "pi",
    "round_half_away_from_zero",
    "smallest",
    "tri_gamma",
]

#: NumPy's constants (Python floats, as ``numpy.e`` and PyTensor's ``pt.e`` are)
e = math.e
pi = math.pi
inf = math.inf
nan = math.nan
euler_gamma = float(np.euler_gamma)
#: ``x[newaxis]`` adds an axis of length 1, as ``x[None]``
newaxis = None


def divmod(x: Any, y: Any) -> tuple[TensorVariable, TensorVariable]:
    """``(x // y, x % y)``, like ``numpy.divmod`` (floor division, the remainder with
    the sign of ``y``).

    >>> import theon.tensor as tt
    >>> x = tt.ivector("x")
    >>> [v.eval({x: [7, -7]}).tolist() for v in divmod(x, 2)]
    [[3, -4], [1, 1]]
    """
    from theon.tensor.math import floor_divide, mod

    return floor_divide(x, y), mod(x, y)


def isposinf(x: Any) -> TensorVariable:
    """Whether each element is ``+inf``, like ``numpy.isposinf``.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> isposinf(x).eval({x: [1.0, float("inf"), -float("inf")]})
    array([False,  True, False])
    """
    from theon.tensor.math import gt, isinf

    v = as_tensor_variable(x)
    return isinf(v) & gt(v, 0)


def isneginf(x: Any) -> TensorVariable:
    """Whether each element is ``-inf``, like ``numpy.isneginf``.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> isneginf(x).eval({x: [1.0, float("inf"), -float("inf")]})
    array([False, False,  True])
    """
    from theon.tensor.math import isinf, lt

    v = as_tensor_variable(x)
    return isinf(v) & lt(v, 0)


def round_half_away_from_zero(x: Any) -> TensorVariable:
    """Round to the nearest integer, halves away from zero (C's ``round``; NumPy's
    ``round`` takes halves to even).  Integers are returned as they are.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> round_half_away_from_zero(x).eval({x: [0.5, 1.5, -2.5, 0.49999999999999994]})
    array([ 1.,  2., -3.,  0.])
    """
    from theon.tensor.math import abs as tabs
    from theon.tensor.math import ge, sign, switch, trunc

    v = as_tensor_variable(x)
    if not v.type.dtype.startswith("float"):
        if v.type.dtype.startswith("complex"):
            raise TypeError(f"round_half_away_from_zero: not defined for {describe(v)}")
        return v
    t = trunc(v)
    # x - trunc(x) is exact, so the half is decided without rounding (floor(|x| + 0.5)
    # would round 0.49999999999999994 up)
    return switch(ge(tabs(v - t), 0.5), t + sign(v), t)


def iround(a: Any, mode: str | None = None) -> TensorVariable:
    """``a`` rounded and cast to int64 (PyTensor's ``iround``): ``mode`` None or
    ``'half_to_even'`` rounds as ``numpy.round``, ``'half_away_from_zero'`` as C.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> iround(x).eval({x: [0.5, 1.5, -2.7]})
    array([ 0,  2, -3])
    """
    from theon.tensor.math import round as tround

    if mode in (None, "half_to_even", "half_even"):
        r = tround(a)
    elif mode == "half_away_from_zero":
        r = round_half_away_from_zero(a)
    else:
        raise ValueError(
            f"iround: mode must be 'half_to_even' or 'half_away_from_zero', got {mode!r}")
    return cast(r, "int64")


def _fold(fn: Any, args: tuple[Any, ...], what: str) -> TensorVariable:
    if not args:
        raise TypeError(f"{what} needs at least one argument")
    out = as_tensor_variable(args[0])
    for a in args[1:]:
        out = fn(out, a)
    return out


def largest(*args: Any) -> TensorVariable:
    """The elementwise maximum of all the arguments (broadcast together; nan wins, as in
    ``numpy.maximum``).

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> largest(x, 1.0, 2 * x).eval({x: [0.0, 3.0]})
    array([1., 6.])
    """
    from theon.tensor.math import maximum

    return _fold(maximum, args, "largest")


def smallest(*args: Any) -> TensorVariable:
    """The elementwise minimum of all the arguments (broadcast together; nan wins, as in
    ``numpy.minimum``).

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> smallest(x, 1.0).eval({x: [0.0, 3.0]})
    array([0., 1.])
    """
    from theon.tensor.math import minimum

    return _fold(minimum, args, "smallest")


def _logaddexp2(x: Any, y: Any) -> TensorVariable:
    from theon.tensor.math import abs as tabs
    from theon.tensor.math import eq, exp, log1p, maximum, switch

    a, b = as_tensor_variable(x), as_tensor_variable(y)
    dt = str(np.logaddexp(np.zeros(0, a.type.dtype), np.zeros(0, b.type.dtype)).dtype)
    a = cast(a, dt) if a.type.dtype != dt else a
    b = cast(b, dt) if b.type.dtype != dt else b
    # NumPy's algorithm: equal arguments (infinities of one sign included) give x + log 2;
    # otherwise max + log1p(exp(-|x - y|)), nan when either is nan
    spread = maximum(a, b) + log1p(exp(-tabs(a - b)))
    return switch(eq(a, b), a + math.log(2.0), spread)


def logaddexp(*xs: Any) -> TensorVariable:
    """``log(exp(x1) + exp(x2) + ...)`` without overflow, like ``numpy.logaddexp`` (and
    PyTensor's, for more than two arguments); float dtypes as NumPy's.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> logaddexp(x, x, x).eval({x: [0.0]})
    array([1.09861229])
    """
    return _fold(_logaddexp2, xs, "logaddexp")


def ceil_intdiv(a: Any, b: Any) -> TensorVariable:
    """``ceil(a / b)`` for integers, computed in integers (PyTensor's ``ceil_intdiv``).

    >>> import theon.tensor as tt
    >>> a = tt.lvector("a")
    >>> ceil_intdiv(a, 2).eval({a: [3, 4, -3]})
    array([ 2,  2, -1])
    """
    from theon.tensor.math import floor_divide, neg

    # ceil(a / b) = -floor(-a / b)
    return neg(floor_divide(neg(as_tensor_variable(a)), b))


def tri_gamma(x: Any) -> TensorVariable:
    """The trigamma function ``psi'(x)``, ``polygamma(1, x)`` (``scipy.special.polygamma``).

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> tri_gamma(x).eval({x: [1.0]})
    array([1.64493407])
    """
    from theon.tensor.math import polygamma

    return polygamma(1, x)


def dense_dot(a: Any, b: Any) -> TensorVariable:
    """``dot(a, b)`` of dense tensors (PyTensor's name).

    >>> import theon.tensor as tt
    >>> dense_dot(tt.dmatrix("a"), tt.dvector("b")).type.ndim
    1
    """
    from theon.tensor.blas import dot

    return dot(a, b)


_LETTERS = "abcdefghijklmnopqrstuvwxy"  # "z" is the batch axis


def batched_tensordot(x: Any, y: Any, axes: Any = 2) -> TensorVariable:
    """``tensordot(x[i], y[i], ...)`` for each ``i`` of the first (batch) axis.

    ``axes`` is an int ``n`` (the last ``n`` axes of ``x`` with the first ``n`` axes of
    ``y`` after its batch axis) or a pair of axis lists counted on the whole tensors (the
    batch axis is 0).  The result has the batch axis, ``x``'s other axes, then ``y``'s.

    >>> import theon.tensor as tt
    >>> x, y = tt.dtensor3("x"), tt.dtensor3("y")
    >>> batched_tensordot(x, y, axes=[[2], [1]]).eval(
    ...     {x: np.ones((2, 3, 4)), y: np.ones((2, 4, 5))}).shape
    (2, 3, 5)
    """
    from theon.tensor.blas import einsum

    a, b = as_tensor_variable(x), as_tensor_variable(y)
    na, nb = a.type.ndim, b.type.ndim
    if na < 1 or nb < 1:
        raise ValueError(f"batched_tensordot: both need a batch axis, got {describe(a)} "
                         f"and {describe(b)}")
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if not 0 <= n < builtins.min(na, nb):
            raise ValueError(f"batched_tensordot: cannot sum over {n} axes of {describe(a)} "
                             f"and {describe(b)}")
        ax_a = list(range(na - n, na))
        ax_b = list(range(1, n + 1))
    else:
        first, second = axes
        ax_a = [int(i) % na for i in np.atleast_1d(first)]
        ax_b = [int(i) % nb for i in np.atleast_1d(second)]
        if len(ax_a) != len(ax_b):
            raise ValueError(f"batched_tensordot: axes {axes!r} must be two lists of one length")
        if 0 in ax_a or 0 in ax_b:
            raise ValueError("batched_tensordot: the batch axis 0 cannot be summed over")
    if na + nb - 2 * len(ax_a) - 1 > len(_LETTERS):
        raise ValueError("batched_tensordot: too many axes")
    letters = iter(_LETTERS)
    sa = ["z"] + [next(letters) for _ in range(na - 1)]
    sb = ["z"] + [""] * (nb - 1)
    for i, j in zip(ax_a, ax_b):
        sb[j] = sa[i]
    for j in range(1, nb):
        if not sb[j]:
            sb[j] = next(letters)
    summed = {sa[i] for i in ax_a}
    out = ["z"] + [c for c in sa[1:] if c not in summed] + [c for c in sb[1:] if c not in summed]
    return einsum(f"{''.join(sa)},{''.join(sb)}->{''.join(out)}", a, b)


def batched_dot(a: Any, b: Any) -> TensorVariable:
    """``dot(a[i], b[i])`` for each ``i`` of the first (batch) axis: a product when
    either ``a[i]`` or ``b[i]`` is a scalar, else the sum over the last axis of ``a[i]``
    and the second-to-last (or only) axis of ``b[i]``.

    >>> import theon.tensor as tt
    >>> a, b = tt.dmatrix("a"), tt.dmatrix("b")
    >>> batched_dot(a, b).eval({a: [[1.0, 2.0]], b: [[3.0, 4.0]]})
    array([11.])
    """
    x, y = as_tensor_variable(a), as_tensor_variable(b)
    nx, ny = x.type.ndim, y.type.ndim
    if nx < 1 or ny < 1:
        raise ValueError(f"batched_dot: both need a batch axis, got {describe(x)} and "
                         f"{describe(y)}")
    if nx == 1 or ny == 1:  # a scalar per batch entry: a product, batch axes aligned
        xs = x[(slice(None),) + (None,) * (ny - nx)] if nx < ny else x
        ys = y[(slice(None),) + (None,) * (nx - ny)] if ny < nx else y
        return xs * ys
    return batched_tensordot(x, y, axes=[[nx - 1], [builtins.max(1, ny - 2)]])


def kron(a: Any, b: Any) -> TensorVariable:
    """The Kronecker product, like ``numpy.kron`` (``theon.tensor.linalg.kron``).

    >>> import theon.tensor as tt
    >>> a, b = tt.dvector("a"), tt.dvector("b")
    >>> kron(a, b).eval({a: [1.0, 2.0], b: [1.0, 10.0]})
    array([ 1., 10.,  2., 20.])
    """
    from theon.tensor.linalg.misc import kron as linalg_kron

    return linalg_kron(a, b)
