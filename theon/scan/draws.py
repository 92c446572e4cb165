"""The marker of a loop's hidden draw stacks: :class:`KeptDraw`.

A loop that threads a random generator (a carried state) stacks each step's draws as
extra outputs that are not fed back, so that its gradient reads the numbers the loop
drew instead of drawing again (:mod:`theon.scan.grad`).  Those outputs are theon's
own: PyTensor's loops have no such outputs, and its programs (PyMC) take a loop's
outputs for the user's.  The body computes each such output as ``KeptDraw(draw)``,
the draw itself, so that :class:`~theon.scan.args.ScanArgs` can leave them out; the
rewrite ``remove_kept_draw`` takes the marker away when the body is compiled.

>>> import theon.tensor as tt
>>> d = tt.dvector("d")
>>> k = kept_draw(d)
>>> str(k.owner.op), kept_source(k) is d, kept_source(d) is d
('KeptDraw', True, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from theon.graph.basic import Apply, Variable
from theon.graph.op import Op
from theon.tensor.basic import as_tensor_variable

__all__ = ["KeptDraw", "is_kept_draw", "kept_draw", "kept_source"]


class KeptDraw(Op):
    """``x`` itself: a random draw a loop keeps (stacks) for its gradient."""

    __props__ = ()
    view_map = {0: [0]}

    def make_node(self, x: Any) -> Apply:
        v = as_tensor_variable(x)
        return Apply(self, [v], [v.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]
                ) -> None:
        output_storage[0][0] = inputs[0]

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[Any]:
        return [input_shapes[0]]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return [output_grads[0]]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        return [eval_points[0]]


_kept = KeptDraw()


def kept_draw(x: Variable) -> Variable:
    """``x`` marked as a draw kept for the gradient."""
    out: Variable = _kept(x)
    return out


def is_kept_draw(v: Variable) -> bool:
    """Whether ``v`` is a :func:`kept_draw`."""
    return v.owner is not None and isinstance(v.owner.op, KeptDraw)


def kept_source(v: Variable) -> Variable:
    """The draw under a :func:`kept_draw`, else ``v``."""
    if v.owner is not None and isinstance(v.owner.op, KeptDraw):
        return v.owner.inputs[0]
    return v
