"""First-order linear recurrences along an axis: the division-free gradient of ``cumprod``.

``LinearRecurrence(axis)`` computes, along ``axis``,
``s[i] = b[i] + a[i] * s[i-1]`` (``s[-1] = 0``); with ``reverse=True``,
``s[i] = b[i] + a[i+1] * s[i+1]`` (``s[n] = 0``).  The coefficient linking two
neighbours is the one at the larger index in both directions, so that each
direction's gradient is the other direction (see :meth:`LinearRecurrence.L_op`).

The gradient of ``cumprod(x)`` is ``g[i] = prod(x[:i]) * s[i]`` with the
reverse recurrence ``s[i] = gz[i] + x[i+1] * s[i+1]``: no division by ``x``,
so zeros (one or several) give the exact gradient where ``gz * cumprod(x) / x``
gives NaN.

>>> import numpy as np
>>> import theon, theon.tensor as tt
>>> a, b = tt.dvector("a"), tt.dvector("b")
>>> s = LinearRecurrence(0)(a, b)
>>> s.eval({a: [9.0, 2.0, 3.0], b: [1.0, 1.0, 1.0]})
array([ 1.,  3., 10.])
>>> x = tt.dvector("x")
>>> theon.function([x], theon.grad(tt.cumprod(x).sum(), x))([2.0, 0.0, 3.0])
array([1., 8., 0.])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Variable
from theon.graph.fg import describe
from theon.tensor.basic import TensorOp, as_tensor_variable
from theon.tensor.type import TensorType, tensor_type, tensor_vars
from theon.tensor.variable import TensorVariable

__all__ = ["LinearRecurrence", "shift_along"]


def _mul0(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``p * q`` where an exact zero factor gives 0 even against inf (``0 * inf``)."""
    r: np.ndarray = p * q
    bad = np.isnan(r)
    if bad.any():
        bad &= ~(np.isnan(p) | np.isnan(q)) & ((p == 0) | (q == 0))
        r[bad] = 0
    return r


def solve_recurrence(a: np.ndarray, b: np.ndarray, axis: int, reverse: bool) -> np.ndarray:
    """NumPy: ``s[i] = b[i] + a[i] * s[i-1]`` along ``axis`` (reversed: ``a[i+1] * s[i+1]``).

    A scan by doubling (``ceil(log2 n)`` vectorized steps): after the step with
    span ``d``, ``s[i] = B[i] + C[i] * s[i-d]``.

    >>> solve_recurrence(np.array([0.0, 2.0, 2.0]), np.ones(3), 0, False)
    array([1., 3., 7.])
    """
    dt = np.result_type(a, b)
    bm = np.moveaxis(np.asarray(b, dtype=dt), axis, 0)
    am = np.moveaxis(np.broadcast_to(np.asarray(a, dtype=dt), b.shape), axis, 0)
    if reverse:  # flipped, s[j] = b[j] + a[j-1] * s[j-1]: the coefficients move by one
        bm = bm[::-1]
        am = np.concatenate([np.zeros_like(am[:1]), am[::-1][:-1]])
    n = bm.shape[0]
    big = np.array(bm, copy=True)
    coef = np.array(am, copy=True)
    d = 1
    with np.errstate(all="ignore"):
        while d < n:
            big[d:] = big[d:] + _mul0(coef[d:], big[:-d])
            coef[d:] = _mul0(coef[d:], coef[:-d])
            d *= 2
    if reverse:
        big = big[::-1]
    return np.ascontiguousarray(np.moveaxis(big, 0, axis))


def shift_along(v: TensorVariable, axis: int, fill: Any) -> TensorVariable:
    """``v`` moved one step along ``axis`` (``out[i] = v[i-1]``), ``fill`` at index 0.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> shift_along(x, 0, 1.0).eval({x: [2.0, 3.0, 4.0]})
    array([1., 2., 3.])
    """
    from theon.tensor.basic import constant
    from theon.tensor.joining import concatenate
    from theon.tensor.math import mul, ones_like

    head = tuple([slice(None)] * axis + [slice(None, 1)])
    body = tuple([slice(None)] * axis + [slice(None, -1)])
    first = mul(ones_like(v[head]), constant(np.asarray(fill, dtype=v.type.dtype)))
    return concatenate([first, v[body]], axis=axis)


class LinearRecurrence(TensorOp):
    """``s[i] = b[i] + a[i] * s[i-1]`` along ``axis`` (``reverse``: ``b[i] + a[i+1] * s[i+1]``).

    ``a`` and ``b`` are float (or complex) tensors of one shape and dtype.  An
    exact zero coefficient cuts the chain (``0 * inf`` counts as 0).

    >>> import theon.tensor as tt
    >>> a, b = tt.dvector("a"), tt.dvector("b")
    >>> LinearRecurrence(0, reverse=True)(a, b).eval({a: [9.0, 2.0, 3.0], b: [1.0, 1.0, 1.0]})
    array([9., 4., 1.])
    """

    __props__ = ("axis", "reverse")

    def __init__(self, axis: int, reverse: bool = False) -> None:
        self.axis = int(axis)
        self.reverse = bool(reverse)

    def make_node(self, a: Any, b: Any) -> Apply:
        a, b = as_tensor_variable(a), as_tensor_variable(b)
        for v in (a, b):
            if not v.type.dtype.startswith(("float", "complex")):
                raise TypeError(f"{self}: needs float or complex inputs, got {describe(v)}")
        if a.type.dtype != b.type.dtype or a.type.ndim != b.type.ndim:
            raise TypeError(f"{self}: {describe(a)} and {describe(b)} differ in dtype or ndim")
        if not 0 <= self.axis < b.type.ndim:
            raise ValueError(f"{self}: axis {self.axis} out of range for {describe(b)}")
        shape = tuple(
            sa if sb is None else sb for sa, sb in zip(a.type.shape, b.type.shape)
        )
        return Apply(self, [a, b], [TensorType(b.type.dtype, shape=shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        a, b = inputs
        if a.shape != b.shape:
            raise ValueError(f"{self}: inputs of shapes {a.shape} and {b.shape} differ")
        out = solve_recurrence(a, b, self.axis, self.reverse)
        output_storage[0][0] = out.astype(tensor_type(node.outputs[0]).dtype, copy=False)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        return [tuple(input_shapes[1])]

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Any]:
        """With ``c`` the output's gradient: the gradient for ``b`` is the recurrence of
        the other direction on ``(a, c)``; for ``a``, ``gb[i] * s[i-1]`` (forward) or
        ``gb[i-1] * s[i]`` (reverse), 0 at ``i = 0``."""
        a, _ = inputs
        (s,) = tensor_vars(outputs)
        (c,) = output_grads
        gb = LinearRecurrence(self.axis, not self.reverse)(a, c)
        if self.reverse:
            ga = shift_along(gb, self.axis, 0) * s
        else:
            ga = gb * shift_along(s, self.axis, 0)
        return [ga, gb]

    def __str__(self) -> str:
        return f"LinearRecurrence{{axis={self.axis}{', reverse' if self.reverse else ''}}}"
