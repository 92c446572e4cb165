"""Identity Ops that change only how gradients flow through a variable.

>>> import theon, theon.tensor as tt
>>> x = tt.dscalar("x")
>>> g = theon.grad(x * zero_grad(x), x)
>>> float(g.eval({x: 3.0}))
3.0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from theon.graph.basic import Apply, Variable
from theon.graph.null_type import disconnected_type, grad_undefined
from theon.graph.op import Op
from theon.tensor.basic import as_tensor_variable

from ._typeutil import zeros_like

__all__ = [
    "DisconnectedGrad",
    "GradClip",
    "GradModifier",
    "UndefinedGrad",
    "ZeroGrad",
    "disconnected_grad",
    "grad_clip",
    "undefined_grad",
    "zero_grad",
]


def _as_variable(x: Any) -> Variable:
    if isinstance(x, Variable):
        return x
    return as_tensor_variable(x)


class GradModifier(Op):
    """Base of the identity Ops whose only effect is on gradients.

    The output is the input itself (a view), so they cost nothing at run time.

    >>> isinstance(ZeroGrad(), GradModifier)
    True
    """

    __props__: tuple[str, ...] = ()
    view_map = {0: [0]}

    def make_node(self, x: Any) -> Apply:
        x = _as_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        output_storage[0][0] = inputs[0]

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        return [tuple(input_shapes[0])]


class DisconnectedGrad(GradModifier):
    """Identity whose input is disconnected from the gradient (like ``consider_constant``).

    >>> import theon
    >>> import theon.tensor as tt
    >>> x = tt.dscalar("x")
    >>> g = theon.grad(x * DisconnectedGrad()(x), x)
    >>> float(g.eval({x: 3.0}))
    3.0
    """

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False]]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return [disconnected_type()]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        return [None]


class ZeroGrad(GradModifier):
    """Identity whose gradient is zero (the input stays connected).

    >>> import theon
    >>> import theon.tensor as tt
    >>> x = tt.dscalar("x")
    >>> g = theon.grad(x * ZeroGrad()(x), x)
    >>> float(g.eval({x: 3.0}))
    3.0
    """

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return [zeros_like(inputs[0])]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        return [zeros_like(inputs[0])]


class UndefinedGrad(GradModifier):
    """Identity whose gradient is undefined: ``theon.grad`` raises if it is needed.

    >>> import theon
    >>> import theon.tensor as tt
    >>> x = tt.dscalar("x")
    >>> try:
    ...     theon.grad(UndefinedGrad()(x), x)
    ... except Exception as e:
    ...     print(type(e).__name__)
    NullTypeGradError
    """

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return [grad_undefined(self, 0, inputs[0], "undefined_grad was applied to it")]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        return [grad_undefined(self, 0, inputs[0], "undefined_grad was applied to it")]


class GradClip(GradModifier):
    """Identity whose gradient is clipped to ``[lower, upper]`` elementwise (Theano's
    ``GradClip``): the gradient ``g`` reaching the output leaves as ``clip(g, lower,
    upper)``.

    >>> import theon
    >>> import theon.tensor as tt
    >>> x = tt.dscalar("x")
    >>> float(theon.grad(GradClip(-1.0, 1.0)(x) * 5, x).eval({x: 3.0}))
    1.0
    """

    __props__ = ("lower", "upper")

    def __init__(self, lower: float, upper: float) -> None:
        if not upper >= lower:
            raise ValueError(
                f"grad_clip: the upper bound {upper!r} is below the lower bound {lower!r}")
        self.lower = lower
        self.upper = upper

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        from theon.tensor.math import clip

        return [clip(output_grads[0], self.lower, self.upper)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        return [eval_points[0]]


_disconnected_grad = DisconnectedGrad()
_zero_grad = ZeroGrad()
_undefined_grad = UndefinedGrad()


def disconnected_grad(x: Any) -> Variable:
    """``x``, with no gradient flowing back through it.

    Gradients with respect to the inputs of ``x`` ignore the paths through this
    variable; if it is the only path, they are disconnected.

    Parameters
    ----------
    x
        A variable (or a value convertible to a tensor).

    Examples
    --------
    >>> import theon, theon.tensor as tt
    >>> x = tt.dscalar("x")
    >>> g = theon.grad(x * disconnected_grad(x), x)
    >>> float(g.eval({x: 3.0}))
    3.0
    """
    out: Variable = _disconnected_grad(x)
    return out


def zero_grad(x: Any) -> Variable:
    """``x``, with a zero gradient (the inputs of ``x`` stay connected).

    Examples
    --------
    >>> import theon, theon.tensor as tt
    >>> x = tt.dscalar("x")
    >>> float(theon.grad(zero_grad(x) ** 2, x).eval({x: 3.0}))
    0.0
    """
    out: Variable = _zero_grad(x)
    return out


def undefined_grad(x: Any) -> Variable:
    """``x``, with an undefined gradient: differentiating through it raises.

    Examples
    --------
    >>> import theon, theon.tensor as tt
    >>> x = tt.dscalar("x")
    >>> y = undefined_grad(x) * 2
    >>> theon.grad(y, x)  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    NullTypeGradError: ...
    """
    out: Variable = _undefined_grad(x)
    return out


def _bound(b: Any, which: str) -> float:
    """A clipping bound as a Python number: a number, or a constant variable."""
    if isinstance(b, Variable):
        from theon.tensor.basic import get_underlying_scalar_constant_value
        from theon.tensor.exceptions import NotScalarConstantError

        try:
            b = get_underlying_scalar_constant_value(b)
        except NotScalarConstantError:
            raise TypeError(
                f"grad_clip: the {which} bound {b} is not a constant; give a number") from None
    return float(b)


def grad_clip(x: Any, lower_bound: Any, upper_bound: Any) -> Variable:
    """``x`` in the forward pass; the gradient through it clipped to ``[lower_bound,
    upper_bound]`` elementwise (Theano's ``theano.gradient.grad_clip``).

    Examples
    --------
    >>> import theon, theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> y = grad_clip(x, -1.0, 1.0)
    >>> theon.grad((y * [0.5, 3.0]).sum(), x).eval({x: [1.0, 2.0]}).tolist()
    [0.5, 1.0]
    """
    out: Variable = GradClip(_bound(lower_bound, "lower"), _bound(upper_bound, "upper"))(x)
    return out
