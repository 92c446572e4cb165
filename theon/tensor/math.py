"""Elementwise tensor functions (one ``Elemwise`` per scalar op) and the reductions.

Each elementwise function is an :class:`~theon.tensor.elemwise.Elemwise` Op
instance, so ``add`` can be used both as a function (``add(x, y, z)``) and as
the ``op`` of an explicit ``Apply`` (seed 000's long example).  Names follow
NumPy (``exp``, ``maximum``, ``true_divide``, ``where``) and Theano (``true_div``,
``int_div``, ``switch``, ``neq``, ``sqr``).

>>> import theon.tensor as tt
>>> x = tt.dvector("x")
>>> exp(x).owner.op is exp
True
>>> add(x, x, 1.0).eval({x: [1.0, 2.0]})
array([3., 5.])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import theon.scalar as ts
from theon.graph.basic import Variable
from theon.graph.null_type import disconnected_type
from theon.scalar import table
from theon.scalar.basic import BinaryScalarOp, _discrete
from theon.scalar.type import ScalarType
from theon.tensor import blas, extra_ops
from theon.tensor.basic import as_tensor_variable, cast, constant
from theon.tensor.elemwise import Elemwise
from theon.tensor.reduction import (
    all,
    any,
    argmax,
    argmin,
    logsumexp,
    max,
    mean,
    min,
    prod,
    std,
    sum,
    var,
)


class Second(BinaryScalarOp):
    """``second(a, b) = b``, broadcast against ``a`` (Theano's ``fill``).

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> second(x, 2.0).eval({x: [0.0, 0.0]})
    array([2., 2.])
    """

    name = "second"

    def output_types(self, *types: ScalarType) -> list[ScalarType]:
        return [types[1]]

    def impl(self, a: Any, b: Any) -> Any:  # type: ignore[override]
        shape = np.broadcast_shapes(np.shape(a), np.shape(b))
        b = np.asarray(b)
        if b.shape == shape:
            return b.copy()
        out = np.empty(shape, dtype=b.dtype)
        out[...] = b
        return out

    def py_expr(self, a: str, b: str) -> str:  # type: ignore[override]
        return b

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        a, b = inputs
        ga = disconnected_type() if _discrete(a) else ts.constant(0, dtype=a.type.dtype)  # type: ignore[attr-defined]
        gb = disconnected_type() if _discrete(b) else output_grads[0]
        return [ga, gb]


def _ew(scalar_op: Any, doc: str, np_name: str | None = None) -> Elemwise:
    """The Elemwise of ``scalar_op`` with a docstring for the tensor function."""
    op = Elemwise(scalar_op)
    like = f" Like ``numpy.{np_name}``." if np_name else ""
    nin = scalar_op.nin if scalar_op.nin > 0 else 2
    args = ", ".join(f'tt.dvector("{c}")' for c in "xyz"[:nin])
    op.__doc__ = (
        f"{doc}\n\nElementwise with broadcasting; Python numbers follow NumPy 2's dtype "
        f"rules.{like}\n\n>>> import theon.tensor as tt\n"
        f">>> y = tt.math.{scalar_op}({args})\n"
    )
    return op


def _elementwise_functions() -> dict[str, Elemwise]:
    """The tensor function of each row of the scalar op table, under its name and aliases."""
    fns: dict[str, Elemwise] = {}
    for row in table.ROWS:
        fn = _ew(table.OPS[row.name], row.tdoc, row.numpy)
        for name in (row.tensor or row.name, *row.aliases):
            fns[name] = fn
    return fns


# elementwise functions -----------------------------------------------------------------------
# One per row of theon.scalar.table (its docstring, NumPy name and aliases come from the row),
# and the few scalar ops written out by hand.
_ELEMWISE = _elementwise_functions()
globals().update(_ELEMWISE)
# the generated functions that the functions below call, by name
(abs, add, and_, eq, isfinite, isnan, le, maximum, minimum, mul, or_, sub, true_div) = (
    _ELEMWISE[n]
    for n in (
        "abs", "add", "and_", "eq", "isfinite", "isnan", "le", "maximum", "minimum", "mul",
        "or_", "sub", "true_div",
    )
)
reciprocal = inv = _ew(ts.reciprocal, "Reciprocal ``1 / x`` (Theano's ``inv``).", "reciprocal")
round_half_to_even = _ew(ts.round_half_to_even, "Round half to even.", "rint")
switch = _ew(ts.switch, "``x`` where ``cond`` is true, else ``y``.", "where")
polygamma = _ew(ts.polygamma, "Polygamma function ``psi^(n)(x)`` (``polygamma(n, x)``).", None)
second = fill = _ew(Second(), "``y`` broadcast to the shape of ``x`` (Theano's ``fill``).")

__all__ = [
    "all", "allclose", "any", "argmax", "argmin", "cast", "clip", "deg2rad", "dot", "fill",
    "isclose", "logsumexp", "matmul", "max", "mean", "min", "ones_like", "outer", "polygamma",
    "prod", "rad2deg", "reciprocal", "round", "round_half_to_even", "second", "std", "sum",
    "switch", "tensordot", "var", "where", "zeros_like",
    # the spellings of Theano and PyTensor (theon.tensor.math below)
    "inv", "matvec", "max_and_argmax", "median", "nan_to_num", "vecdot", "vecmat",
]
__all__ = sorted([*__all__, *_ELEMWISE])


# functions with extra arguments ---------------------------------------------------------------
def round(x: Any, decimals: int = 0, mode: str = "half_to_even") -> Variable:
    """Round to ``decimals`` decimals, half to even, like ``numpy.round``.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> round(x).eval({x: [0.5, 1.5, 2.6]})
    array([0., 2., 3.])
    """
    if mode not in ("half_to_even", "half_even"):
        raise ValueError(f"round: only mode='half_to_even' (NumPy's) is supported, got {mode!r}")
    x = as_tensor_variable(x)
    dt = x.type.dtype
    if dt.startswith(("float", "complex")):
        if decimals == 0:
            return round_half_to_even(x)  # type: ignore[no-any-return]
        f = 10.0**decimals
        return true_div(round_half_to_even(mul(x, f)), f)  # type: ignore[no-any-return]
    if decimals >= 0:
        return x
    k = 10 ** (-decimals)
    return cast(mul(round_half_to_even(true_div(x, k)), k), dt)


def clip(x: Any, a_min: Any, a_max: Any) -> Variable:
    """Limit ``x`` to ``[a_min, a_max]`` (``None`` for no bound), like ``numpy.clip``.

    >>> import theon.tensor as tt
    >>> x = tt.fvector("x")
    >>> clip(x, 0, 1.5).eval({x: [-1.0, 0.5, 3.0]})
    array([0. , 0.5, 1.5], dtype=float32)
    """
    if a_min is None and a_max is None:
        raise ValueError("clip: a_min and a_max cannot both be None")
    if a_min is None:
        return minimum(x, a_max)  # type: ignore[no-any-return]
    if a_max is None:
        return maximum(x, a_min)  # type: ignore[no-any-return]
    return _clip(x, a_min, a_max)  # type: ignore[no-any-return]


_clip = _ew(ts.clip, "Clip with both bounds.", "clip")


def where(cond: Any, x: Any = None, y: Any = None) -> Any:
    """``x`` where ``cond`` is true, else ``y``, like ``numpy.where``.

    With only ``cond``, the indices of its non-zero elements (``nonzero``).

    >>> import theon.tensor as tt
    >>> v = tt.dvector("v")
    >>> where(v > 0, v, 0.0).eval({v: [-1.0, 2.0]})
    array([0., 2.])
    """
    if x is None and y is None:
        return extra_ops.nonzero(cond)
    if x is None or y is None:
        raise ValueError("where: give both x and y, or neither")
    return switch(cond, x, y)


def zeros_like(x: Any, dtype: Any = None) -> Variable:
    """Zeros with the shape (and by default the dtype) of ``x``.

    >>> import theon.tensor as tt
    >>> zeros_like(tt.fmatrix("m")).type
    TensorType(float32, shape=(None, None))
    """
    x = as_tensor_variable(x)
    return second(x, constant(0, dtype=dtype or x.type.dtype))  # type: ignore[no-any-return]


def ones_like(x: Any, dtype: Any = None) -> Variable:
    """Ones with the shape (and by default the dtype) of ``x``.

    >>> import theon.tensor as tt
    >>> ones_like(tt.ivector("v")).dtype
    'int32'
    """
    x = as_tensor_variable(x)
    return second(x, constant(1, dtype=dtype or x.type.dtype))  # type: ignore[no-any-return]


def deg2rad(x: Any) -> Variable:
    """Degrees to radians, like ``numpy.deg2rad``.

    >>> import theon.tensor as tt
    >>> y = deg2rad(tt.dvector("d"))
    """
    return mul(x, np.pi / 180.0)  # type: ignore[no-any-return]


def rad2deg(x: Any) -> Variable:
    """Radians to degrees, like ``numpy.rad2deg``.

    >>> import theon.tensor as tt
    >>> y = rad2deg(tt.dvector("r"))
    """
    return mul(x, 180.0 / np.pi)  # type: ignore[no-any-return]


def isclose(a: Any, b: Any, rtol: float = 1e-5, atol: float = 1e-8,
            equal_nan: bool = False) -> Variable:
    """Whether ``a`` and ``b`` are equal within tolerance, like ``numpy.isclose``.

    ``|a - b| <= atol + rtol * |b|`` where ``b`` is finite, or ``a == b`` (equal
    infinities); NaNs are close to each other only with ``equal_nan``.  An
    integer ``b`` is compared as float64 (no integer overflow in ``a - b``).

    >>> import numpy as np
    >>> import theon.tensor as tt
    >>> v = tt.dvector("v")
    >>> isclose(v, 1.0).eval({v: [1.0, 1.1]})
    array([ True, False])
    >>> isclose(v, np.inf).eval({v: [np.inf, -np.inf, 1e300]})
    array([ True, False, False])
    """
    a = as_tensor_variable(a) if not isinstance(a, (int, float, complex)) else a
    if isinstance(b, int):
        b = float(b)
    elif not isinstance(b, (float, complex)):
        b = as_tensor_variable(b)
        if b.type.dtype[0] in "biu":  # type: ignore[attr-defined]
            b = cast(b, "float64")
    close = and_(le(abs(sub(a, b)), add(atol, mul(rtol, abs(b)))), isfinite(b))
    close = or_(close, eq(a, b))  # equal infinities
    if equal_nan:
        close = or_(close, and_(isnan(a), isnan(b)))
    return close  # type: ignore[no-any-return]


def allclose(a: Any, b: Any, rtol: float = 1e-5, atol: float = 1e-8,
             equal_nan: bool = False) -> Variable:
    """Whether all elements of ``a`` and ``b`` are close (:func:`isclose`), like
    ``numpy.allclose`` (a 0-d boolean tensor).

    >>> import numpy as np
    >>> import theon.tensor as tt
    >>> v = tt.dvector("v")
    >>> allclose(v, [1.0, np.nan], equal_nan=True).eval({v: [1.0, np.nan]})
    array(True)
    """
    return all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


# products (theon.tensor.blas) ------------------------------------------------------------------
def dot(a: Any, b: Any) -> Variable:
    """Dot product, like ``numpy.dot``.

    >>> import theon.tensor as tt
    >>> y = dot(tt.dmatrix("a"), tt.dvector("b"))
    """
    return blas.dot(a, b)


def matmul(a: Any, b: Any) -> Variable:
    """Matrix product with batching, like ``numpy.matmul`` (the ``@`` operator).

    >>> import theon.tensor as tt
    >>> y = matmul(tt.dtensor3("a"), tt.dmatrix("b"))
    """
    return blas.matmul(a, b)


def tensordot(a: Any, b: Any, axes: Any = 2) -> Variable:
    """Tensor dot product over ``axes``, like ``numpy.tensordot``.

    >>> import theon.tensor as tt
    >>> y = tensordot(tt.dmatrix("a"), tt.dmatrix("b"), axes=1)
    """
    return blas.tensordot(a, b, axes)


def outer(a: Any, b: Any) -> Variable:
    """Outer product of two vectors, like ``numpy.outer``.

    >>> import theon.tensor as tt
    >>> y = outer(tt.dvector("a"), tt.dvector("b"))
    """
    return blas.outer(a, b)


# Theano's and PyTensor's other names -----------------------------------------------------------
def max_and_argmax(x: Any, axis: Any = None, keepdims: bool = False) -> list[Variable]:
    """``[max(x, axis), argmax(x, axis)]``, Theano's pair (the argmax of the flattened
    array when ``axis`` is None).

    >>> import theon.tensor as tt
    >>> x = tt.dmatrix("x")
    >>> m, i = max_and_argmax(x, axis=1)
    >>> i.eval({x: [[1.0, 3.0], [4.0, 2.0]]})
    array([1, 0])
    """
    x = as_tensor_variable(x)
    return [max(x, axis=axis, keepdims=keepdims), argmax(x, axis=axis, keepdims=keepdims)]


def matvec(x1: Any, x2: Any, dtype: Any = None) -> Variable:
    """Matrix-vector product over the last two axes of ``x1`` and the last of ``x2``,
    the others broadcast as batch axes, like ``numpy.matvec`` (NumPy 2.2).

    >>> import numpy as np, theon.tensor as tt
    >>> A, v = tt.dmatrix("A"), tt.dvector("v")
    >>> matvec(A, v).eval({A: np.eye(2) * 2, v: [1.0, 3.0]})
    array([2., 6.])
    """
    a, b = as_tensor_variable(x1), as_tensor_variable(x2)
    if a.type.ndim < 2 or b.type.ndim < 1:
        raise ValueError(
            f"matvec: the first input needs at least 2 dims and the second at least 1, "
            f"got {a.type.ndim} and {b.type.ndim}"
        )
    out = matmul(a, b[..., None])[..., 0]
    return cast(out, dtype) if dtype is not None else out


def vecmat(x1: Any, x2: Any, dtype: Any = None) -> Variable:
    """Vector-matrix product ``x1 @ x2`` over the last axis of ``x1`` and the last two
    of ``x2`` (batched; ``x1`` is conjugated), like ``numpy.vecmat`` (NumPy 2.2).

    >>> import numpy as np, theon.tensor as tt
    >>> v, A = tt.dvector("v"), tt.dmatrix("A")
    >>> vecmat(v, A).eval({v: [1.0, 3.0], A: [[1.0, 2.0], [3.0, 4.0]]})
    array([10., 14.])
    """
    a, b = as_tensor_variable(x1), as_tensor_variable(x2)
    if a.type.ndim < 1 or b.type.ndim < 2:
        raise ValueError(
            f"vecmat: the first input needs at least 1 dim and the second at least 2, "
            f"got {a.type.ndim} and {b.type.ndim}"
        )
    if a.type.dtype.startswith("complex"):
        a = _ELEMWISE["conj"](a)
    out = matmul(a[..., None, :], b)[..., 0, :]
    return cast(out, dtype) if dtype is not None else out


def vecdot(x1: Any, x2: Any, axis: int = -1, dtype: Any = None) -> Variable:
    """Dot product of vectors along ``axis`` (``x1`` conjugated), the other axes
    broadcast, like ``numpy.vecdot``.

    >>> import numpy as np, theon.tensor as tt
    >>> a, b = tt.dmatrix("a"), tt.dvector("b")
    >>> vecdot(a, b).eval({a: [[1.0, 2.0], [3.0, 4.0]], b: [1.0, 1.0]})
    array([3., 7.])
    """
    a, b = as_tensor_variable(x1), as_tensor_variable(x2)
    if a.type.dtype.startswith("complex"):
        a = _ELEMWISE["conj"](a)
    out = sum(mul(a, b), axis=axis)
    return cast(out, dtype) if dtype is not None else out


def median(x: Any, axis: Any = None) -> Variable:
    """Median over ``axis`` (an int, a tuple of ints, or None for all), like
    ``numpy.median``: the mean of the two middle values for an even count.

    >>> import theon.tensor as tt
    >>> x = tt.dmatrix("x")
    >>> median(x, axis=1).eval({x: [[3.0, 1.0, 2.0], [4.0, 1.0, 9.0]]})
    array([2., 4.])
    >>> median(x).eval({x: [[3.0, 1.0], [2.0, 8.0]]})
    array(2.5)
    """
    from theon.tensor.reduction import normalize_axis
    from theon.tensor.reshaping import reshape, transpose
    from theon.tensor.sort import sort
    from theon.tensor.subtensor import take

    x = as_tensor_variable(x)
    nd = x.type.ndim
    axes = normalize_axis(axis, nd)
    if axes is None:
        axes = tuple(range(nd))
    keep = [d for d in range(nd) if d not in axes]
    if len(axes) != 1 or axes[0] != nd - 1:  # the reduced axes, flattened, last
        x = transpose(x, (*keep, *axes))
        shape = x.shape
        x = reshape(x, [shape[i] for i in range(len(keep))] + [-1], ndim=len(keep) + 1)
    s = sort(x, axis=-1)
    n = s.shape[-1]
    lo = take(s, (n - 1) // 2, axis=-1)
    hi = take(s, n // 2, axis=-1)
    out = true_div(add(lo, hi), 2)
    if x.type.dtype in ("float16", "float32"):
        out = cast(out, x.type.dtype)
    return out


def nan_to_num(x: Any, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None) -> Variable:
    """``x`` with NaN replaced by ``nan`` and infinities by ``posinf``/``neginf`` (the
    largest finite values of the dtype by default), like ``numpy.nan_to_num``.

    >>> import numpy as np, theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> nan_to_num(x, posinf=9.0).eval({x: [np.nan, np.inf, 1.0]})
    array([0., 9., 1.])
    """
    x = as_tensor_variable(x)
    dt = x.type.dtype
    if not (dt.startswith("float") or dt.startswith("complex")):
        return x
    if dt.startswith("complex"):
        re = nan_to_num(_ELEMWISE["real"](x), nan, posinf, neginf)
        im = nan_to_num(_ELEMWISE["imag"](x), nan, posinf, neginf)
        return add(cast(re, dt), mul(cast(im, dt), constant(1j, dtype=dt)))
    info = np.finfo(dt)
    hi = constant(info.max if posinf is None else posinf, dtype=dt)
    lo = constant(info.min if neginf is None else neginf, dtype=dt)
    isinf = _ELEMWISE["isinf"]
    out = switch(isnan(x), constant(nan, dtype=dt), x)
    out = switch(and_(isinf(x), _ELEMWISE["gt"](x, 0)), hi, out)
    return switch(and_(isinf(x), _ELEMWISE["lt"](x, 0)), lo, out)


# NumPy ufuncs applied to tensor variables (np.exp(x)) dispatch here ----------------------------
# keyed by ufunc.__name__: the rows' NumPy ufuncs (SciPy's are not loaded for this), and the rest
_UFUNC_TO_OP: dict[str, Any] = {
    **{
        row.ufunc.__name__: _ELEMWISE[row.tensor or row.name]
        for row in table.ROWS
        if isinstance(row.ufunc, np.ufunc)
    },
    "reciprocal": reciprocal, "rint": round_half_to_even,
    "matmul": matmul, "deg2rad": deg2rad, "rad2deg": rad2deg,
}
