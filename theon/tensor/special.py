"""Special functions: softmax, log_softmax, logsumexp, sigmoid, softplus, erf, gammaln, psi, ...

``Softmax`` and ``LogSoftmax`` subtract the maximum before exponentiating, so
they do not overflow.

>>> import numpy as np
>>> import theon, theon.tensor as tt
>>> x = tt.dvector("x")
>>> theon.function([x], softmax(x))([1000.0, 0.0]).tolist()
[1.0, 0.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Variable
from theon.graph.fg import describe
from theon.tensor.basic import TensorOp, as_tensor_variable
from theon.tensor.math import (
    digamma,
    erf,
    erfc,
    erfcinv,
    erfinv,
    exp,
    expit,
    gamma,
    gammaln,
    log1mexp,
    log1pexp,
    polygamma,
    psi,
    sigmoid,
    softplus,
)
from theon.tensor.reduction import logsumexp
from theon.tensor.type import TensorType, tensor_vars
from theon.tensor.variable import TensorVariable

__all__ = [
    "LogSoftmax",
    "Softmax",
    "digamma",
    "erf",
    "erfc",
    "erfcinv",
    "erfinv",
    "expit",
    "gamma",
    "gammaln",
    "log1mexp",
    "log1pexp",
    "log_softmax",
    "logit",
    "logsumexp",
    "polygamma",
    "psi",
    "sigmoid",
    "softmax",
    "softplus",
]

def _float_input(x: Any, what: str) -> TensorVariable:
    v = as_tensor_variable(x)
    if not v.type.dtype.startswith(("float", "complex")):
        from theon.tensor.basic import cast

        v = cast(v, exp(v).type.dtype)  # the float dtype NumPy's exp would give
    if v.type.ndim == 0:
        raise ValueError(f"{what} needs at least one dimension, got {describe(v)}")
    return v


def _norm_axis(axis: int | None, ndim: int, what: str) -> int | None:
    if axis is None:
        return None
    if not -ndim <= axis < ndim:
        raise ValueError(f"{what}: axis {axis} is out of range for ndim {ndim}")
    return axis % ndim


def _finite_max(x: np.ndarray, axis: int | None) -> np.ndarray:
    """The max along ``axis`` (kept), 0 where it is not finite.

    Shifting by it keeps ``exp`` from overflowing, and where the max is ``+-inf``
    or nan the unshifted formula gives NumPy's nan and inf (``softmax([1, inf])``
    is ``[0, nan]``, as ``exp(x) / sum(exp(x))``; shifting by ``inf`` would make
    every entry nan).  ``logsumexp`` shifts the same way.
    """
    m: np.ndarray = np.maximum.reduce(x, axis=axis, keepdims=True)
    if not np.isfinite(m).all():
        m = np.where(np.isfinite(m), m, np.zeros((), m.dtype))
    return m


def softmax_values(x: np.ndarray, axis: int | None) -> np.ndarray:
    """What :class:`Softmax` computes, on an array (the py linker calls it directly).

    >>> softmax_values(np.array([0.0, np.log(3.0)]), 0)
    array([0.25, 0.75])
    """
    if x.size == 0:
        return np.empty_like(x)
    e: np.ndarray = x - _finite_max(x, axis)
    np.exp(e, out=e)
    e /= np.add.reduce(e, axis=axis, keepdims=True)
    return e


def log_softmax_values(x: np.ndarray, axis: int | None) -> np.ndarray:
    """What :class:`LogSoftmax` computes, on an array (the py linker calls it directly).

    >>> log_softmax_values(np.array([0.0, 0.0]), 0)
    array([-0.69314718, -0.69314718])
    """
    if x.size == 0:
        return np.empty_like(x)
    e: np.ndarray = x - _finite_max(x, axis)
    e -= np.log(np.add.reduce(np.exp(e), axis=axis, keepdims=True))
    return e


class _AlongAxis(TensorOp):
    """Base of softmax-like ops: one float input, an output of its type, one ``axis``."""

    __props__ = ("axis",)
    fn_name = ""  # the user-facing function, for errors

    def __init__(self, axis: int | None) -> None:
        self.axis = axis

    def make_node(self, x: Any) -> Apply:
        x = _float_input(x, self.fn_name)
        if self.axis is not None and self.axis >= x.type.ndim:
            raise ValueError(f"{self.fn_name}: axis {self.axis} out of range for {describe(x)}")
        return Apply(self, [x], [TensorType(x.type.dtype, shape=x.type.shape)()])

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        return [tuple(input_shapes[0])]

    def __str__(self) -> str:
        return f"{type(self).__name__}{{axis={self.axis}}}"


class Softmax(_AlongAxis):
    """``exp(x - max) / sum(exp(x - max))`` along ``axis`` (None: over all elements).

    The max is taken as 0 where it is infinite or nan (see ``_finite_max``).

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> Softmax(0)(x).eval({x: [0.0, 0.0]})
    array([0.5, 0.5])
    """

    fn_name = "softmax"

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        output_storage[0][0] = softmax_values(inputs[0], self.axis)

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Any]:
        (sm,) = tensor_vars(outputs)
        (gz,) = tensor_vars(output_grads)
        s = (gz * sm).sum(axis=self.axis, keepdims=True)
        return [(gz - s) * sm]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        (ev,) = eval_points
        if ev is None:
            return [None]
        sm = self(inputs[0])
        return [sm * (ev - (sm * ev).sum(axis=self.axis, keepdims=True))]


class LogSoftmax(_AlongAxis):
    """``x - max - log(sum(exp(x - max)))`` along ``axis``: a stable log of softmax.

    The max is taken as 0 where it is infinite or nan (see ``_finite_max``), so
    ``log_softmax([1, inf])`` is ``[-inf, nan]``, NumPy's ``log(softmax)``.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> LogSoftmax(0)(x).eval({x: [0.0, 0.0]})
    array([-0.69314718, -0.69314718])
    """

    fn_name = "log_softmax"

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        output_storage[0][0] = log_softmax_values(inputs[0], self.axis)

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Any]:
        (out,) = outputs
        (gz,) = tensor_vars(output_grads)
        return [gz - exp(out) * gz.sum(axis=self.axis, keepdims=True)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        (ev,) = eval_points
        if ev is None:
            return [None]
        sm = Softmax(self.axis)(inputs[0])
        return [ev - (sm * ev).sum(axis=self.axis, keepdims=True)]


def softmax(x: Any, axis: int | None = -1) -> TensorVariable:
    """Softmax along ``axis`` (default last; None over all), max-subtracted for stability.

    >>> import theon.tensor as tt
    >>> x = tt.dmatrix("x")
    >>> softmax(x, axis=1).type.shape
    (None, None)
    """
    x = _float_input(x, "softmax")
    return Softmax(_norm_axis(axis, x.type.ndim, "softmax"))(x)


def log_softmax(x: Any, axis: int | None = -1) -> TensorVariable:
    """``log(softmax(x))`` computed stably along ``axis``.

    >>> import theon, theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> theon.function([x], log_softmax(x))([1000.0, 0.0]).tolist()
    [0.0, -1000.0]
    """
    x = _float_input(x, "log_softmax")
    return LogSoftmax(_norm_axis(axis, x.type.ndim, "log_softmax"))(x)


def logit(x: Any) -> TensorVariable:
    """``log(x / (1 - x))``, the inverse of sigmoid.

    >>> import theon.tensor as tt
    >>> float(logit(tt.constant(0.5)).eval())
    0.0
    """
    from theon.tensor.math import log, log1p

    x = as_tensor_variable(x)
    return log(x) - log1p(-x)
