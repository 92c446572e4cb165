"""The JAX rule of ``theon.printing.Print``: the value goes to the host and is printed
there by the Op's own ``global_fn`` (``jax.debug.callback``), at run time, on every call
of the jitted function, with the same text as the other linkers; the value passes
through unchanged.

Registered for the ``"jax"`` linker by ``theon.compile``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from theon.graph.basic import Apply
from theon.link.jax.dispatch import jax_funcify
from theon.printing.print_op import Print

__all__: list[str] = []


@jax_funcify.register(Print)
def _print(op: Print, node: Apply, **kw: Any) -> Callable[..., Any]:
    import jax

    def show(value: Any) -> None:
        op.global_fn(op, np.asarray(value))

    def fn(x: Any) -> Any:
        jax.debug.callback(show, x, ordered=True)
        return x

    return fn
