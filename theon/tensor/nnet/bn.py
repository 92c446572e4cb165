"""Theano's ``theano.tensor.nnet.bn``: batch normalization.

Three functions with Theano 1.0's signatures and results, each a small graph of
theon's own ops (means, variances, elementwise arithmetic), so each has a
gradient and a JAX rule through them:

- :func:`batch_normalization_train` normalizes a mini-batch by its own mean and
  variance over ``axes`` and, given the running averages, returns their updates;
- :func:`batch_normalization_test` normalizes by given (running) means and variances;
- :func:`batch_normalization` is the elementwise ``(x - mean) * (gamma / std) + beta``.

``axes`` is ``'per-activation'`` (axis 0: one statistic per activation),
``'spatial'`` (axis 0 and every axis from 2 on: one statistic per channel of an
image batch) or a tuple of axes.  ``gamma``, ``beta`` and the statistics have either
the inputs' number of dimensions, with length 1 on the normalized axes, or only the
remaining axes (``gamma.ndim == inputs.ndim - len(axes)``); the returned means,
inverse standard deviations and running averages have the same layout as ``gamma``.

>>> import numpy as np
>>> import theon.tensor as T
>>> x = T.dmatrix("x")
>>> g, b = T.dvector("g"), T.dvector("b")
>>> out, mean, invstd = batch_normalization_train(x, g, b, epsilon=1e-5)
>>> xv = np.array([[1.0, 10.0], [3.0, 30.0]])
>>> out.eval({x: xv, g: [1.0, 2.0], b: [0.0, 1.0]}).round(3).tolist()
[[-1.0, -1.0], [1.0, 3.0]]
>>> mean.eval({x: xv}).tolist()
[2.0, 20.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.fg import describe
from theon.tensor import math as tm
from theon.tensor.basic import as_tensor_variable, cast
from theon.tensor.reduction import prod
from theon.tensor.variable import TensorVariable

__all__ = ["batch_normalization", "batch_normalization_test", "batch_normalization_train"]

#: cuDNN's smallest epsilon, which Theano imposed on every implementation.
MIN_EPSILON = 1e-5


def _axes(axes: Any, ndim: int, fn: str) -> tuple[int, ...]:
    """The normalized axes: ``'per-activation'``, ``'spatial'`` or a sequence of ints."""
    if isinstance(axes, str):
        if axes == "per-activation":
            return (0,)
        if axes == "spatial":
            return (0, *range(2, ndim))
        raise ValueError(f"{fn}: axes must be 'per-activation', 'spatial' or a tuple of "
                         f"ints, got {axes!r}")
    if not isinstance(axes, Sequence | np.ndarray) or not all(
            isinstance(a, int | np.integer) for a in axes):
        raise ValueError(f"{fn}: axes must be 'per-activation', 'spatial' or a tuple of ints, "
                         f"got {axes!r}")
    res = tuple(sorted(int(a) for a in axes))
    if not res:
        raise ValueError(f"{fn}: there must be at least one normalization axis")
    if res[0] < 0 or res[-1] >= ndim:
        raise ValueError(f"{fn}: axes must lie in [0, {ndim}) for inputs of {ndim} "
                         f"dimensions, got {axes!r}")
    return res


def _epsilon(epsilon: Any, fn: str) -> Any:
    if isinstance(epsilon, int | float | np.number) and float(epsilon) < MIN_EPSILON:
        raise ValueError(f"{fn}: epsilon must be at least {MIN_EPSILON}, got {epsilon!r}")
    return epsilon


class _Layout:
    """How the parameters sit against the inputs: full rank (length 1 on ``axes``) or
    only the kept axes, which :meth:`expand` broadcasts and :meth:`restore` drops again."""

    def __init__(self, ndim: int, axes: tuple[int, ...], gamma: TensorVariable, fn: str) -> None:
        self.ndim, self.axes, self.fn = ndim, axes, fn
        self.kept = tuple(a for a in range(ndim) if a not in axes)
        if gamma.type.ndim == ndim:
            self.full = True
        elif gamma.type.ndim == len(self.kept):
            self.full = False
        else:
            raise ValueError(f"{fn}: gamma must have {ndim} dimensions (the inputs') or "
                             f"{len(self.kept)} (the inputs' without the {len(axes)} normalized "
                             f"axes {axes}), got {describe(gamma)}")

    def expand(self, p: Any, name: str) -> TensorVariable:
        v = as_tensor_variable(p)
        want = self.ndim if self.full else len(self.kept)
        if v.type.ndim != want:
            raise ValueError(f"{self.fn}: {name} must have the layout of gamma ({want} "
                             f"dimensions), got {describe(v)}")
        if self.full:
            return v
        pattern: list[Any] = ["x"] * self.ndim
        for i, axis in enumerate(self.kept):
            pattern[axis] = i
        return v.dimshuffle(*pattern)

    def restore(self, v: TensorVariable) -> TensorVariable:
        return v if self.full else v.dimshuffle(*self.kept)


def _inputs(inputs: Any, fn: str) -> TensorVariable:
    x = as_tensor_variable(inputs)
    if x.type.dtype[:5] not in ("float", "compl"):
        raise TypeError(f"{fn}: the inputs must be a float tensor, got {describe(x)}")
    return x


def batch_normalization_train(inputs: Any, gamma: Any, beta: Any,
                              axes: str | Sequence[int] = "per-activation",
                              epsilon: Any = 1e-4, running_average_factor: Any = 0.1,
                              running_mean: Any = None,
                              running_var: Any = None) -> tuple[TensorVariable, ...]:
    """Batch normalization of a mini-batch by its own statistics, as Theano 1.0's.

    Computes ``mean = inputs.mean(axes)``, ``var = inputs.var(axes)`` (the biased
    variance), ``invstd = 1 / sqrt(var + epsilon)`` and
    ``out = (inputs - mean) * gamma * invstd + beta``.

    Returns ``(out, mean, invstd)``, or, when ``running_mean`` and ``running_var``
    are given, ``(out, mean, invstd, new_running_mean, new_running_var)`` with
    ``new_running_mean = running_mean * (1 - f) + mean * f`` and
    ``new_running_var = running_var * (1 - f) + m / (m - 1) * var * f`` (``f`` is
    ``running_average_factor``, ``m`` the number of values each statistic averages:
    the unbiased variance goes into the running average).  ``out`` has the inputs'
    dtype and the new running averages the old ones' (as Theano's Op typed them), so
    float32 running averages in shared variables take float32 updates.

    >>> import numpy as np
    >>> import theon.tensor as T
    >>> x = T.dtensor4("x")
    >>> g, b = T.dtensor4("g"), T.dtensor4("b")
    >>> rm, rv = T.dtensor4("rm"), T.dtensor4("rv")
    >>> res = batch_normalization_train(x, g, b, "spatial", 1e-4, 0.5, rm, rv)
    >>> [r.ndim for r in res]
    [4, 4, 4, 4, 4]
    """
    fn = "batch_normalization_train"
    x = _inputs(inputs, fn)
    axes_t = _axes(axes, x.type.ndim, fn)
    eps = _epsilon(epsilon, fn)
    if (running_mean is None) != (running_var is None):
        raise ValueError(f"{fn}: give both running_mean and running_var, or neither")
    gamma_v = as_tensor_variable(gamma)
    layout = _Layout(x.type.ndim, axes_t, gamma_v, fn)
    g = layout.expand(gamma_v, "gamma")
    b = layout.expand(beta, "beta")
    mean = x.mean(axis=axes_t, keepdims=True)
    var = x.var(axis=axes_t, keepdims=True)
    invstd = tm.reciprocal(tm.sqrt(var + eps))
    out = _as_dtype((x - mean) * (g * invstd) + b, x.type.dtype)
    res = [out, layout.restore(mean), layout.restore(invstd)]
    if running_mean is not None:
        factor = running_average_factor  # a Python number stays one (no upcast)
        rm = layout.expand(running_mean, "running_mean")
        rv = layout.expand(running_var, "running_var")
        m = cast(prod([x.shape[a] for a in axes_t]), var.type.dtype)
        new_mean = rm * (1 - factor) + mean * factor
        new_var = rv * (1 - factor) + (m / (m - 1)) * var * factor
        # the updates have the running averages' types (shared variables they replace)
        res += [layout.restore(_as_dtype(new_mean, rm.type.dtype)),
                layout.restore(_as_dtype(new_var, rv.type.dtype))]
    return tuple(res)


def _as_dtype(v: TensorVariable, dtype: str) -> TensorVariable:
    if v.type.dtype == dtype:
        return v
    out = cast(v, dtype)
    assert isinstance(out, TensorVariable)
    return out


def batch_normalization_test(inputs: Any, gamma: Any, beta: Any, mean: Any, var: Any,
                             axes: str | Sequence[int] = "per-activation",
                             epsilon: Any = 1e-4) -> TensorVariable:
    """Batch normalization by given statistics, as Theano 1.0's:
    ``(inputs - mean) * gamma / sqrt(var + epsilon) + beta``.

    ``gamma``, ``beta``, ``mean`` and ``var`` share one layout (see the module).

    >>> import numpy as np
    >>> import theon.tensor as T
    >>> x = T.dmatrix("x")
    >>> out = batch_normalization_test(x, [2.0], [1.0], [3.0], [4.0], epsilon=1e-5)
    >>> out.eval({x: [[5.0], [1.0]]}).round(4).tolist()
    [[3.0], [-1.0]]
    """
    fn = "batch_normalization_test"
    x = _inputs(inputs, fn)
    axes_t = _axes(axes, x.type.ndim, fn)
    eps = _epsilon(epsilon, fn)
    gamma_v = as_tensor_variable(gamma)
    layout = _Layout(x.type.ndim, axes_t, gamma_v, fn)
    g = layout.expand(gamma_v, "gamma")
    b = layout.expand(beta, "beta")
    mu = layout.expand(mean, "mean")
    v = layout.expand(var, "var")
    return _as_dtype((x - mu) * (g / tm.sqrt(v + eps)) + b, x.type.dtype)


def batch_normalization(inputs: Any, gamma: Any, beta: Any, mean: Any, std: Any,
                        mode: str = "low_mem") -> TensorVariable:
    """``(inputs - mean) * (gamma / std) + beta``, elementwise with broadcasting.

    ``mode`` (``'low_mem'`` or ``'high_mem'``) chose between Theano's two graphs of
    the same formula; both give this one, which the fusion phase compiles to one loop.

    >>> import theon.tensor as T
    >>> x = T.dvector("x")
    >>> batch_normalization(x, 2.0, 1.0, 3.0, 4.0).eval({x: [5.0, 7.0]}).tolist()
    [2.0, 3.0]
    """
    if mode not in ("low_mem", "high_mem"):
        raise ValueError(f"batch_normalization: mode must be 'low_mem' or 'high_mem', "
                         f"got {mode!r}")
    x = _inputs(inputs, "batch_normalization")
    out = (x - mean) * (as_tensor_variable(gamma) / std) + beta
    assert isinstance(out, TensorVariable)
    return out
