"""Worked example: adding an Op to theon, with its py-linker emitter.

The Op is ``SoftThreshold(lam)``, the proximal operator of ``lam * |x|``::

    soft_threshold(x, lam) = sign(x) * max(|x| - lam, 0)

An Op needs, in order of importance:

1. ``__props__``: the parameters that make two instances the same Op (equality,
   hashing, merging and pickling all follow from them);
2. ``make_node``: check and convert the inputs, and give the output types;
3. ``perform``: compute on NumPy values (the reference every linker is tested against);
4. ``grad`` (or ``L_op``): the gradient as a symbolic graph;
5. ``infer_shape``: output shapes from input shapes, without computing;
6. optionally, a backend rule: here a ``py_emit`` emitter, so the default linker
   writes a direct NumPy call into the generated function instead of calling
   ``perform`` (backends live outside the Op, keyed on its class).

Run it: ``python examples/new_op.py``; ``tests/test_examples.py`` tests it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import theon
import theon.tensor as tt
from theon.graph.basic import Apply, Variable
from theon.graph.op import Op
from theon.link.pyfunc.codegen import NodeEmitter
from theon.link.pyfunc.dispatch import py_emit


class SoftThreshold(Op):
    """``sign(x) * max(|x| - lam, 0)`` elementwise, for a fixed ``lam >= 0``."""

    __props__ = ("lam",)

    def __init__(self, lam: float) -> None:
        if not lam >= 0:
            raise ValueError(f"SoftThreshold needs lam >= 0, got {lam!r}")
        self.lam = float(lam)

    def make_node(self, x: Any) -> Apply:
        x = tt.as_tensor_variable(x)
        if x.type.dtype not in tt.float_dtypes:
            raise TypeError(f"SoftThreshold needs a float tensor, got {x.type}")
        # the output has the input's type: same dtype, same (static) shape
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        (x,) = inputs
        out = np.sign(x) * np.maximum(np.abs(x) - self.lam, 0)
        output_storage[0][0] = np.asarray(out, dtype=node.outputs[0].type.dtype)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        # d/dx = 1 where |x| > lam, else 0 (the kinks at |x| == lam get 0)
        (x,) = inputs
        (gz,) = output_grads
        return [gz * tt.cast(tt.gt(tt.abs(x), self.lam), gz.type.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        return [input_shapes[0]]


def soft_threshold(x: Any, lam: float) -> Variable:
    """``sign(x) * max(|x| - lam, 0)``.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> soft_threshold(x, 1.0).eval({x: [-3.0, 0.5, 2.0]})
    array([-2.,  0.,  1.])
    """
    out = SoftThreshold(lam)(x)
    assert isinstance(out, Variable)
    return out


@py_emit.register(SoftThreshold)
def _emit_soft_threshold(op: SoftThreshold, node: Apply, ctx: NodeEmitter) -> list[str] | None:
    """Direct NumPy lines for the default (py) linker: the same computation as perform."""
    x = ctx.arg(0)  # the input, exactly as perform receives it
    lam = ctx.bind(op.lam, "lam")  # objects become globals of the generated code
    np_ = ctx.bind(np, "np")
    dtype = ctx.bind(np.dtype(node.outputs[0].type.dtype), "dt")
    out = ctx.out(0, fresh=True)  # the local to assign; ``fresh``: a new array
    return [
        f"{out} = {np_}.asarray({np_}.sign({x}) * {np_}.maximum({np_}.abs({x}) - {lam}, 0), "
        f"dtype={dtype})"
    ]


def main() -> None:
    x = tt.dvector("x")
    y = soft_threshold(x, 0.5)
    f = theon.function([x], [y, theon.grad(y.sum(), x)])
    value, gradient = f(np.array([-2.0, -0.25, 0.25, 3.0]))
    print("soft_threshold:", value)
    print("gradient:      ", gradient)
    theon.verify_grad(lambda v: SoftThreshold(0.5)(v), [np.array([-2.0, -0.1, 0.2, 3.0])])
    print("verify_grad: ok")


if __name__ == "__main__":
    main()
