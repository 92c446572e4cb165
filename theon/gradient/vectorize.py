"""Batching a graph along a new leading axis (used by the vectorized jacobian).

``vectorize_graph(outputs, {v: V})`` rebuilds ``outputs`` with ``v`` replaced by
``V``, which has one more, leading, *batch* axis: each output comes back with the
same batch axis, computing the original graph once per row of ``V``, as one graph.

Nodes that do not depend on a replaced variable are kept as they are.  Each
other node is rebuilt by the rule registered for its Op class (see
:func:`register_vectorize`), or by an Op's own ``vectorize_node`` method.  A node
without a rule becomes a :class:`LoopedApply`, which runs the original Op once
per batch row in ``perform``: correct for any Op, fast only where rules exist.

>>> import numpy as np, theon.tensor as tt
>>> v, V = tt.dvector("v"), tt.dmatrix("V")
>>> [total], [batched] = vectorize_graph([tt.exp(v).sum()], {v: V})
>>> total.eval({V: np.zeros((2, 3))})
array([3., 3.])
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Variable
from theon.graph.op import Op
from theon.graph.traversal import io_toposort

from ._typeutil import is_tensor

__all__ = [
    "CannotVectorizeError",
    "LoopedApply",
    "VectorizeFallbackWarning",
    "register_vectorize",
    "vectorize_graph",
    "vectorize_node",
]


class VectorizeFallbackWarning(UserWarning):
    """A node had no (working) batching rule and runs once per batch row instead.

    >>> issubclass(VectorizeFallbackWarning, UserWarning)
    True
    """


class CannotVectorizeError(TypeError):
    """A node cannot be batched at all (its batched values are not tensors).

    >>> issubclass(CannotVectorizeError, Exception)
    True
    """

# a rule: (op, node, new_inputs, batched_flags) -> outputs (all batched)
#         or (outputs, output_batched_flags)
Rule = Callable[[Any, Apply, list[Variable], list[bool]], Any]
_RULES: dict[type, Rule] = {}


def register_vectorize(*op_types: type) -> Callable[[Rule], Rule]:
    """Register a batching rule for the given Op classes (and their subclasses).

    The rule gets ``(op, node, inputs, batched)``: ``inputs[i]`` is the new input
    ``i``, with a leading batch axis when ``batched[i]``.  It returns the new
    outputs, all with a leading batch axis, or ``(outputs, batched_flags)``.

    Examples
    --------
    >>> from theon.graph.op import Op
    >>> class MyOp(Op):
    ...     __props__ = ()
    >>> @register_vectorize(MyOp)
    ... def _vectorize_myop(op, node, inputs, batched):
    ...     return op.make_node(*inputs).outputs
    """

    def deco(fn: Rule) -> Rule:
        for t in op_types:
            _RULES[t] = fn
        return fn

    return deco


def _rule_for(op: Op) -> Rule | None:
    for cls in type(op).__mro__:
        rule = _RULES.get(cls)
        if rule is not None:
            return rule
    meth = getattr(op, "vectorize_node", None)
    if meth is not None:
        return lambda op_, node, ins, flags: meth(node, ins, flags)
    return None


def _load_rules() -> None:
    from theon.gradient import _vectorize_rules  # noqa: F401  (registers the tensor rules)


def vectorize_node(node: Apply, inputs: list[Variable], batched: list[bool]) -> tuple[
    list[Variable], list[bool]
]:
    """The batched version of ``node`` on ``inputs`` (some with a leading batch axis).

    >>> import theon.tensor as tt
    >>> x, xb = tt.dvector("x"), tt.dmatrix("xb")
    >>> outs, batched = vectorize_node(tt.exp(x).owner, [xb], [True])
    >>> outs[0].type.ndim, batched
    (2, [True])
    """
    _load_rules()
    rule = _rule_for(node.op)
    res: Any = None
    if rule is not None:
        try:
            res = rule(node.op, node, inputs, batched)
        except (TypeError, ValueError) as exc:
            warnings.warn(
                f"the batching rule of {node.op} failed ({exc}); the node will run once per "
                "batch row",
                VectorizeFallbackWarning,
                stacklevel=2,
            )
            res = None
    elif not isinstance(node.op, LoopedApply):
        warnings.warn(
            f"no batching rule for Op {node.op} ({type(node.op).__name__}): it will run once "
            "per batch row (LoopedApply); register one with "
            "theon.gradient.register_vectorize for speed",
            VectorizeFallbackWarning,
            stacklevel=2,
        )
    if res is None:
        res = LoopedApply(node, batched)(*inputs, return_list=True)
    if isinstance(res, tuple) and len(res) == 2 and isinstance(res[1], (list, tuple)) and all(
        isinstance(f, bool) for f in res[1]
    ):
        outs, flags = list(res[0]), list(res[1])
    else:
        outs, flags = list(res), [True] * len(res)
    if len(outs) != len(node.outputs):
        raise ValueError(
            f"the vectorize rule of {node.op} returned {len(outs)} outputs, "
            f"expected {len(node.outputs)}"
        )
    for old, new, f in zip(node.outputs, outs, flags):
        want = getattr(old.type, "ndim", 0) + (1 if f else 0)
        got = getattr(new.type, "ndim", want)
        if got != want:
            raise ValueError(
                f"the vectorize rule of {node.op} returned an output with {got} dimensions "
                f"for {old} (expected {want})"
            )
    return outs, flags


def vectorize_graph(
    outputs: Sequence[Variable], replace: Mapping[Variable, Variable]
) -> tuple[list[Variable], list[bool]]:
    """Rebuild ``outputs`` with each key of ``replace`` swapped for its batched value.

    Returns the new outputs and, for each, whether it has the batch axis (an
    output that does not depend on any replaced variable is returned unchanged).

    Examples
    --------
    >>> import numpy as np, theon.tensor as tt
    >>> v = tt.dvector("v"); V = tt.dmatrix("V")
    >>> [out], [batched] = vectorize_graph([tt.exp(v) * 2], {v: V})
    >>> batched, out.ndim
    (True, 2)
    """
    new: dict[Variable, Variable] = dict(replace)
    flag: dict[Variable, bool] = {k: True for k in replace}
    for node in io_toposort(list(replace), list(outputs)):
        ins = [new.get(i, i) for i in node.inputs]
        fl = [flag.get(i, False) for i in node.inputs]
        if not any(fl):
            if any(n is not o for n, o in zip(ins, node.inputs)):
                # an unbatched input was rebuilt (e.g. the shape of a batched variable)
                new_node = node.clone_with_new_inputs(ins, strict=False)
                for old, o in zip(node.outputs, new_node.outputs):
                    new[old] = o
            continue
        outs, oflags = vectorize_node(node, ins, fl)
        for old, o, f in zip(node.outputs, outs, oflags):
            new[old] = o
            flag[old] = f
    return [new.get(o, o) for o in outputs], [flag.get(o, False) for o in outputs]


class LoopedApply(Op):
    """Runs ``core_node``'s Op once per row of its batched inputs (the fallback rule).

    ``in_batched[i]`` says whether input ``i`` has a leading batch axis; all
    outputs have one.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> op = LoopedApply(tt.sort(x).owner, [True])
    >>> xb = tt.dmatrix("xb")
    >>> op(xb).eval({xb: [[2.0, 1.0], [0.0, -1.0]]})
    array([[ 1.,  2.],
           [-1.,  0.]])
    """

    __props__ = ("core_op", "in_batched", "core_types")

    def __init__(self, core_node: Apply, in_batched: Sequence[bool]) -> None:
        batched_vars = [v for v, b in zip(core_node.inputs, in_batched) if b]
        for v in (*batched_vars, *core_node.outputs):
            if not is_tensor(v):
                raise CannotVectorizeError(
                    f"cannot batch {core_node.op}: {v} is not a tensor (type {v.type})"
                )
        self.core_node = core_node
        self.core_op = core_node.op
        self.in_batched = tuple(bool(b) for b in in_batched)
        self.core_types = (
            tuple(i.type for i in core_node.inputs),
            tuple(o.type for o in core_node.outputs),
        )

    def __str__(self) -> str:
        return f"LoopedApply{{{self.core_op}}}"

    def make_node(self, *inputs: Variable) -> Apply:
        import theon.tensor as tt

        ins = [i if isinstance(i, Variable) else tt.as_tensor_variable(i) for i in inputs]
        outs = [
            tt.TensorType(o.type.dtype, shape=(None, *o.type.shape))()
            for o in self.core_node.outputs
        ]
        return Apply(self, ins, outs)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        n = next(x.shape[0] for x, b in zip(inputs, self.in_batched) if b)
        rows: list[list[Any]] = [[] for _ in output_storage]
        for k in range(n):
            cells: list[list[Any]] = [[None] for _ in output_storage]
            args = [x[k] if b else x for x, b in zip(inputs, self.in_batched)]
            self.core_op.perform(self.core_node, args, cells)
            for j, c in enumerate(cells):
                rows[j].append(np.asarray(c[0]))
        for j, (cell, out) in enumerate(zip(output_storage, node.outputs)):
            if n == 0:
                shape = tuple(0 if s is None else s for s in out.type.shape)
                cell[0] = np.zeros(shape, dtype=out.type.dtype)
            else:
                cell[0] = np.stack(rows[j]).astype(out.type.dtype, copy=False)
