"""The JAX rule of :class:`~theon.tensor.blockwise.Blockwise`: ``jax.vmap`` of the
core Op's rule over the batch dimensions.

The batched inputs are first broadcast to the common batch shape (NumPy's rules,
as ``Blockwise.perform``); inputs without batch dimensions (and non-tensor
inputs such as random keys) are passed unbatched (``in_axes=None``).  One
``vmap`` is applied per batch dimension, so the core rule always sees one block.
A linear algebra rule's failure guard (NaN in a failed block) runs once on the
whole batch, after the mapped computation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from theon.graph.basic import Apply
from theon.link.jax.dispatch import jax_funcify
from theon.tensor.blockwise import Blockwise

__all__: list[str] = []


@jax_funcify.register(Blockwise)
def _blockwise(op: Blockwise, node: Apply, **kw: Any) -> Callable[..., Any]:
    core_node = op.core_node(node)
    core = jax_funcify(core_node.op, core_node, **kw)
    bs = op.batch_ndims(node.inputs)

    def blockwise(*inputs: Any) -> Any:
        import jax
        import jax.numpy as jnp
        import numpy as np

        shapes = [tuple(jnp.shape(x))[:b] for x, b in zip(inputs, bs) if b]
        batch = tuple(np.broadcast_shapes(*shapes)) if shapes else ()
        args = [
            jnp.broadcast_to(x, batch + tuple(jnp.shape(x))[b:]) if b else x
            for x, b in zip(inputs, bs)
        ]
        axes = tuple(0 if b else None for b in bs)
        # a rule with a failure guard (linalg) gives it apart: applied once, below
        parts = getattr(core, "batched_parts", None)
        fn: Callable[..., Any] = core if parts is None else parts[0]
        for _ in batch:
            fn = jax.vmap(fn, in_axes=axes)
        outs = fn(*args)
        if parts is None:
            return outs
        return parts[1](args, [b > 0 for b in bs], list(outs), len(batch))

    return blockwise
