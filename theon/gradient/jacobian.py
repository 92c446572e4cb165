"""Jacobians and Hessians, vectorized by default.

The vectorized jacobian of ``y`` (flattened to ``n`` elements) builds the
vector-Jacobian product ``v -> d(y . v)/dx`` once, for a symbolic seed ``v``,
then batches that graph over the rows of an ``n x n`` identity matrix with
:func:`theon.graph.replace.vectorize_graph` (the same machinery as ``Blockwise``
and ``theon.tensor.vectorize``; the rewrites of
:mod:`theon.tensor.rewriting.diagonal` turn the identity batch into diagonals).
The result is one graph whose size does not depend on ``n``.  ``vectorize=False``
builds the loop form: one gradient graph per element of ``y`` (``y`` must have a static length).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, cast

import theon.tensor as tt
from theon.graph.basic import Variable
from theon.graph.vectorize import (
    CannotVectorizeError,
    VectorizeFallbackWarning,
    vectorize_graph_levels,
)
from theon.tensor.variable import TensorVariable

from .core import _as_var_list, grad

__all__ = ["hessian", "hessian_vector_product", "jacobian"]


def _tensors(vs: Sequence[Variable]) -> list[TensorVariable]:
    """``vs`` read as tensors: what ``wrt`` is to a Jacobian (its result has the shape of
    ``expression.shape + x.shape``); a variable that is not one fails where its shape is
    read."""
    return cast(list[TensorVariable], list(vs))


def _length(y: TensorVariable) -> Variable:
    """The length of vector ``y`` as a symbolic int64 scalar (a constant when static)."""
    n = y.type.shape[0]
    if n is not None:
        return tt.constant(n, dtype="int64")
    length: Variable = y.shape[0]
    return length


def _broadcast_rows(x: TensorVariable, n: Variable) -> TensorVariable:
    """``x`` repeated ``n`` times along a new leading axis."""
    return tt.alloc(x, n, *[x.shape[i] for i in range(x.type.ndim)])


def _unflatten(j: TensorVariable, expr: TensorVariable, x: TensorVariable) -> TensorVariable:
    """``j`` of shape ``(expr.size,) + x.shape`` reshaped to ``expr.shape + x.shape``."""
    if expr.type.ndim == 1:
        return j
    dims = [expr.shape[i] for i in range(expr.type.ndim)] + [
        x.shape[i] for i in range(x.type.ndim)
    ]
    return tt.reshape(j, tt.stack(dims) if dims else dims, ndim=expr.type.ndim + x.type.ndim)


def _jacobian_vectorized(
    y: TensorVariable, wrt: list[TensorVariable], consider_constant: Any,
    disconnected_inputs: str,
) -> list[TensorVariable]:
    v = y.type("jacobian_seed")
    gs = grad(
        None,
        wrt,
        consider_constant=consider_constant,
        disconnected_inputs=disconnected_inputs,
        known_grads={y: v},
    )
    n = _length(y)
    seeds = tt.eye(n, dtype=y.type.dtype)
    try:
        outs, depth = vectorize_graph_levels(gs, {v: seeds})
    except CannotVectorizeError as exc:
        if y.type.shape[0] is None:
            raise
        warnings.warn(
            f"jacobian: {exc}; building the loop form instead", VectorizeFallbackWarning,
            stacklevel=3,
        )
        return _jacobian_loop(y, wrt, consider_constant, disconnected_inputs)
    return [o if d else _broadcast_rows(o, n) for o, d in zip(_tensors(outs), depth)]


def _jacobian_loop(
    y: TensorVariable, wrt: list[TensorVariable], consider_constant: Any,
    disconnected_inputs: str,
) -> list[TensorVariable]:
    n = y.type.shape[0]
    if n is None:
        raise ValueError(
            f"jacobian(vectorize=False) needs an expression of static length, but {y} has "
            f"type {y.type}; use vectorize=True (the default)"
        )
    rows = [
        grad(
            y[i],
            wrt,
            consider_constant=consider_constant,
            disconnected_inputs=disconnected_inputs,
        )
        for i in range(n)
    ]
    if n == 0:
        return [
            tt.zeros((0, *[x.shape[i] for i in range(x.type.ndim)]), dtype=x.type.dtype)
            for x in wrt
        ]
    return [tt.stack([r[k] for r in rows]) for k in range(len(wrt))]


def jacobian(
    expression: Any,
    wrt: Variable | Sequence[Variable],
    consider_constant: Sequence[Variable] | None = None,
    disconnected_inputs: str = "raise",
    vectorize: bool = True,
) -> Any:
    """The Jacobian of ``expression`` with respect to ``wrt``.

    Parameters
    ----------
    expression
        A tensor of any shape; a scalar gives its gradient.
    wrt
        A Variable or a list of them; the result has the same structure.
    consider_constant, disconnected_inputs
        As in :func:`theon.gradient.grad`.
    vectorize
        ``True`` (default): one batched graph, whose size is independent of the
        number of elements of ``expression``.  ``False``: one gradient per element,
        stacked (needs a static length).

    Returns
    -------
    Variable or list of Variable
        For each ``x`` in ``wrt``, a tensor of shape ``expression.shape + x.shape``.

    Examples
    --------
    >>> import numpy as np, theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> j = jacobian(x ** 2, x)
    >>> j.eval({x: np.array([1.0, 2.0])})
    array([[2., 0.],
           [0., 4.]])
    """
    expr = tt.as_tensor_variable(expression)
    wrt_vars, single = _as_var_list(wrt, "wrt")
    wrt_list = _tensors(wrt_vars)
    res: list[Any]
    if expr.type.ndim == 0:
        res = grad(
            expr, wrt_list, consider_constant=consider_constant,
            disconnected_inputs=disconnected_inputs,
        )
    else:
        y = expr if expr.type.ndim == 1 else tt.flatten(expr)
        build = _jacobian_vectorized if vectorize else _jacobian_loop
        js = build(y, wrt_list, consider_constant, disconnected_inputs)
        res = [_unflatten(j, expr, x) for j, x in zip(js, wrt_list)]
    if single:
        return res[0]
    return tuple(res) if isinstance(wrt, tuple) else list(res)


def hessian(
    cost: Variable,
    wrt: Variable | Sequence[Variable],
    consider_constant: Sequence[Variable] | None = None,
    disconnected_inputs: str = "raise",
    vectorize: bool = True,
) -> Any:
    """The Hessian of scalar ``cost`` with respect to each element of ``wrt``.

    Parameters
    ----------
    cost
        A scalar tensor.
    wrt
        A Variable or a list of them; for each ``x`` the result is
        ``d^2 cost / dx dx`` of shape ``x.shape + x.shape``.
    consider_constant, disconnected_inputs, vectorize
        As in :func:`jacobian`.

    Examples
    --------
    >>> import numpy as np, theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> hessian((x ** 3).sum(), x).eval({x: np.array([1.0, 2.0])})
    array([[ 6.,  0.],
           [ 0., 12.]])
    """
    wrt_list, single = _as_var_list(wrt, "wrt")
    res = []
    for x in wrt_list:
        g = grad(
            cost, x, consider_constant=consider_constant,
            disconnected_inputs=disconnected_inputs,
        )
        res.append(
            jacobian(
                g, x, consider_constant=consider_constant,
                disconnected_inputs="ignore", vectorize=vectorize,
            )
        )
    if single:
        return res[0]
    return tuple(res) if isinstance(wrt, tuple) else res


def hessian_vector_product(
    cost: Variable,
    wrt: Variable | Sequence[Variable],
    p: Any,
    **grad_kwargs: Any,
) -> Any:
    """The Hessian-vector product ``H p`` of scalar ``cost``, without forming ``H``.

    Computed as the gradient of ``grad(cost, wrt) . p`` (exact: the Hessian is
    symmetric), at the cost of about two gradient evaluations.

    Parameters
    ----------
    cost
        A scalar tensor.
    wrt
        A Variable or a list of them (then ``p`` is a list of the same length).
    p
        The vector(s), shaped like ``wrt``.
    **grad_kwargs
        Passed to :func:`theon.gradient.grad` (e.g. ``consider_constant``).

    Examples
    --------
    >>> import numpy as np, theon.tensor as tt
    >>> x, p = tt.dvector("x"), tt.dvector("p")
    >>> hvp = hessian_vector_product((x ** 3).sum(), x, p)
    >>> hvp.eval({x: np.array([1.0, 2.0]), p: np.array([1.0, 1.0])})
    array([ 6., 12.])
    """
    wrt_list, single = _as_var_list(wrt, "wrt")
    ps = [p] if single else list(p)
    if len(ps) != len(wrt_list):
        raise ValueError(f"hessian_vector_product: {len(ps)} vectors for {len(wrt_list)} wrt")
    gs = grad(cost, wrt_list, **grad_kwargs)
    from ._typeutil import add_terms, as_like

    known: dict[Variable, Variable] = {}
    for g, pk in zip(gs, ps):
        pk = as_like(pk, g)
        known[g] = pk if g not in known else add_terms([known[g], pk])
    kw = {k: v for k, v in grad_kwargs.items() if k != "known_grads"}
    kw.setdefault("disconnected_inputs", "ignore")
    res = grad(None, wrt_list, known_grads=known, **kw)
    if single:
        return res[0]
    return tuple(res) if isinstance(wrt, tuple) else res
