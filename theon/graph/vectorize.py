"""Batching a graph over leading axes: the rule registry and the graph walk.

``vectorize_graph(outputs, {v: V})`` rebuilds ``outputs`` with ``v`` replaced by
``V``, which has extra, leading, *batch* axes: each output comes back with those
batch axes, computing the original graph once per batch index, as one graph.
Replacements with different numbers of batch axes broadcast like NumPy arrays
(aligned on the right).

Nodes that do not depend on a replaced variable are kept as they are.  Each
other node is rebuilt by the rule registered for its Op class
(:func:`register_vectorize`), or by an Op's own ``vectorize_node`` method.  A
rule adds *one* leading batch axis; more batch axes are added one level at a
time.  A node without a rule is handed to the fallback that the tensor layer
registers (:func:`register_vectorize_fallback`): a ``Blockwise`` running the
Op once per batch index, visible as such in ``dprint``.

The graph layer knows no tensor Op: the tensor layer registers its rules'
module with :func:`register_vectorize_module` (imported on the first use) and
the function giving a batched variable's type with fewer batch axes
(:func:`register_batch_type`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from theon.graph.basic import Apply, Variable
from theon.graph.op import Op
from theon.graph.traversal import io_toposort
from theon.graph.type import Type
from theon.plugins import ModuleLoader

__all__ = [
    "CannotVectorizeError",
    "VectorizeFallbackWarning",
    "register_batch_type",
    "register_vectorize",
    "register_vectorize_fallback",
    "register_vectorize_module",
    "vectorize_graph",
    "vectorize_graph_1",
    "vectorize_graph_levels",
    "vectorize_node",
]


class VectorizeFallbackWarning(UserWarning):
    """A node had no (working) batching rule and runs once per batch index instead.

    >>> issubclass(VectorizeFallbackWarning, UserWarning)
    True
    """


class CannotVectorizeError(TypeError):
    """A node cannot be batched at all (e.g. its batched values are not tensors).

    >>> issubclass(CannotVectorizeError, Exception)
    True
    """


#: a rule: (op, node, new_inputs, batched_flags) -> outputs (all batched)
#: or (outputs, output_batched_flags), or None (no rule for this case: fall back)
Rule = Callable[[Any, Apply, list[Variable], list[bool]], Any]
_RULES: dict[type, Rule] = {}
_FALLBACK: list[Rule] = []
_BATCH_TYPE: list[Callable[[Variable, int], Type]] = []
_RULE_MODULES = ModuleLoader("batching rules (theon.graph.vectorize)")


def register_vectorize_module(module: str) -> None:
    """Import ``module`` (which registers batching rules) on the first vectorization.

    >>> register_vectorize_module("json")
    """
    _RULE_MODULES.register(module)


def register_vectorize(*op_types: type) -> Callable[[Rule], Rule]:
    """Register a batching rule for the given Op classes (and their subclasses).

    The rule gets ``(op, node, inputs, batched)``: ``inputs[i]`` is the new input
    ``i``, with one more leading (batch) axis than ``node.inputs[i]`` when
    ``batched[i]``.  It returns the new outputs, all with that leading batch axis,
    or ``(outputs, batched_flags)``, or ``None`` to hand the node to the fallback.

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


def register_vectorize_fallback(rule: Rule) -> Rule:
    """Set the rule used for nodes without one (the tensor layer's looping ``Blockwise``)."""
    _FALLBACK[:] = [rule]
    return rule


def register_batch_type(fn: Callable[[Variable, int], Type]) -> Callable[[Variable, int], Type]:
    """Set ``fn(V, k)``: the type of ``V`` without its ``k`` leading axes."""
    _BATCH_TYPE[:] = [fn]
    return fn


def _rule_for(op: Op) -> Rule | None:
    for cls in type(op).__mro__:
        rule = _RULES.get(cls)
        if rule is not None:
            return rule
    meth = getattr(op, "vectorize_node", None)
    if meth is not None:
        return lambda op_, node, ins, flags: meth(node, ins, flags)
    return None


def _split_result(res: Any) -> tuple[list[Variable], list[bool]]:
    if isinstance(res, tuple) and len(res) == 2 and isinstance(res[1], (list, tuple)) and all(
        isinstance(f, bool) for f in res[1]
    ):
        return list(res[0]), list(res[1])
    return list(res), [True] * len(res)


def vectorize_node(
    node: Apply, inputs: list[Variable], batched: list[bool]
) -> tuple[list[Variable], list[bool]]:
    """The batched version of ``node`` on ``inputs`` (some with one more, leading, axis).

    >>> import theon.tensor as tt
    >>> x, xb = tt.dvector("x"), tt.dmatrix("xb")
    >>> outs, batched = vectorize_node(tt.exp(x).owner, [xb], [True])
    >>> outs[0].type.ndim, batched
    (2, [True])
    """
    _RULE_MODULES.load()
    rule = _rule_for(node.op)
    res: Any = None
    if rule is not None:
        try:
            res = rule(node.op, node, inputs, batched)
        except CannotVectorizeError:
            raise
        except (TypeError, ValueError) as exc:
            warnings.warn(
                f"the batching rule of {node.op} failed ({exc}); the node will run once per "
                "batch index",
                VectorizeFallbackWarning,
                stacklevel=2,
            )
            res = None
    else:
        warnings.warn(
            f"no batching rule for Op {node.op} ({type(node.op).__name__}): it will run once "
            "per batch index (Blockwise); register one with "
            "theon.graph.vectorize.register_vectorize for speed",
            VectorizeFallbackWarning,
            stacklevel=2,
        )
    if res is None:
        if not _FALLBACK:
            raise CannotVectorizeError(f"no batching rule for {node.op} and no fallback")
        res = _FALLBACK[0](node.op, node, inputs, batched)
    outs, flags = _split_result(res)
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


def vectorize_graph_1(
    outputs: Sequence[Variable],
    replace: Mapping[Variable, Variable],
    batched: Mapping[Variable, bool] | None = None,
) -> tuple[list[Variable], list[bool]]:
    """One level: each replacement has one leading batch axis (unless ``batched[k]`` is False).

    Returns the new outputs and, for each, whether it has the batch axis (an
    output that does not depend on any replaced variable is returned unchanged).

    >>> import theon.tensor as tt
    >>> v, V = tt.dvector("v"), tt.dmatrix("V")
    >>> [out], [flag] = vectorize_graph_1([tt.exp(v) * 2], {v: V})
    >>> flag, out.ndim
    (True, 2)
    """
    new: dict[Variable, Variable] = dict(replace)
    flag: dict[Variable, bool] = {
        k: True if batched is None else bool(batched.get(k, True)) for k in replace
    }
    for node in io_toposort(list(replace), list(outputs)):
        ins = [new.get(i, i) for i in node.inputs]
        fl = [flag.get(i, False) for i in node.inputs]
        if not any(fl):
            if any(n is not o for n, o in zip(ins, node.inputs)):
                # an unbatched input was rebuilt (e.g. the shape of a batched variable)
                new_node = node.clone_with_new_inputs(ins, strict=False)
                for old, o in zip(node.outputs, new_node.outputs):
                    new[old] = o
                    flag[old] = False
            continue
        outs, oflags = vectorize_node(node, ins, fl)
        for old, o, f in zip(node.outputs, outs, oflags):
            new[old] = o
            flag[old] = f
    return [new.get(o, o) for o in outputs], [flag.get(o, False) for o in outputs]


def _ndim(v: Variable) -> int:
    nd = getattr(v.type, "ndim", None)
    if nd is None:
        raise CannotVectorizeError(f"cannot batch {v}: its type {v.type} has no dimensions")
    return int(nd)


def vectorize_graph_levels(
    outputs: Sequence[Variable], replace: Mapping[Variable, Variable]
) -> tuple[list[Variable], list[int]]:
    """Like :func:`vectorize_graph`; also returns each output's number of batch axes."""
    outs = list(outputs)
    depth = {k: _ndim(v) - _ndim(k) for k, v in replace.items()}
    for k, d in depth.items():
        if d < 0:
            raise ValueError(
                f"vectorize_graph: the replacement of {k} has fewer dimensions "
                f"({_ndim(replace[k])}) than {k} ({_ndim(k)})"
            )
    levels = max(depth.values(), default=0)
    nb = [0] * len(outs)
    # level j (1..levels) adds the j-th batch axis from the right; a replacement with
    # d batch axes is batched at levels 1..d and takes level j's value ``cur[k]``
    cur: dict[Variable, Variable] = {k: k for k in replace}
    plain = {k: v for k, v in replace.items() if depth[k] == 0}
    if plain:
        outs, _ = vectorize_graph_1(outs, plain, {k: False for k in plain})
    for j in range(1, levels + 1):
        step: dict[Variable, Variable] = {}
        for k, v in replace.items():
            if depth[k] < j:
                continue
            if depth[k] == j:
                nxt = v
            else:
                if not _BATCH_TYPE:
                    raise CannotVectorizeError("no batch type registered")
                nxt = _BATCH_TYPE[0](v, depth[k] - j)()
            step[cur[k]] = nxt
            cur[k] = nxt
        outs, flags = vectorize_graph_1(outs, step)
        nb = [n + 1 if f else n for n, f in zip(nb, flags)]
    # each level's placeholders are replaced by the next level's values: the final
    # graph holds only the user's replacements
    return outs, nb


def vectorize_graph(
    outputs: Variable | Sequence[Variable], replace: Mapping[Variable, Variable]
) -> Any:
    """Rebuild ``outputs`` with each key of ``replace`` swapped for its batched value.

    Each value of ``replace`` has the dimensions of its key plus any number of
    leading batch axes; those broadcast against each other like NumPy arrays
    (aligned on the right).  Each output gets the broadcast batch axes of the
    replacements it depends on (one that depends on none is returned as it is).

    Parameters
    ----------
    outputs
        A Variable or a list of them, built for one example.
    replace
        ``{variable of the graph: batched variable}``.

    Returns
    -------
    Variable or list of Variable
        Like ``outputs``.

    Examples
    --------
    >>> import numpy as np, theon.tensor as tt
    >>> from theon.graph.replace import vectorize_graph
    >>> v = tt.dvector("v")
    >>> total = tt.exp(v).sum()
    >>> V = tt.dtensor3("V")
    >>> batched = vectorize_graph(total, {v: V})
    >>> batched.eval({V: np.zeros((2, 4, 3))})
    array([[3., 3., 3., 3.],
           [3., 3., 3., 3.]])
    """
    single = isinstance(outputs, Variable)
    outs_in: list[Variable] = [outputs] if isinstance(outputs, Variable) else list(outputs)
    outs, _ = vectorize_graph_levels(outs_in, replace)
    return outs[0] if single else outs
