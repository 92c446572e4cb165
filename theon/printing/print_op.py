"""``Print``: an identity Op that prints its value whenever the graph runs.

``Print(message)(x)`` is ``x`` (a view of it, ``view_map = {0: [0]}``), and each time a
compiled function computes it, it prints ``"<message> __str__ = <value>"``: one line
per entry of ``attrs`` (``"__str__"`` by default; ``attrs=("shape", "sum")`` prints
``x.shape`` and ``x.sum()``: an attribute that is callable is called).  A
``global_fn(op, value)`` replaces the printing altogether.

No rewrite removes it or looks through it: its output is rewritten as any other
variable is (``log(1 + p)`` becomes ``log1p(p)``), but nothing skips the node to reach
its input.  It is never constant-folded (so a constant's value prints at run time, on
every call), and its gradient is the output's.  Two ``Print`` nodes with the same
message, ``attrs`` and ``global_fn`` on the same input are merged, and print once.
With ``mode="JAX"`` the value is printed by a host callback (``jax.debug.callback``),
with the same text.

>>> import numpy as np, theon, theon.tensor as tt
>>> x = tt.dvector("x")
>>> f = theon.function([x], Print("x is")(x) * 2)
>>> f(np.array([1.0, 2.0]))
x is __str__ = [1. 2.]
array([2., 4.])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from theon.graph.basic import Apply, Variable
from theon.graph.op import Op

__all__ = ["Print", "print_value"]


def print_value(op: Print, value: Any) -> None:
    """``Print``'s default ``global_fn``: one line ``"<message> <attr> = <x>"`` per attr,
    an attribute that is callable called (``"__str__"`` gives ``str(value)``).

    >>> import numpy as np
    >>> print_value(Print("v", attrs=("shape", "sum")), np.ones(3))
    v shape = (3,)
    v sum = 3.0
    """
    for attr in op.attrs:
        got = getattr(value, attr)
        if callable(got):
            got = got()
        print(f"{op.message} {attr} = {got}")


class Print(Op):
    """Identity that prints ``message`` and its input's ``attrs`` at run time (see the
    module docstring).

    Parameters
    ----------
    message
        Printed first on each line.
    attrs
        Names of the value's attributes (or methods, called without arguments) to print.
    global_fn
        ``global_fn(op, value)`` does the printing (default: :func:`print_value`).
    """

    __props__ = ("message", "attrs", "global_fn")
    view_map = {0: [0]}

    def __init__(self, message: str = "", attrs: Sequence[str] = ("__str__",),
                 global_fn: Callable[[Print, Any], Any] = print_value) -> None:
        self.message = message
        self.attrs = tuple(attrs)
        self.global_fn = global_fn

    def make_node(self, x: Any) -> Apply:
        if not isinstance(x, Variable):
            raise TypeError(
                f"Print({self.message!r}) needs a symbolic variable, got "
                f"{type(x).__name__} {x!r}")
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        (x,) = inputs
        self.global_fn(self, x)
        output_storage[0][0] = x

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return list(output_grads)

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        return list(eval_points)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[Any]:
        return [input_shapes[0]]

    def do_constant_folding(self, node: Apply) -> bool:
        """Never: the value must print when the function runs, on every call."""
        return False

    def __str__(self) -> str:
        return f"Print{{{self.message!r}}}"
