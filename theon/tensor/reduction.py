"""Reductions: the CAReduce family (Sum, Prod, Max, Min, All, Any), Argmax, and their functions.

Dtypes follow NumPy: ``sum``/``prod`` of small ints and bools give int64
(uint64 for unsigned), ``mean``/``var``/``std`` of ints give float64, float32
stays float32 (accumulated in float64, as PyTensor does).  ``axis`` is an int
(negative allowed), a tuple, or None.

>>> import theon.tensor as tt
>>> x = tt.bmatrix("x")
>>> sum(x, axis=-1).type
TensorType(int64, shape=(None,))
>>> mean(tt.fmatrix("y"), axis=0, keepdims=True).type
TensorType(float32, shape=(1, None))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any as AnyT

import numpy as np

from theon.graph.basic import Apply, Variable
from theon.graph.null_type import disconnected_type
from theon.tensor.arguments import as_int_tuple, reduction_axes
from theon.tensor.basic import TensorOp, as_tensor_variable, cast, constant
from theon.tensor.elemwise import (
    CAReduce,
    DimShuffle,
    _cast_like,
    _sum_dtype,
    fill_like,
)
from theon.tensor.elemwise import _restore_axes as _keepdims  # put reduced axes back as 1s
from theon.tensor.type import TensorType, discrete_dtypes, float_dtypes, tensor_type
from theon.tensor.variable import TensorVariable

__all__ = [
    "All",
    "Any",
    "Argmax",
    "Max",
    "Min",
    "Prod",
    "Sum",
    "all",
    "any",
    "argmax",
    "argmin",
    "logsumexp",
    "max",
    "mean",
    "min",
    "prod",
    "std",
    "sum",
    "var",
]


def _sop(name: str) -> AnyT:
    import theon.scalar as ts

    return getattr(ts, name)


def _m() -> AnyT:
    import theon.tensor.math as m

    return m


class _FixedReduce(CAReduce):
    """A CAReduce whose scalar op is fixed by the class."""

    _scalar_name = ""
    __props__ = ("axis", "dtype")

    def __init__(self, axis: AnyT = None, dtype: AnyT = None) -> None:
        super().__init__(_sop(self._scalar_name), axis, dtype)

    def _init_args(self) -> tuple[AnyT, ...]:
        return (self.axis, self.dtype)


class Sum(_FixedReduce):
    """Sum over ``axis`` (``numpy.add.reduce``).

    >>> import theon.tensor as tt
    >>> Sum(axis=(0,))(tt.dmatrix("m")).type
    TensorType(float64, shape=(None,))
    """

    _scalar_name = "add"

    def out_dtype(self, in_dtype: str) -> str:
        return self.dtype or _sum_dtype(in_dtype)

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[AnyT]:
        (x,) = inputs
        if tensor_type(x).dtype in discrete_dtypes:
            return [disconnected_type()]
        g = self._restore_dims(as_tensor_variable(output_grads[0]), tensor_type(x).ndim)
        return [_cast_like(fill_like(x, g), x)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[AnyT]) -> list[AnyT]:
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0])]


class Prod(_FixedReduce):
    """Product over ``axis`` (``numpy.multiply.reduce``); its gradient handles zeros exactly.

    >>> import theon.tensor as tt
    >>> x = tt.dmatrix("x")
    >>> Prod(axis=(1,))(x).eval({x: [[1.0, 2.0], [3.0, 4.0]]})
    array([ 2., 12.])
    """

    _scalar_name = "mul"

    def out_dtype(self, in_dtype: str) -> str:
        return self.dtype or _sum_dtype(in_dtype)

    def _partial(self, x: Variable, prod_out: Variable) -> TensorVariable:
        """d prod / d x, elementwise, with 0, 1 or several zeros per reduced group."""
        import theon.tensor.math as m
        nd = tensor_type(x).ndim
        is_zero = m.eq(x, 0)
        n_zeros = self._restore_dims(Sum(self.axis)(cast(is_zero, "int64")), nd)
        x_nz = m.switch(is_zero, constant(1, dtype=tensor_type(x).dtype), x)
        prod_nz = self._restore_dims(Prod(self.axis, self.dtype)(x_nz), nd)
        zero = constant(0, dtype=tensor_type(prod_out).dtype)
        at_zero = m.switch(m.eq(n_zeros, 1), prod_nz, zero)
        elsewhere = m.switch(m.eq(n_zeros, 0), m.true_div(prod_nz, x_nz), zero)
        return m.switch(is_zero, at_zero, elsewhere)

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[AnyT]:
        (x,) = inputs
        if tensor_type(x).dtype in discrete_dtypes:
            return [disconnected_type()]
        g = self._restore_dims(as_tensor_variable(output_grads[0]), tensor_type(x).ndim)
        return [_cast_like(_m().mul(g, self._partial(x, outputs[0])), x)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[AnyT]) -> list[AnyT]:
        if eval_points[0] is None:
            return [None]
        (x,) = inputs
        d = self._partial(x, self(x))
        return [Sum(self.axis, self.dtype)(_m().mul(d, eval_points[0]))]


class _MaxMin(_FixedReduce):
    """Max or Min: the gradient flows to the positions that hold the extremum, split
    evenly among ties."""

    __props__ = ("axis", "initial")

    def __init__(self, axis: AnyT = None, initial: float | None = None) -> None:
        super().__init__(axis, None)
        if initial is not None:
            initial = float(initial)
            if initial != initial:
                raise ValueError(f"{type(self).__name__}: initial must not be nan")
        self.initial = initial

    def _init_args(self) -> tuple[AnyT, ...]:
        return (self.axis, self.initial)

    def _with_axis(self, axis: tuple[int, ...] | None) -> CAReduce:
        return type(self)(axis, self.initial)

    def make_node(self, x: AnyT) -> Apply:
        node = super().make_node(x)
        if self.initial is not None and tensor_type(node.inputs[0]).dtype not in float_dtypes:
            raise TypeError(
                f"{self}: an initial value needs a float input, got {node.inputs[0].type}"
            )
        return node

    def __str__(self) -> str:
        text = super().__str__()
        return text if self.initial is None else f"{text[:-1]}, initial={self.initial}}}"

    def _share(self, x: Variable, out: Variable) -> TensorVariable:
        """Each element's share of the extremum: ``1/k`` at each of ``k`` tied positions.

        Ties split the gradient evenly, as JAX does, so that ``max(concatenate([x, x]))``
        has gradient 1 (not 2) at the maximum.  A group without a match (a NaN
        extremum) gets 0 everywhere.
        """
        import theon.tensor.math as m
        nd = tensor_type(x).ndim
        mask = cast(m.eq(x, self._restore_dims(out, nd)), tensor_type(x).dtype)
        count = self._restore_dims(Sum(self.axis)(mask), nd)
        one = constant(1, dtype=tensor_type(x).dtype)
        return m.true_div(mask, m.maximum(count, one))

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[AnyT]:
        (x,) = inputs
        if tensor_type(x).dtype in discrete_dtypes:
            return [disconnected_type()]
        g = self._restore_dims(as_tensor_variable(output_grads[0]), tensor_type(x).ndim)
        return [_cast_like(_m().mul(g, self._share(x, outputs[0])), x)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[AnyT]) -> list[AnyT]:
        if eval_points[0] is None:
            return [None]
        (x,) = inputs
        return [Sum(self.axis)(_m().mul(self._share(x, self(x)), eval_points[0]))]


class Max(_MaxMin):
    """Maximum over ``axis`` (``numpy.maximum.reduce``; NaN propagates).

    Over no elements it raises, as NumPy does, unless built with an ``initial``
    value (floats only), which it then gives, as ``numpy.max(x, initial=...)``.

    >>> import numpy as np
    >>> import theon.tensor as tt
    >>> x = tt.dmatrix("x")
    >>> Max(axis=(0,))(x).eval({x: [[1.0, 5.0], [3.0, 4.0]]})
    array([3., 5.])
    >>> Max(axis=(1,), initial=-np.inf)(x).eval({x: np.zeros((2, 0))})
    array([-inf, -inf])
    """

    _scalar_name = "maximum"


class Min(_MaxMin):
    """Minimum over ``axis`` (``numpy.minimum.reduce``; NaN propagates).

    >>> import theon.tensor as tt
    >>> x = tt.dmatrix("x")
    >>> Min(axis=(0,))(x).eval({x: [[1.0, 5.0], [3.0, 4.0]]})
    array([1., 4.])
    """

    _scalar_name = "minimum"


class _Logical(_MaxMin):
    """All/AnyT: the result is boolean whatever the input dtype."""

    _np_fn: AnyT = None

    def out_dtype(self, in_dtype: str) -> str:
        return "bool"

    def perform(
        self, node: Apply, inputs: Sequence[AnyT], output_storage: list[list[AnyT]]
    ) -> None:
        output_storage[0][0] = np.asarray(type(self)._np_fn(inputs[0], axis=self.axis))

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[AnyT]:
        (x,) = inputs
        if tensor_type(x).dtype in discrete_dtypes:
            return [disconnected_type()]
        return [fill_like(x, constant(0, dtype=tensor_type(x).dtype))]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[AnyT]) -> list[AnyT]:
        return [None]


class All(_Logical):
    """Whether all elements along ``axis`` are true (non-zero).

    >>> import theon.tensor as tt
    >>> x = tt.bmatrix("x")
    >>> All(axis=(1,))(x).eval({x: [[1, 1], [1, 0]]})
    array([ True, False])
    """

    _scalar_name = "and_"
    _np_fn = np.all


class Any(_Logical):
    """Whether any element along ``axis`` is true (non-zero).

    >>> import theon.tensor as tt
    >>> x = tt.bmatrix("x")
    >>> Any(axis=(1,))(x).eval({x: [[0, 0], [1, 0]]})
    array([False,  True])
    """

    _scalar_name = "or_"
    _np_fn = np.any


class Argmax(TensorOp):
    """Index of the maximum along ``axis`` (int64); ``Argmax(axis, 'min')`` gives argmin.

    Several axes are treated as one flattened axis (C order), ``None`` as all.

    >>> import theon.tensor as tt
    >>> Argmax((1,))(tt.dmatrix("m")).type
    TensorType(int64, shape=(None,))
    """

    __props__ = ("axis", "kind")

    def __init__(self, axis: AnyT = None, kind: str = "max") -> None:
        if axis is not None:
            axis = as_int_tuple(axis, "Argmax: axis")
        if kind not in ("max", "min"):
            raise ValueError(f"Argmax kind must be 'max' or 'min', got {kind!r}")
        self.axis: tuple[int, ...] | None = axis
        self.kind = kind
        self._fn = np.argmax if kind == "max" else np.argmin

    def __str__(self) -> str:
        return f"Arg{self.kind}{{axis={self.axis}}}"

    def make_node(self, x: AnyT) -> Apply:
        x = as_tensor_variable(x)
        nd = x.type.ndim
        norm = normalize_axis(self.axis, nd, f"{self}: axis", x)
        if norm is not None and len(norm) == nd and nd != 1:
            norm = None
        if norm != self.axis:
            return Argmax(norm, self.kind).make_node(x)
        axes = range(nd) if norm is None else norm
        shape = tuple(s for d, s in enumerate(x.type.shape) if d not in axes)
        return Apply(self, [x], [TensorType("int64", shape)()])

    def perform(
        self, node: Apply, inputs: Sequence[AnyT], output_storage: list[list[AnyT]]
    ) -> None:
        x = inputs[0]
        axis = self.axis
        if axis is None:
            r = self._fn(x)
        elif len(axis) == 1:
            r = self._fn(x, axis=axis[0])
        else:
            keep = [d for d in range(x.ndim) if d not in axis]
            y = x.transpose(keep + list(axis))
            y = y.reshape(tuple(x.shape[d] for d in keep) + (-1,))
            r = self._fn(y, axis=-1)
        output_storage[0][0] = np.asarray(r, dtype=np.int64)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[AnyT]]) -> list[AnyT]:
        (ish,) = input_shapes
        axes = range(len(ish)) if self.axis is None else self.axis
        return [tuple(s for d, s in enumerate(ish) if d not in axes)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[AnyT]:
        (x,) = inputs
        if tensor_type(x).dtype in discrete_dtypes:
            return [disconnected_type()]
        return [fill_like(x, constant(0, dtype=tensor_type(x).dtype))]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[AnyT]) -> list[AnyT]:
        return [None]


def normalize_axis(
    axis: AnyT, ndim: int, what: str = "axis", of: Variable | None = None
) -> tuple[int, ...] | None:
    """``axis`` as a sorted tuple of non-negative ints (None: all axes); NumPy integers
    and integer arrays count as the ints (``axis=np.array(1)``, ``axis=np.array([0, 1])``,
    ``axis=(np.array(0), np.int64(1))``).  Errors name ``what`` and the variable ``of``.

    >>> normalize_axis(np.array(-1), 2), normalize_axis(np.array([1, 0]), 3)
    ((1,), (0, 1))
    """
    return reduction_axes(axis, ndim, what, of)


# functions --------------------------------------------------------------------------------
def _reduce(op_cls: AnyT, x: AnyT, axis: AnyT, keepdims: bool, **kw: AnyT) -> TensorVariable:
    x = as_tensor_variable(x)
    axes = normalize_axis(axis, x.type.ndim, f"{op_cls.__name__.lower()}: axis", x)
    out = op_cls(axes, **kw)(x)
    return _keepdims(out, x.type.ndim, axes) if keepdims else out


def sum(
    x: AnyT, axis: AnyT = None, dtype: AnyT = None, keepdims: bool = False, acc_dtype: AnyT = None
) -> TensorVariable:
    """Sum of array elements over ``axis``, like ``numpy.sum``.

    Parameters
    ----------
    x
        Input tensor (or array-like).
    axis
        int, tuple of ints or None (all axes); negative values count from the end.
    dtype
        Output dtype (default: NumPy's rule, small ints widen to int64).
    keepdims
        Keep the reduced axes with length 1.
    acc_dtype
        Accumulate in this dtype, then cast to ``dtype``.

    >>> import theon.tensor as tt
    >>> x = tt.dmatrix("x")
    >>> sum(x, axis=0).eval({x: [[1.0, 2.0], [3.0, 4.0]]})
    array([4., 6.])
    """
    if acc_dtype is not None:
        out = _reduce(Sum, x, axis, keepdims, dtype=acc_dtype)
        return cast(out, dtype) if dtype is not None else out
    return _reduce(Sum, x, axis, keepdims, dtype=dtype)


def prod(
    x: AnyT, axis: AnyT = None, dtype: AnyT = None, keepdims: bool = False, acc_dtype: AnyT = None
) -> TensorVariable:
    """Product of array elements over ``axis``, like ``numpy.prod``.

    >>> import theon.tensor as tt
    >>> x = tt.ivector("x")
    >>> prod(x).eval({x: [2, 3, 4]})
    array(24)
    """
    if acc_dtype is not None:
        out = _reduce(Prod, x, axis, keepdims, dtype=acc_dtype)
        return cast(out, dtype) if dtype is not None else out
    return _reduce(Prod, x, axis, keepdims, dtype=dtype)


def max(x: AnyT, axis: AnyT = None, keepdims: bool = False) -> TensorVariable:
    """Maximum over ``axis``, like ``numpy.max`` (an empty reduction is an error).

    >>> import theon.tensor as tt
    >>> x = tt.dmatrix("x")
    >>> max(x, axis=-1).eval({x: [[1.0, 5.0], [3.0, 2.0]]})
    array([5., 3.])
    """
    return _reduce(Max, x, axis, keepdims)


def min(x: AnyT, axis: AnyT = None, keepdims: bool = False) -> TensorVariable:
    """Minimum over ``axis``, like ``numpy.min``.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> min(x).eval({x: [3.0, -1.0]})
    array(-1.)
    """
    return _reduce(Min, x, axis, keepdims)


def all(x: AnyT, axis: AnyT = None, keepdims: bool = False) -> TensorVariable:
    """Whether all elements along ``axis`` are true, like ``numpy.all``.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> all(x).eval({x: [1.0, 0.0]})
    array(False)
    """
    return _reduce(All, x, axis, keepdims)


def any(x: AnyT, axis: AnyT = None, keepdims: bool = False) -> TensorVariable:
    """Whether any element along ``axis`` is true, like ``numpy.any``.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> any(x).eval({x: [1.0, 0.0]})
    array(True)
    """
    return _reduce(Any, x, axis, keepdims)


def _argext(kind: str, x: AnyT, axis: AnyT, keepdims: bool) -> TensorVariable:
    x = as_tensor_variable(x)
    nd = x.type.ndim
    axes = normalize_axis(axis, nd, f"arg{kind}: axis", x)
    out = Argmax(axes, kind)(x)
    return _keepdims(out, nd, axes) if keepdims else out


def argmax(x: AnyT, axis: AnyT = None, keepdims: bool = False) -> TensorVariable:
    """Index of the maximum along ``axis`` (flattened when None), like ``numpy.argmax``.

    >>> import theon.tensor as tt
    >>> x = tt.dmatrix("x")
    >>> argmax(x, axis=1).eval({x: [[1.0, 5.0], [3.0, 2.0]]})
    array([1, 0])
    """
    return _argext("max", x, axis, keepdims)


def argmin(x: AnyT, axis: AnyT = None, keepdims: bool = False) -> TensorVariable:
    """Index of the minimum along ``axis``, like ``numpy.argmin``.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> argmin(x).eval({x: [3.0, -1.0, 2.0]})
    array(1)
    """
    return _argext("min", x, axis, keepdims)


def _count(x: Variable, axes: tuple[int, ...] | None) -> AnyT:
    """Number of elements reduced over ``axes``: a Python int when static, else an int64 scalar."""
    nd = tensor_type(x).ndim
    red = range(nd) if axes is None else axes
    static = [tensor_type(x).shape[d] for d in red]
    known = [s for s in static if s is not None]
    if len(known) == len(static):
        n = 1
        for s in known:
            n *= s
        return n
    from theon.tensor.shape import shape_i

    total: AnyT = None
    for d in red:
        sd = shape_i(x, d)
        total = sd if total is None else _m().mul(total, sd)
    return total


#: the accumulator of mean/var/std for a result dtype narrower than double precision
_WIDER = {"float16": "float32", "float32": "float64", "complex64": "complex128"}


def _mean_dtypes(dtype: str) -> tuple[str, str]:
    """(accumulator dtype, result dtype) of mean/var/std for an input dtype.

    The result dtype is ``numpy.mean``'s; float32 (complex64) accumulates in
    float64 (complex128) and is cast back, as PyTensor does, so that
    ``mean([1e8, 1, -1e8])`` is 1/3 and not 0.
    """
    if dtype in discrete_dtypes:
        return "float64", "float64"
    return _WIDER.get(dtype, dtype), dtype


def _divide_by_count(s: Variable, n: AnyT) -> TensorVariable:
    import theon.tensor.math as m
    if isinstance(n, int):
        return m.true_div(s, float(n))
    return m.true_div(s, cast(n, tensor_type(s).dtype))


def mean(x: AnyT, axis: AnyT = None, dtype: AnyT = None, keepdims: bool = False) -> TensorVariable:
    """Arithmetic mean over ``axis``, like ``numpy.mean`` (ints give float64).

    float16 and float32 (complex64) are summed in a wider dtype (float32, float64,
    complex128) and the mean is cast back, as PyTensor does.

    >>> import theon.tensor as tt
    >>> x = tt.imatrix("x")
    >>> mean(x, axis=0).eval({x: [[1, 2], [2, 4]]})
    array([1.5, 3. ])
    """
    x = as_tensor_variable(x)
    axes = normalize_axis(axis, x.type.ndim, "mean: axis", x)
    acc, res = _mean_dtypes(x.type.dtype)
    if dtype is not None:
        res = np.dtype(dtype).name
        acc = _WIDER.get(res, res)
    s = Sum(axes, acc)(x)
    out = cast(_divide_by_count(s, _count(x, axes)), res)
    return _keepdims(out, x.type.ndim, axes) if keepdims else out


def _variance(
    x: AnyT, axis: AnyT, ddof: int, corrected: bool = False
) -> tuple[Variable, str, AnyT]:
    """(the variance in the accumulator's real dtype, numpy.var's result dtype, the axes).

    ``corrected`` uses the corrected two-pass algorithm (Chan, Golub and LeVeque): the
    sum of the deviations, zero in exact arithmetic, corrects the rounding of the mean.
    """
    import theon.tensor.math as m
    x = as_tensor_variable(x)
    nd = x.type.ndim
    axes = normalize_axis(axis, nd)
    acc, res = _mean_dtypes(x.type.dtype)
    xa = cast(x, acc)
    unit = isinstance(n0 := _count(x, axes), int) and n0 == 1
    if unit:
        # the mean over axes of static length 1 (or none) is x itself, and the
        # canonicalizer cancels x - x to 0 (DESIGN §6); NumPy's x - mean(x) is 0, or
        # nan where x is inf or nan.  (x * 0 alone is that too, but XLA regroups the
        # square (x*0)*(x*0) into (x*x)*0, nan for x = 1e308; the switch stops it.)
        d = m.switch(m.isfinite(xa), m.mul(xa, constant(0, dtype=acc)),
                     constant(np.nan, dtype=acc))
    else:
        mu = _keepdims(_divide_by_count(Sum(axes, acc)(xa), _count(x, axes)), nd, axes)
        d = m.sub(xa, mu)
    if acc.startswith("complex"):
        sq = m.real(m.mul(d, m.conj(d)))
    else:
        sq = m.sqr(d)
    total = Sum(axes)(sq)
    if corrected and not unit:  # (the mean of one term is exact: nothing to correct)
        dsum = Sum(axes)(d)
        if acc.startswith("complex"):
            dsq = m.real(m.mul(dsum, m.conj(dsum)))
        else:
            dsq = m.sqr(dsum)
        total = m.sub(total, _divide_by_count(dsq, _count(x, axes)))
    n = _count(x, axes)
    n = n - ddof if isinstance(n, int) else m.sub(n, ddof)
    real_res = {"complex64": "float32", "complex128": "float64"}.get(res, res)
    return _divide_by_count(total, n), real_res, axes


def var(
    x: AnyT, axis: AnyT = None, ddof: int = 0, keepdims: bool = False, corrected: bool = False
) -> TensorVariable:
    """Variance over ``axis`` with ``ddof`` delta degrees of freedom, like ``numpy.var``
    (float32 and complex64 accumulate in double precision, as in :func:`mean`).

    ``corrected=True`` (PyTensor's flag) computes the same value with the corrected
    two-pass algorithm, which loses less precision when the mean is large.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> var(x).eval({x: [1.0, 2.0, 3.0, 4.0]})
    array(1.25)
    """
    v, res, axes = _variance(x, axis, ddof, corrected)
    out = cast(v, res)
    return _keepdims(out, as_tensor_variable(x).type.ndim, axes) if keepdims else out


def std(
    x: AnyT, axis: AnyT = None, ddof: int = 0, keepdims: bool = False, corrected: bool = False
) -> TensorVariable:
    """Standard deviation over ``axis``, like ``numpy.std`` (the square root is taken
    before the cast to the result dtype, so a float16 variance beyond float16's range
    still gives the right deviation).

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> std(x, ddof=1).eval({x: [1.0, 3.0]})
    array(1.41421356)
    """
    v, res, axes = _variance(x, axis, ddof, corrected)
    out = cast(_m().sqrt(v), res)
    return _keepdims(out, as_tensor_variable(x).type.ndim, axes) if keepdims else out


def logsumexp(x: AnyT, axis: AnyT = None, keepdims: bool = False) -> TensorVariable:
    """``log(sum(exp(x), axis))``, max-subtracted for stability, like ``scipy.special.logsumexp``
    (integers and booleans give float64, as there).

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> round(float(logsumexp(x).eval({x: [1000.0, 1000.0]})), 6)
    1000.693147
    """
    import theon.tensor.math as m
    x = as_tensor_variable(x)
    if x.type.dtype in discrete_dtypes:
        # as SciPy: in float64, whose max and -inf shift (int64's do not: 5 - (-2**63)
        # wraps) and whose empty max has an initial value
        x = cast(x, "float64")
    nd = x.type.ndim
    axes = normalize_axis(axis, nd)
    # -inf over an empty axis, as scipy.special.logsumexp gives (a plain max raises there)
    initial = -np.inf if x.type.dtype in float_dtypes else None
    mx = _keepdims(Max(axes, initial)(x), nd, axes)
    safe = m.switch(m.isinf(mx), constant(0, dtype=tensor_type(mx).dtype), mx)
    inner = m.exp(m.sub(x, safe))
    out = m.add(m.log(_keepdims(Sum(axes)(inner), nd, axes)), safe)
    if keepdims:
        return out
    red = range(nd) if axes is None else axes
    return DimShuffle(nd, [d for d in range(nd) if d not in red])(out)
