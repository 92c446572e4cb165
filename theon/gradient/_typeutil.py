"""Type-generic helpers for gradient graphs: ones, zeros, sums, casts.

Tensor variables go through :mod:`theon.tensor` (the gradient layer sits above
it); other Types (scalar types, toy types in tests) get constants made by their
own ``filter``.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Sequence
from typing import Any

import theon.tensor as tt
from theon.graph.basic import Variable
from theon.graph.fg import describe
from theon.graph.null_type import DisconnectedType, NullType
from theon.tensor.type import TensorType

__all__ = [
    "add_terms",
    "as_like",
    "fit_grad",
    "is_discrete",
    "is_disconnected",
    "is_null",
    "ones_like",
    "zeros_like",
]

_DISCRETE_PREFIXES = ("int", "uint", "bool")


def is_tensor(v: Variable) -> bool:
    """Whether ``v`` is a tensor variable."""
    return isinstance(v.type, TensorType)


def is_discrete(v: Variable) -> bool:
    """Whether ``v`` has an integer or boolean dtype, or a Type that sets
    ``never_differentiable`` (a random generator): gradients never flow into it."""
    if getattr(v.type, "never_differentiable", False):
        return True
    dtype = getattr(v.type, "dtype", None)
    return isinstance(dtype, str) and dtype.startswith(_DISCRETE_PREFIXES)


def is_null(v: Any) -> bool:
    """Whether ``v`` is a NullType (undefined / not implemented) gradient."""
    return isinstance(v, Variable) and isinstance(v.type, NullType)


def is_disconnected(v: Any) -> bool:
    """Whether ``v`` is a DisconnectedType gradient."""
    return isinstance(v, Variable) and isinstance(v.type, DisconnectedType)


def _filled(v: Variable, value: float) -> Variable:
    if is_tensor(v):
        return tt.ones_like(v) if value == 1.0 else tt.zeros_like(v)
    filled_like = getattr(v.type, "filled_like", None)
    if filled_like is not None:  # a type whose constants cannot be made from a number
        filled: Variable = filled_like(v, value)
        return filled
    try:
        data = v.type.filter(value, allow_downcast=True)
    except Exception as exc:
        raise TypeError(
            f"theon.grad cannot build a constant {value} like {describe(v)}: its type "
            f"does not accept {value!r} ({exc})"
        ) from exc
    return v.type.make_constant(data)


def ones_like(v: Variable) -> Variable:
    """A variable of ones with the type (and shape) of ``v``."""
    return _filled(v, 1.0)


def zeros_like(v: Variable) -> Variable:
    """A variable of zeros with the type (and shape) of ``v``."""
    return _filled(v, 0.0)


def add_terms(terms: Sequence[Variable]) -> Variable:
    """The sum of gradient terms (one n-ary add for tensors)."""
    if len(terms) == 1:
        return terms[0]
    if all(is_tensor(t) for t in terms):
        return tt.add(*terms)
    return functools.reduce(operator.add, terms)


def as_like(value: Any, like: Variable) -> Variable:
    """``value`` as a Variable to be used as the gradient of ``like``."""
    if isinstance(value, Variable):
        return value
    if is_tensor(like):
        return tt.as_tensor_variable(value)
    return like.type.filter_variable(value)


def fit_grad(g: Variable, x: Variable, where: str) -> Variable:
    """Check gradient ``g`` against variable ``x`` and cast it to ``x``'s dtype if needed.

    ``where`` says who produced ``g``, for the error message.
    """
    gt, xt = g.type, x.type
    if gt == xt:
        return g
    if isinstance(xt, TensorType):
        if not isinstance(gt, TensorType):
            raise TypeError(
                f"{where} returned a gradient of type {gt} for tensor input {describe(x)}"
            )
        gnd, xnd = gt.ndim, xt.ndim
        if gnd != xnd:
            raise ValueError(
                f"{where} returned a gradient with {gnd} dimensions for {describe(x)}, "
                f"which has {xnd}"
            )
        if gt.dtype != xt.dtype:
            g = tt.cast(g, xt.dtype)
        return g
    if type(g.type) is type(x.type):
        # e.g. scalar types of another float dtype: let the type convert if it can
        conv = x.type.convert_variable(g)
        return conv if conv is not None else g
    xd, gd = getattr(x.type, "dtype", None), getattr(g.type, "dtype", None)
    if xd is not None and xd == gd:
        return g
    raise TypeError(f"{where} returned a gradient of type {g.type} for {describe(x)}")
