"""JAX rules for the solver Ops of ``theon.tensor.optimize``.

``scipy.optimize`` runs Python code that jax.jit cannot trace, so each solver Op is a
host callback (``jax.pure_callback``): the traced function calls the Op's ``perform``
(its inner graph compiled for the default mode) with the concrete values, and the
results come back with the shapes and dtypes of the node's outputs.  The gradients of
the solutions are graphs of ordinary Ops (the implicit function theorem's solve and
vector-Jacobian product), which trace as usual.

Registered by ``theon.tensor.optimize`` for the ``"jax"`` linker.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from theon.backends.jax.host import host_call
from theon.graph.basic import Apply
from theon.link.jax.dispatch import DynamicShapeError, jax_funcify
from theon.tensor.optimize import ScipyWrapperOp
from theon.tensor.type import tensor_type

__all__: list[str] = []


@jax_funcify.register(ScipyWrapperOp)
def _solver(op: ScipyWrapperOp, node: Apply, **kw: Any) -> Callable[..., Any]:
    shapes = [tensor_type(o).shape for o in node.outputs]

    def host(*values: Any) -> tuple[np.ndarray, ...]:
        storage: list[list[Any]] = [[None] for _ in node.outputs]
        op.perform(node, [np.asarray(v) for v in values], storage)
        return tuple(np.asarray(c[0], dtype=tensor_type(o).dtype)
                     for c, o in zip(storage, node.outputs))

    def f(*args: Any) -> Any:
        outs: list[tuple[tuple[int, ...], str]] = []
        for k, o in enumerate(node.outputs):
            static = shapes[k]
            if any(s is None for s in static):
                if k >= op.n_x:
                    raise DynamicShapeError(f"mode='JAX': unknown shape of {o} in {node}")
                shape = tuple(args[k].shape)  # a solution has its starting point's shape
            else:
                shape = tuple(int(s) for s in static if s is not None)
            outs.append((shape, tensor_type(o).dtype))
        return tuple(host_call(host, outs, *args))

    return f
