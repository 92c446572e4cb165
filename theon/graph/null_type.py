"""Types that mark gradients which are undefined, not implemented, or disconnected.

An Op's ``grad`` returns :func:`grad_undefined` / :func:`grad_not_implemented`
for an input whose gradient does not exist or was not written, and
:func:`disconnected_type` for an input the outputs do not depend on.
``theon.grad`` raises only if such a gradient is actually needed.

>>> v = grad_undefined(None, 0, None, "integer input")
>>> isinstance(v.type, NullType)
True
"""

from __future__ import annotations

from typing import Any

from theon.graph.basic import Variable
from theon.graph.type import Type

__all__ = [
    "DisconnectedType",
    "NullType",
    "disconnected_type",
    "grad_not_implemented",
    "grad_undefined",
    "why_null",
]


class NullType(Type):
    """The type of a gradient that cannot be used; ``why_null`` says why.

    >>> t = NullType("not differentiable")
    >>> t.why_null
    'not differentiable'
    """

    __props__ = ("why_null",)

    def __init__(self, why_null: str = "(no explanation given)") -> None:
        self.why_null = why_null

    def filter(self, x: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        raise ValueError(f"no value can be of a NullType: {self.why_null}")

    def __str__(self) -> str:
        return "NullType"


class DisconnectedType(Type):
    """The type of the gradient of an input the outputs do not depend on.

    >>> isinstance(disconnected_type().type, DisconnectedType)
    True
    """

    def filter(self, x: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        raise ValueError("no value can be of a DisconnectedType: the gradient is disconnected")

    def __str__(self) -> str:
        return "DisconnectedType"


def disconnected_type() -> Variable:
    """A fresh variable standing for a disconnected gradient.

    >>> disconnected_type().type
    DisconnectedType
    """
    return DisconnectedType()()


def _op_text(op: Any) -> str:
    return "an unknown op" if op is None else f"op {op}"


def grad_undefined(op: Any, x_pos: int, x: Any, comment: str = "") -> Variable:
    """The gradient of input ``x_pos`` of ``op`` is mathematically undefined.

    >>> g = grad_undefined("floor", 0, None, "piecewise constant")
    >>> isinstance(g.type, NullType)
    True
    """
    why = f"the gradient of {_op_text(op)} with respect to input {x_pos} is undefined"
    if comment:
        why += f": {comment}"
    return NullType(why)()


def grad_not_implemented(op: Any, x_pos: int, x: Any, comment: str = "") -> Variable:
    """The gradient of input ``x_pos`` of ``op`` exists but is not implemented.

    >>> g = grad_not_implemented("my_op", 1, None)
    >>> isinstance(g.type, NullType)
    True
    """
    why = f"the gradient of {_op_text(op)} with respect to input {x_pos} is not implemented"
    if comment:
        why += f": {comment}"
    return NullType(why)()


def why_null(v: Variable) -> str:
    """Why the gradient ``v`` cannot be used: its NullType's ``why_null`` ("" if none).

    >>> why_null(grad_undefined(None, 0, None, "integer input")).endswith("integer input")
    True
    """
    t = v.type
    return t.why_null if isinstance(t, NullType) else ""
