"""Worked example: a new elementwise function, as a scalar op with its gradient and JAX rule.

The function is the Gudermannian, ``gd(x) = arctan(sinh(x))``, whose derivative
is ``1 / cosh(x)``.  An elementwise function is a *scalar* op (one
number in, one number out), which :class:`~theon.tensor.elemwise.Elemwise` maps
over whole tensors, with NumPy's broadcasting.  Its gradient, its shape and its
fusion with neighbouring elementwise nodes come from the Elemwise machinery.

A scalar op needs:

1. ``name`` and ``nin``; ``output_types_preference``: the output dtype rule
   (``upgrade_to_float_nocomplex``: integers give float64, float32 stays float32);
2. ``impl``: the computation on NumPy values (scalars or whole arrays);
3. ``grad``: the gradient, as scalar ops of the inputs;
4. optionally ``py_template``: one Python expression on floats, which the default
   linker uses for 0-d values and inside fused loops (it must give NumPy's values,
   inf and nan included);
5. optionally, a JAX rule: ``jax_scalar_funcify.register(TheClass)`` returns a
   function of JAX arrays, used by ``mode="JAX"`` (jax is imported only when
   such a function first compiles).

Only this file changes: no table, no registry elsewhere.  Run it with
``python examples/new_scalar_op.py``; ``tests/test_examples.py`` tests it against
NumPy, finite differences and, where jax is installed, ``mode="JAX"``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import theon
import theon.scalar as ts
import theon.tensor as tt
from theon.graph.basic import Variable
from theon.link.jax.dispatch import jax_scalar_funcify
from theon.scalar.basic import UnaryScalarOp, upgrade_to_float_nocomplex
from theon.tensor.elemwise import Elemwise


class Gudermannian(UnaryScalarOp):
    """``gd(x) = arctan(sinh(x))``: from -pi/2 to pi/2, ``x`` itself near 0."""

    name = "gd"
    nin = 1
    output_types_preference = upgrade_to_float_nocomplex
    # math.sinh raises OverflowError past |x| = 710 where NumPy gives inf: _sinh (from
    # the generated code's helpers, theon.scalar.pyimpl) falls back to NumPy there
    py_template = "math.atan(_sinh({0}))"

    def impl(self, x: Any) -> Any:
        return np.arctan(np.sinh(x))

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        # d gd / dx = sech(x) = 1 / cosh(x); 0 where cosh overflows (|x| > 710), as the limit
        (x,) = inputs
        (gz,) = output_grads
        return [ts.true_div(gz, ts.cosh(x))]


#: the scalar op, and the tensor function: Elemwise maps it over tensors
scalar_gd = Gudermannian()
gd = Elemwise(scalar_gd, name="gd")


@jax_scalar_funcify.register(Gudermannian)
def _jax_gd(op: Gudermannian) -> Callable[..., Any]:
    """The JAX rule: the same formula on JAX arrays (theon casts to the output dtype)."""
    import jax.numpy as jnp  # the rule runs only under mode="JAX", where jax is installed

    return lambda x: jnp.arctan(jnp.sinh(x))


def main() -> None:
    x = tt.dvector("x")
    y = gd(x)
    f = theon.function([x], [y, theon.grad(y.sum(), x)])
    value, gradient = f(np.array([-2.0, 0.0, 0.5, 30.0]))
    print("gd:      ", value.round(6))
    print("gradient:", gradient.round(6))
    theon.verify_grad(gd, [np.array([-3.0, -0.1, 0.2, 4.0])], rng=np.random.default_rng(0))
    print("verify_grad: ok")


if __name__ == "__main__":
    main()
