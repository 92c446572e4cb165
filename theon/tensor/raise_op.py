"""Checks inside a graph: ``CheckAndRaise`` passes its value through when all its
conditions hold and raises a given exception otherwise (PyTensor's ``raise_op``).

``Assert(msg)`` raises ``AssertionError``.  The output is the value itself (a view), so a
check costs one test per condition.  A check stays in the compiled graph as long as its
output is used: rewrites drop a condition only when it is a constant known to be true,
and the whole check when all are (see ``theon.tensor.rewriting.raise_op``).  A check
with constant inputs is folded at compile time only when it passes.

>>> import numpy as np, theon, theon.tensor as tt
>>> x = tt.dvector("x")
>>> y = Assert("x must be positive")(x, tt.all(x > 0))
>>> f = theon.function([x], y * 2)
>>> f(np.array([1.0, 2.0]))
array([2., 4.])
>>> try:
...     f(np.array([1.0, -2.0]))
... except AssertionError as e:
...     print(e.args[0])
x must be positive
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.null_type import disconnected_type
from theon.graph.op import Op
from theon.link.registry import register_linker_backend
from theon.rewriting.db import register_rewrite_module
from theon.tensor.basic import as_tensor_variable, cast

__all__ = ["Assert", "CheckAndRaise", "assert_op"]


class CheckAndRaise(Op):
    """``value`` if every condition is true, else ``raise exc_type(msg)``.

    Parameters
    ----------
    exc_type
        The exception class raised (a subclass of ``Exception``).
    msg
        Its message.

    ``make_node(value, *conds)``: ``value`` is any variable (or a value made a tensor);
    each condition is a 0-d tensor (or a scalar variable or number), read as a boolean.

    >>> import theon.tensor as tt
    >>> x = tt.dscalar("x")
    >>> check = CheckAndRaise(ValueError, "x is negative")
    >>> check(x, x >= 0).eval({x: 2.0})
    array(2.)
    >>> str(check)
    "CheckAndRaise{raises=ValueError, msg='x is negative'}"
    """

    __props__ = ("msg", "exc_type")
    view_map = {0: [0]}

    def __init__(self, exc_type: type[Exception], msg: str = "") -> None:
        if not (isinstance(exc_type, type) and issubclass(exc_type, Exception)):
            raise ValueError(
                f"CheckAndRaise: exc_type must be an Exception class, got {exc_type!r}"
            )
        self.exc_type = exc_type
        self.msg = msg

    def __str__(self) -> str:
        return f"{type(self).__name__}{{raises={self.exc_type.__name__}, msg='{_short(self.msg)}'}}"

    def make_node(self, value: Any, *conds: Any) -> Apply:
        v = value if isinstance(value, Variable) else as_tensor_variable(value)
        cs: list[Variable] = []
        for i, c in enumerate(conds):
            t = as_tensor_variable(c)
            if t.type.ndim != 0:
                raise TypeError(
                    f"{self}: condition {i} must be a scalar (0-d), got {t} of {t.type}; "
                    "reduce it first, e.g. with theon.tensor.all"
                )
            cs.append(t if t.type.dtype == "bool" else cast(t, "bool"))
        return Apply(self, [v, *cs], [v.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        value, *conds = inputs
        for c in conds:
            if not c:
                raise self.exc_type(self.msg)
        output_storage[0][0] = value

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[Any]:
        return [input_shapes[0]]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return [output_grads[0], *(disconnected_type() for _ in inputs[1:])]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True]] + [[False] for _ in node.inputs[1:]]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        return [eval_points[0]]

    def do_constant_folding(self, node: Apply) -> bool:
        """Fold only a check that passes: a failing one must raise when the function runs."""
        return all(isinstance(c, Constant) and bool(c.data) for c in node.inputs[1:])


class Assert(CheckAndRaise):
    """``value`` if every condition is true, else ``AssertionError(msg)``.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> str(Assert("x is not empty")(x, x.shape[0] > 0).owner.op)
    "Assert{msg='x is not empty'}"
    """

    def __init__(self, msg: str = "theon Assert failed!") -> None:
        super().__init__(AssertionError, msg)

    def __str__(self) -> str:
        return f"Assert{{msg='{_short(self.msg)}'}}"


assert_op = Assert()


def _short(msg: str) -> str:
    return msg if len(msg) <= 30 else msg[:27] + "..."


register_rewrite_module("theon.tensor.rewriting.raise_op")
register_linker_backend("jax", "theon.backends.jax.basic")
