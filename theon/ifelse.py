"""``ifelse``: a lazy conditional, computing only the branch its condition selects.

``ifelse(c, a, b)`` is ``a`` when the 0-d condition ``c`` is true and ``b``
otherwise.  Unlike the elementwise ``switch(c, a, b)``, which computes both
``a`` and ``b`` and picks elements, ``ifelse`` is lazy: the linkers (the
reference VM and the default ``py`` linker) evaluate ``c`` first, then only
the computation that the taken branch alone needs.  Computation needed by both
branches, or elsewhere, runs once before the conditional.

Branches may be single variables or lists of them (one conditional, several
outputs).  Gradients flow into the taken branch only (the other gets zeros),
and the condition is not differentiated.

>>> import numpy as np
>>> import theon, theon.tensor as tt
>>> from theon.ifelse import ifelse
>>> a, b = tt.dscalars("a", "b")
>>> x = tt.dvector("x")
>>> f = theon.function([a, b, x], ifelse(tt.lt(a, b), tt.mean(x), tt.max(x)))
>>> float(f(1.0, 2.0, np.array([1.0, 2.0, 6.0]))), float(f(2.0, 1.0, np.array([1.0, 2.0, 6.0])))
(3.0, 6.0)

How it works: :class:`IfElse` sets ``lazy_conditional``, the graph layer's
contract for lazy conditionals (:func:`theon.graph.op.lazy_branches`), and the
linkers schedule its branches with :mod:`theon.link.lazy`.  Its rewrites
(registered when this module is imported) remove a conditional whose
condition is constant, drop outputs whose branches agree or that nobody uses,
and merge conditionals on the same condition.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Constant, Variable, format_trace, user_trace
from theon.graph.fg import FunctionGraph, describe
from theon.graph.null_type import DisconnectedType, disconnected_type
from theon.graph.op import Op
from theon.graph.type import Type
from theon.link.lazy import Context, node_contexts
from theon.link.registry import register_linker_backend as _register_linker_backend
from theon.rewriting.basic import node_rewriter
from theon.rewriting.db import register_canonicalize, register_useless
from theon.tensor.basic import (
    NotScalarConstantError,
    as_tensor_variable,
    cast,
    get_scalar_constant_value,
)
from theon.tensor.creation import zeros
from theon.tensor.shape import shape_tuple
from theon.tensor.type import TensorType, complex_dtypes, tensor_type

__all__ = ["IfElse", "ifelse"]


def _where() -> str:
    where = format_trace(user_trace())
    return f" (ifelse at {where})" if where else ""


def _common_type(t: Type, e: Type) -> Type | None:
    """The type of an output that is a value of ``t`` or of ``e``; None if they differ."""
    if t == e:
        return t
    if isinstance(t, TensorType) and isinstance(e, TensorType):
        if t.dtype != e.dtype or t.ndim != e.ndim:
            return None
        shape = tuple(a if a == b else None for a, b in zip(t.shape, e.shape))
        return TensorType(t.dtype, shape=shape)
    if t.is_super(e):
        return t
    if e.is_super(t):
        return e
    return None


class IfElse(Op):
    """A lazy conditional with ``n_outs`` outputs.

    Inputs: the 0-d condition, then ``n_outs`` values for when it is true and
    ``n_outs`` values for when it is false.  Output ``j`` *is* the selected
    value (no copy), so ``view_map`` lists both candidates.  ``name`` only
    labels the node in printouts.

    >>> import theon.tensor as tt
    >>> c, x, y = tt.bscalar("c"), tt.dvector("x"), tt.dvector("y")
    >>> node = IfElse(1, name="pick")(c, x, y).owner
    >>> str(node.op), node.op.view_map
    ('if{pick}', {0: [1, 2]})
    """

    __props__ = ("n_outs",)
    lazy_conditional = True

    def __init__(self, n_outs: int, name: str | None = None) -> None:
        if int(n_outs) < 1:
            raise ValueError(f"IfElse needs at least one output, got n_outs={n_outs!r}")
        self.n_outs = int(n_outs)
        self.name = name
        self.view_map = {j: [1 + j, 1 + self.n_outs + j] for j in range(self.n_outs)}

    def __str__(self) -> str:
        return f"if{{{self.name}}}" if self.name else "if{}"

    # building ------------------------------------------------------------------------
    def make_node(self, condition: Any, *values: Any) -> Apply:
        n = self.n_outs
        if len(values) != 2 * n:
            raise TypeError(
                f"{self} takes a condition and 2 * {n} branch values, got {len(values)} values"
            )
        cond = _condition(condition)
        ins = [v if isinstance(v, Variable) else as_tensor_variable(v) for v in values]
        outs = []
        for j in range(n):
            t, e = ins[j], ins[n + j]
            common = _common_type(t.type, e.type)
            if common is None:
                raise TypeError(
                    f"ifelse: the two branches of output {j} have different types: the "
                    f"then-branch {describe(t)} and the else-branch {describe(e)}; they must "
                    f"have the same dtype and number of dimensions{_where()}"
                )
            outs.append(common())
        return Apply(self, [cond, *ins], outs)

    # computing -----------------------------------------------------------------------
    def perform(
        self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]
    ) -> None:
        # the linkers run IfElse lazily themselves; this is the eager definition
        n = self.n_outs
        chosen = inputs[1 : n + 1] if inputs[0] else inputs[n + 1 :]
        for cell, v in zip(output_storage, chosen):
            cell[0] = v

    # derivatives ---------------------------------------------------------------------
    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        n = self.n_outs
        rows = [[False] * n]
        rows += [[j == i % n for j in range(n)] for i in range(2 * n)]
        return rows

    def L_op(
        self,
        inputs: Sequence[Variable],
        outputs: Sequence[Variable],
        output_grads: Sequence[Variable],
    ) -> list[Any]:
        """d/d then_j = ifelse(c, g_j, 0), d/d else_j = ifelse(c, 0, g_j); c gets none."""
        n = self.n_outs
        cond = inputs[0]
        thens, elses = list(inputs[1 : n + 1]), list(inputs[n + 1 :])
        res: list[Any] = [disconnected_type()] * (2 * n + 1)
        live = [
            j for j, g in enumerate(output_grads)
            if not isinstance(g.type, DisconnectedType) and isinstance(outputs[j].type, TensorType)
        ]
        if not live:
            return res
        gs = []
        for j in live:
            g = output_grads[j]
            dt = tensor_type(outputs[j]).dtype
            gs.append(cast(g, dt) if tensor_type(g).dtype != dt else g)
        then_vals = gs + [_zeros_like(elses[j]) for j in live]
        else_vals = [_zeros_like(thens[j]) for j in live] + gs
        got = ifelse(cond, then_vals, else_vals, name=_suffixed(self.name, "grad"))
        for m, j in enumerate(live):
            res[1 + j] = got[m]
            res[1 + n + j] = got[len(live) + m]
        return res

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        """The tangent of output j is ifelse(c, tangent of then_j, tangent of else_j)."""
        n = self.n_outs
        cond = inputs[0]
        live = [j for j in range(n) if eval_points[1 + j] is not None
                or eval_points[1 + n + j] is not None]
        res: list[Any] = [None] * n
        if not live:
            return res
        tv, ev = [], []
        for j in live:
            t, e = eval_points[1 + j], eval_points[1 + n + j]
            tv.append(t if t is not None else _zeros_like(inputs[1 + j]))
            ev.append(e if e is not None else _zeros_like(inputs[1 + n + j]))
        got = ifelse(cond, tv, ev, name=_suffixed(self.name, "rop"))
        for m, j in enumerate(live):
            res[j] = got[m]
        return res

    def infer_shape(
        self, node: Apply, input_shapes: Sequence[Sequence[Variable]]
    ) -> list[tuple[Variable, ...]]:
        """The branches' shapes where they agree, else ifelse(c, then shape, else shape)."""
        n = self.n_outs
        out: list[list[Variable | None]] = []
        pending_t: list[Variable] = []
        pending_e: list[Variable] = []
        where: list[tuple[int, int]] = []
        for j in range(n):
            ts, es = input_shapes[1 + j], input_shapes[1 + n + j]
            row: list[Variable | None] = []
            for d, (a, b) in enumerate(zip(ts, es)):
                if _same_entry(a, b):
                    row.append(a)
                else:
                    row.append(None)
                    pending_t.append(as_tensor_variable(a))
                    pending_e.append(as_tensor_variable(b))
                    where.append((j, d))
            out.append(row)
        if pending_t:
            name = _suffixed(self.name, "shape")
            picked = ifelse(node.inputs[0], pending_t, pending_e, name=name)
            for (j, d), v in zip(where, picked):
                out[j][d] = v
        return [tuple(v for v in row if v is not None) for row in out]


def _suffixed(name: str | None, what: str) -> str | None:
    return f"{name}_{what}" if name else None


def _same_entry(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if isinstance(a, Constant) and isinstance(b, Constant):
        return bool(np.array_equal(a.data, b.data))
    return False


def _zeros_like(v: Variable) -> Variable:
    """Zeros of ``v``'s type and shape, built from its shape only (not its value)."""
    if isinstance(v.type, TensorType):
        z = zeros(shape_tuple(v), dtype=v.type.dtype)
        return z
    from theon.gradient._typeutil import zeros_like

    return zeros_like(v)


def _condition(condition: Any) -> Variable:
    try:
        cond = as_tensor_variable(condition)
    except (TypeError, ValueError) as e:
        raise TypeError(
            f"ifelse: the condition must be a 0-d tensor (a bool or a number), got "
            f"{condition!r}{_where()}: {e}"
        ) from None
    if cond.type.ndim != 0:
        raise TypeError(
            f"ifelse: the condition must be 0-d (a bool or a number), but {describe(cond)} has "
            f"{cond.type.ndim} dimension(s); reduce it first (e.g. tt.any(c) or tt.all(c)), or "
            f"use tt.switch for an elementwise choice{_where()}"
        )
    if cond.type.dtype in complex_dtypes:
        raise TypeError(
            f"ifelse: the condition must be a bool or a real number, not the complex "
            f"{describe(cond)}{_where()}"
        )
    return cond


def _branch_values(branch: Any, other: Any, which: str) -> list[Variable]:
    items = list(branch) if isinstance(branch, (list, tuple)) else [branch]
    others = list(other) if isinstance(other, (list, tuple)) else [other]
    out = []
    for k, v in enumerate(items):
        if isinstance(v, Variable):
            out.append(v)
            continue
        peer = others[k] if k < len(others) else None
        dtype = None
        if isinstance(peer, Variable) and isinstance(peer.type, TensorType):
            # a literal takes the dtype of the variable it pairs with, when it fits
            value = np.asarray(v)
            if np.can_cast(value.dtype, peer.type.dtype, "same_kind"):
                dtype = peer.type.dtype
        try:
            out.append(as_tensor_variable(v, dtype=dtype))
        except (TypeError, ValueError) as e:
            raise TypeError(
                f"ifelse: cannot use {v!r} as a value of the {which}-branch{_where()}: {e}"
            ) from None
    return out


def ifelse(
    condition: Any, then_branch: Any, else_branch: Any, name: str | None = None
) -> Any:
    """``then_branch`` if ``condition`` is true, else ``else_branch``, computing only that one.

    Parameters
    ----------
    condition
        A 0-d tensor (bool or number; nonzero is true).
    then_branch, else_branch
        A Variable each, or lists (tuples) of Variables of the same length, pairwise
        of the same dtype and number of dimensions (static shapes may differ; the
        output keeps the static lengths both agree on).  Python numbers take the
        dtype of the variable they are paired with.
    name
        A label for the conditional node in printouts.

    Returns
    -------
    A Variable when the branches are single variables, else a list (or a tuple,
    for tuples) with one Variable per pair.

    Raises
    ------
    TypeError
        For a condition that is not 0-d, or branches of different types or lengths.

    Examples
    --------
    >>> import numpy as np
    >>> import theon, theon.tensor as tt
    >>> x, y = tt.dvectors("x", "y")
    >>> c = tt.bscalar("c")
    >>> lo, hi = ifelse(c, [x, y], [y, x])
    >>> f = theon.function([c, x, y], [lo, hi])
    >>> f(1, np.array([1.0]), np.array([2.0]))
    [array([1.]), array([2.])]
    >>> f(0, np.array([1.0]), np.array([2.0]))
    [array([2.]), array([1.])]
    """
    single = not isinstance(then_branch, (list, tuple))
    if single != (not isinstance(else_branch, (list, tuple))):
        raise TypeError(
            "ifelse: then_branch and else_branch must both be single values or both lists; "
            f"got {type(then_branch).__name__} and {type(else_branch).__name__}{_where()}"
        )
    thens = _branch_values(then_branch, else_branch, "then")
    elses = _branch_values(else_branch, then_branch, "else")
    if len(thens) != len(elses):
        raise TypeError(
            f"ifelse: the then-branch has {len(thens)} values and the else-branch "
            f"{len(elses)}; they must have the same number{_where()}"
        )
    if not thens:
        raise TypeError(f"ifelse: the branches are empty{_where()}")
    outs = IfElse(len(thens), name=name)(condition, *thens, *elses, return_list=True)
    if single:
        return outs[0]
    return tuple(outs) if isinstance(then_branch, tuple) else list(outs)


# rewrites ------------------------------------------------------------------------------


def _rebuilt(node: Apply, keep: list[int], thens: list[Variable], elses: list[Variable]) -> Any:
    """The outputs ``keep`` of ``node`` from a new IfElse on the given branch values."""
    assert isinstance(node.op, IfElse)
    new = IfElse(len(keep), name=node.op.name)(
        node.inputs[0], *thens, *elses, return_list=True
    )
    return dict(zip((node.outputs[j] for j in keep), new))


@register_useless
@node_rewriter([IfElse])
def local_ifelse_constant_condition(fgraph: FunctionGraph, node: Apply) -> Any:
    """ifelse(c, a, b) -> a when c is a constant true value, -> b when c is constant false.

    The value of c is known at compile time, so the conditional always takes
    the same branch; the other branch's computation disappears with it.
    """
    try:
        c = get_scalar_constant_value(node.inputs[0])
    except NotScalarConstantError:
        return None
    n = len(node.outputs)
    return list(node.inputs[1 : n + 1] if bool(c) else node.inputs[n + 1 :])


@register_useless
@node_rewriter([IfElse])
def local_ifelse_same_branches(fgraph: FunctionGraph, node: Apply) -> Any:
    """ifelse(c, [.., a, ..], [.., a, ..]) -> a for that output, whatever c is.

    After the merge rewrite, ``ifelse(c, f(x), f(x))`` is ``ifelse(c, y, y)`` with
    ``y = f(x)``: the computation shared by both branches is lifted out of the
    conditional and computed once.  The other outputs keep a smaller conditional.
    """
    n = len(node.outputs)
    thens, elses = node.inputs[1 : n + 1], node.inputs[n + 1 :]
    same = [j for j in range(n) if thens[j] is elses[j]]
    if not same:
        return None
    repl: dict[Variable, Variable] = {node.outputs[j]: thens[j] for j in same}
    keep = [j for j in range(n) if j not in same]
    if keep:
        repl.update(_rebuilt(node, keep, [thens[j] for j in keep], [elses[j] for j in keep]))
    return repl


@register_useless
@node_rewriter([IfElse])
def local_ifelse_unused_outputs(fgraph: FunctionGraph, node: Apply) -> Any:
    """ifelse(c, [a1, a2], [b1, b2]) -> ifelse(c, a1, b1) when output 2 is unused.

    An unused output's branch values would still be computed by the conditional.
    """
    n = len(node.outputs)
    keep = [j for j in range(n) if fgraph.clients.get(node.outputs[j])]
    if len(keep) == n or not keep:
        return None
    return _rebuilt(
        node, keep, [node.inputs[1 + j] for j in keep], [node.inputs[1 + n + j] for j in keep]
    )


@register_canonicalize
@node_rewriter([IfElse])
def local_ifelse_nested_same_condition(fgraph: FunctionGraph, node: Apply) -> Any:
    """ifelse(c, ifelse(c, a, b), d) -> ifelse(c, a, d);
    ifelse(c, d, ifelse(c, a, b)) -> ifelse(c, d, b).

    Inside the then-branch of a conditional on c, c is true, so an inner
    conditional on the same c takes its then-branch (and the else-branch
    likewise takes the else-values of an inner conditional).
    """
    n = len(node.outputs)
    cond = node.inputs[0]
    new = list(node.inputs[1:])
    changed = False
    for i, v in enumerate(new):
        inner = v.owner
        if inner is None or not isinstance(inner.op, IfElse) or inner.inputs[0] is not cond:
            continue
        m = len(inner.outputs)
        k = v.index if v.index is not None else 0
        new[i] = inner.inputs[1 + k] if i < n else inner.inputs[1 + m + k]
        changed = True
    if not changed:
        return None
    return _rebuilt(node, list(range(n)), new[:n], new[n:])


_CONTEXTS_MEMO = "ifelse.contexts"


def _contexts(fgraph: FunctionGraph) -> dict[Apply, Context]:
    """Each node's lazy context (see :mod:`theon.link.lazy`), cached until the graph changes."""
    got = fgraph.memo.get(_CONTEXTS_MEMO)
    if got is not None and got[0] == fgraph.change_count:
        cached: dict[Apply, Context] = got[1]
        return cached
    ctx, _ = node_contexts(fgraph)
    fgraph.memo[_CONTEXTS_MEMO] = (fgraph.change_count, ctx)
    return ctx


def _depends_on(start: Sequence[Variable], target: Apply) -> bool:
    """Whether ``target`` is an ancestor of the variables ``start`` (iterative walk)."""
    stack = [v.owner for v in start if v.owner is not None]
    seen: set[Apply] = set()
    while stack:
        node = stack.pop()
        if node is target:
            return True
        if node in seen:
            continue
        seen.add(node)
        stack.extend(v.owner for v in node.inputs if v.owner is not None)
    return False


@register_canonicalize
@node_rewriter([IfElse])
def local_ifelse_merge_same_condition(fgraph: FunctionGraph, node: Apply) -> Any:
    """ifelse(c, a1, b1), ifelse(c, a2, b2) -> ifelse(c, [a1, a2], [b1, b2]).

    Two conditionals on the same c take the same branch, so one conditional
    can select both pairs.  Only done when neither needs the other's outputs
    and both run under the same enclosing branches (merging must not make a
    conditional run where it did not before).
    """
    cond = node.inputs[0]
    ctx = None
    for client, _ in fgraph.clients.get(cond, []):
        if (
            client is node
            or not isinstance(client.op, IfElse)
            or client.inputs[0] is not cond
        ):
            continue
        if ctx is None:
            ctx = _contexts(fgraph)
        if ctx.get(client) != ctx.get(node):
            continue
        if _depends_on(node.inputs, client) or _depends_on(client.inputs, node):
            continue
        n, m = len(node.outputs), len(client.outputs)
        thens = [*node.inputs[1 : n + 1], *client.inputs[1 : m + 1]]
        elses = [*node.inputs[n + 1 :], *client.inputs[m + 1 :]]
        assert isinstance(node.op, IfElse)
        new = IfElse(n + m, name=node.op.name)(cond, *thens, *elses, return_list=True)
        return dict(zip([*node.outputs, *client.outputs], new))
    return None


# the JAX rules of these Ops (mode="JAX"), imported by the JAX linker before its first link
_register_linker_backend("jax", "theon.backends.jax.control")
