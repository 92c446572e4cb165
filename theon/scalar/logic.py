"""Comparisons, logical and bitwise ops, switch, and the nan/inf tests.

Discrete results have no gradient: integer and boolean inputs get
disconnected gradients, float inputs of a comparison get zeros.  All but
``switch`` are rows of :mod:`theon.scalar.table`.

>>> from theon.scalar.type import float64
>>> x = float64("x")
>>> lt(x, 1.0).type
ScalarType(bool)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Variable
from theon.graph.null_type import disconnected_type
from theon.scalar import rowops as _rowops
from theon.scalar.basic import ScalarOp, _discrete, _grad_as, _zero_grad
from theon.scalar.rowops import *  # noqa: F403  (every row's class and op, by name)
from theon.scalar.type import ScalarType, constant, get_scalar_type, scalar_type, upcast

__all__ = [
    "Switch",
    "switch",
]
__all__ += _rowops.FAMILY_ALL["logic"]


class Switch(ScalarOp):
    """``a if cond else b`` (``np.where``; the dtype is the upcast of ``a`` and ``b``).

    >>> from theon.scalar.type import bool_, float32
    >>> switch(bool_("c"), float32("a"), 0.0).type
    ScalarType(float32)
    """

    name = "switch"
    nin = 3
    no_promote_inputs = (0,)

    def output_types(self, *types: ScalarType) -> list[ScalarType]:
        bad = [t for t in types if not isinstance(t, ScalarType)]
        if bad:
            raise TypeError(f"scalar op switch got non-scalar input types {bad}")
        return [get_scalar_type(upcast(types[1].dtype, types[2].dtype))]

    def impl(self, cond: Any, a: Any, b: Any) -> Any:
        return np.where(cond, a, b)

    py_template = "({1} if {0} else {2})"

    def py_expr_ok(self, node: Apply) -> bool:
        c, a, b = (scalar_type(v).dtype for v in node.inputs)
        out = scalar_type(node.outputs[0]).dtype
        return c in ("bool", "float64") and a == b == out == "float64"

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        c, a, b = inputs
        (gz,) = output_grads
        zero = constant(0, dtype=scalar_type(gz).dtype)
        ga = disconnected_type() if _discrete(a) else _grad_as(switch(c, gz, zero), a)
        gb = disconnected_type() if _discrete(b) else _grad_as(switch(c, zero, gz), b)
        return [_zero_grad(c), ga, gb]


switch = Switch()
