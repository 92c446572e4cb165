"""JAX rules for the patch Ops of :mod:`theon.tensor.nnet.neighbours`.

``images2neibs`` is a gather: each image flattened, a zero appended (the padding
of modes ``'half'`` and ``'full'``), and the patch elements read by the flat index
that :func:`~theon.tensor.nnet.neighbours.neib_index` computes with NumPy while
tracing; its gradient is the scatter-add by the same index.  The index depends on
the images' lengths (static under ``jax.jit``) and on ``neib_shape`` and
``neib_step``, which must be constants of the graph.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from theon.backends.jax.tensor import DynamicShapeError
from theon.graph.basic import Apply
from theon.link.jax.dispatch import jax_funcify
from theon.tensor.nnet.neighbours import Images2Neibs, Images2NeibsGrad, _constant_pair
from theon.tensor.type import tensor_type

__all__: list[str] = []


def _pairs(node: Apply, first: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """``neib_shape`` and ``neib_step``: inputs ``first`` and ``first + 1``, constants."""
    shape = _constant_pair(node.inputs[first])
    step = _constant_pair(node.inputs[first + 1])
    if shape is None or step is None:
        raise DynamicShapeError(
            f"mode='JAX': {node.op} has a neib_shape or neib_step computed at run time; under "
            "jax.jit the patches must be known when tracing (give them as constants)")
    return shape, step


@jax_funcify.register(Images2Neibs)
def _images2neibs(op: Images2Neibs, node: Apply, **kw: Any) -> Callable[..., Any]:
    shape, step = _pairs(node, 1)
    dtype = tensor_type(node.outputs[0]).dtype

    def images2neibs(x: Any, *_: Any) -> Any:
        import jax.numpy as jnp

        idx = op.index(x.shape, shape, step)
        batch = x.shape[0] * x.shape[1]
        flat = x.reshape(batch, x.shape[2] * x.shape[3])
        padded = jnp.concatenate([flat, jnp.zeros((batch, 1), x.dtype)], axis=1)
        return padded[:, idx].reshape(batch * idx.shape[0], idx.shape[1]).astype(dtype)

    return images2neibs


@jax_funcify.register(Images2NeibsGrad)
def _images2neibs_grad(op: Images2NeibsGrad, node: Apply, **kw: Any) -> Callable[..., Any]:
    shape, step = _pairs(node, 2)
    dtype = tensor_type(node.outputs[0]).dtype

    def images2neibs_grad(gz: Any, x: Any, *_: Any) -> Any:
        import jax.numpy as jnp

        idx = op.index(x.shape, shape, step)
        batch = x.shape[0] * x.shape[1]
        acc = jnp.zeros((batch, x.shape[2] * x.shape[3] + 1), dtype)
        acc = acc.at[:, idx.reshape(-1)].add(gz.reshape(batch, -1).astype(dtype))
        return acc[:, :-1].reshape(x.shape)

    return images2neibs_grad
