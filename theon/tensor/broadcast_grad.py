"""The gradient of an Elemwise input whose unknown lengths may be 1 at run time.

NumPy broadcasts a length of 1 against any length.  theon does the same for a
function's inputs: where an input's static length is unknown (``None``) and it is
1 at run time, the compiled function specializes on that (it recompiles with the
length declared 1, once per pattern: see :meth:`theon.compile.Function.__call__`).
The gradient with respect to such an input must then be summed back to its
length, which a graph built before knowing the lengths cannot say.  So
``Elemwise.L_op`` gives ``BroadcastGrad(g, x)``: "``g`` summed to ``x``'s shape over
the axes along which ``x`` was broadcast", decided when the function is compiled,
from the types the compiled graph has (the rewrite ``local_broadcast_grad`` turns it
into the static reduction ``sum_to_type(g, x)``).  Run without rewrites, it sums over
the axes where ``x`` is 1 at run time.

>>> import numpy as np, theon, theon.tensor as tt
>>> x, y = tt.dmatrix("x"), tt.dmatrix("y")
>>> gx = theon.grad((x * y).sum(), x)
>>> f = theon.function([x, y], gx)
>>> f(np.ones((1, 3)), np.arange(6.0).reshape(2, 3))  # x broadcast along rows
array([[3., 5., 7.]])
>>> f(np.ones((2, 3)), np.arange(6.0).reshape(2, 3))
array([[0., 1., 2.],
       [3., 4., 5.]])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Variable
from theon.graph.null_type import disconnected_type
from theon.tensor.basic import TensorOp, as_tensor_variable
from theon.tensor.type import TensorType, tensor_type
from theon.tensor.variable import TensorVariable

__all__ = ["BroadcastGrad", "broadcast_grad", "may_broadcast", "resolve_broadcast_grads"]


class BroadcastGrad(TensorOp):
    """``g`` summed to the shape of ``x`` (leading axes, and the axes where ``x`` has
    length 1 and ``g`` not), in ``x``'s dtype: the gradient of broadcasting ``x``.

    ``batch_ndim`` leading axes of ``g`` are batch axes (a vectorized gradient,
    :func:`theon.gradient.vectorize_graph`), kept as they are; ``x`` has them too when
    ``x_batched``.
    """

    __props__ = ("batch_ndim", "x_batched")

    def __init__(self, batch_ndim: int = 0, x_batched: bool = False) -> None:
        self.batch_ndim = int(batch_ndim)
        self.x_batched = bool(x_batched)

    def _core(self, x: Variable) -> TensorType:
        xt = tensor_type(x)
        return TensorType(xt.dtype, shape=xt.shape[self.batch_ndim:]) if self.x_batched else xt

    def make_node(self, g: Any, x: Any) -> Apply:
        from theon.tensor.elemwise import sum_to_type

        g, x = as_tensor_variable(g), as_tensor_variable(x)
        k = self.batch_ndim
        gt = tensor_type(g)
        # the type of the static reduction the compiled graph will have
        core = tensor_type(sum_to_type(TensorType(gt.dtype, shape=gt.shape[k:])(),
                                       self._core(x)()))
        return Apply(self, [g, x], [TensorType(core.dtype, shape=gt.shape[:k] + core.shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        g, x = inputs
        g = np.asarray(g)
        k = self.batch_ndim
        xs = x.shape[k:] if self.x_batched else x.shape
        lead = g.ndim - k - len(xs)
        if lead < 0:  # a smaller gradient (a constant): it is filled out below
            g = g.reshape(g.shape[:k] + (1,) * -lead + g.shape[k:])
        elif lead:
            g = g.sum(axis=tuple(range(k, k + lead)))
        axes = tuple(k + d for d in range(len(xs)) if xs[d] == 1 and g.shape[k + d] != 1)
        if axes:
            g = g.sum(axis=axes, keepdims=True)
        want = g.shape[:k] + xs
        if g.shape != want:  # g was smaller (a length-1 output gradient)
            g = np.broadcast_to(g, want)
        output_storage[0][0] = np.array(g, dtype=x.dtype)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[Any]:
        k = self.batch_ndim
        xs = tuple(input_shapes[1])
        return [tuple(input_shapes[0][:k]) + (xs[k:] if self.x_batched else xs)]

    def static(self, node: Apply) -> Variable | None:
        """The static reduction for ``node``'s types (``None`` where it would have to fill
        a batched gradient out: the node then keeps its run-time reduction)."""
        from theon.tensor.basic import cast
        from theon.tensor.elemwise import sum_to_type
        from theon.tensor.math import sum as tsum

        g, x = node.inputs
        k = self.batch_ndim
        if k == 0:
            return sum_to_type(g, x)
        xs = self._core(x).shape
        lead = tensor_type(g).ndim - k - len(xs)
        if lead < 0:
            return None
        if lead:
            g = tsum(g, axis=tuple(range(k, k + lead)))
        gs = tensor_type(g).shape[k:]
        if any(a == 1 and b != 1 for a, b in zip(gs, xs)):
            return None
        axes = [k + d for d, (a, b) in enumerate(zip(gs, xs)) if b == 1 and a != 1]
        if axes:
            g = tsum(g, axis=axes, keepdims=True)
        want = tensor_type(node.outputs[0]).dtype
        return cast(g, want) if tensor_type(g).dtype != want else g

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False]]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        from theon.tensor.creation import alloc
        from theon.tensor.shape import shape_tuple

        g, _ = inputs
        gg = output_grads[0]
        if tensor_type(gg).dtype != tensor_type(g).dtype:
            from theon.tensor.basic import cast

            gg = cast(gg, tensor_type(g).dtype)
        return [alloc(gg, *shape_tuple(g)), disconnected_type()]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], inputs[1])]


def may_broadcast(x: Variable, inputs: Sequence[Variable], out_ndim: int) -> bool:
    """Whether ``x``, an input of an Elemwise node with ``inputs``, has an unknown length
    that may be 1 at run time where another input's length is not statically 1 (so the
    gradient must be summed there if it is)."""
    xs = tensor_type(x).shape
    off = out_ndim - len(xs)
    for d, s in enumerate(xs):
        if s is not None:
            continue
        for y in inputs:
            if y is x:
                continue
            ys = tensor_type(y).shape
            k = d + off - (out_ndim - len(ys))
            if 0 <= k < len(ys) and ys[k] != 1:
                return True
    return False


def broadcast_grad(g: Variable, x: Variable) -> TensorVariable:
    """``BroadcastGrad()(g, x)``: the gradient ``g`` of a broadcast, summed to ``x``.

    >>> import theon.tensor as tt
    >>> broadcast_grad(tt.dmatrix("g"), tt.dvector("x")).type
    TensorType(float64, shape=(None,))
    """
    return BroadcastGrad()(g, x)


def resolve_broadcast_grads(outputs: Sequence[Variable]) -> list[Variable]:
    """``outputs`` with each ``BroadcastGrad(g, x)`` replaced by the static reduction
    ``sum_to_type(g, x)``, for a graph whose types are final (a loop's body, whose
    unknown lengths do not broadcast at run time).

    >>> import theon, theon.tensor as tt
    >>> x, y = tt.dmatrix("x"), tt.dmatrix("y")
    >>> (g,) = resolve_broadcast_grads([theon.grad((x * y).sum(), x)])
    >>> any(isinstance(n.op, BroadcastGrad) for n in theon.graph.traversal.toposort([g]))
    False
    """
    from theon.graph.replace import clone_replace
    from theon.graph.traversal import toposort

    found = [(n, n.op) for n in toposort(list(outputs)) if isinstance(n.op, BroadcastGrad)]
    if not found:
        return list(outputs)
    memo: dict[Any, Any] = {}
    for n, op in found:  # in graph order: a node's g may itself hold earlier ones
        g, x = clone_replace([n.inputs[0], n.inputs[1]], memo=memo)
        new = op.static(op.make_node(g, x))
        if new is not None:
            memo[n.outputs[0]] = new
    return list(clone_replace(list(outputs), memo=memo))
