"""Worked example: a backend rule for an Op that already exists.

``SoftThreshold`` (``examples/new_op.py``) computes on the default linker, but
``mode="JAX"`` refuses it: no JAX rule is registered for its class, and the
error says so (``MissingJAXRule``, naming the Op).  A backend rule lives outside
the Op, keyed on its class: this file adds the JAX one, and nothing else changes.

A JAX rule is ``@jax_funcify.register(OpClass)``: given the op and its node, it
returns a function of JAX arrays, one argument per input, giving the outputs (a
tuple when there are several).  It must compute what ``perform`` computes, with
the dtypes of the node's output types.  jax is imported inside the rule, which
runs only when a ``mode="JAX"`` function compiles, so importing this module never
needs jax.  (The other backend rules work the same way: ``py_emit.register`` for
the default linker's source lines, as ``new_op.py`` shows.)

Run it with ``python examples/new_backend_rule.py`` (jax needed);
``tests/test_examples.py`` compares it with NumPy and with the reference VM.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np
from new_op import SoftThreshold, soft_threshold

import theon
import theon.tensor as tt
from theon.graph.basic import Apply
from theon.link.jax.dispatch import jax_funcify


@jax_funcify.register(SoftThreshold)
def _jax_soft_threshold(op: SoftThreshold, node: Apply, **kw: Any) -> Callable[..., Any]:
    """``sign(x) * max(|x| - lam, 0)`` on JAX arrays; the input's dtype is kept."""
    import jax.numpy as jnp

    lam = op.lam

    def soft_threshold_jax(x: Any) -> Any:
        return (jnp.sign(x) * jnp.maximum(jnp.abs(x) - lam, 0)).astype(x.dtype)

    return soft_threshold_jax


def main() -> int:
    try:
        import jax  # noqa: F401
    except ImportError:
        print("this example needs jax: pip install 'theon[jax]'", file=sys.stderr)
        return 1
    x = tt.dvector("x")
    y = soft_threshold(x, 0.5)
    f = theon.function([x], [y, theon.grad(y.sum(), x)], mode="JAX")
    value, gradient = f(np.array([-2.0, -0.25, 0.25, 3.0]))
    print("soft_threshold (JAX):", value)
    print("gradient (JAX):      ", gradient)
    return 0


if __name__ == "__main__":
    sys.exit(main())
