"""Rewrite provenance: where each node of a rewritten graph comes from.

While a graph is rewritten, every node a rewrite creates records a :class:`Step`:
the rewrite's name, the phase it ran in, and the provenance of the nodes the
replacement consumed (the rewritten node and every node that lost its last reader
with it).  A node the user built, never touched by a rewrite, has no record: its
provenance is an :class:`Origin`, read from the node when asked for (its Op, the
user's source line from ``tag.trace``, and the forward node it is the gradient of,
when ``theon.grad`` made it).  Records are tuples that share their parents, made
once per fired rewrite; nothing is formatted until someone asks.

The record lives in ``node.tag`` (under a private key, so pickling skips it; a
cloned node keeps it).  ``Merge`` records both merged nodes on the one it keeps.

>>> import theon, theon.tensor as tt
>>> x = tt.dvector("x")
>>> f = theon.function([x], tt.exp(x) * 2 + 1)
>>> node = f.maker.fgraph.toposort()[0]
>>> last = steps(provenance(node))[0]  # the latest rewrite that made the node
>>> last.phase, last.rewrite
('fusion', 'elemwise_fusion')
>>> sorted(str(o.op) for o in origins(provenance(node)))
['Elemwise{add,no_inplace}', 'Elemwise{exp,no_inplace}', 'Elemwise{mul,no_inplace}']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from theon.graph.basic import Apply, Variable, format_trace
from theon.graph.op import GRAD_KEY as _GRAD_KEY

if TYPE_CHECKING:
    from theon.graph.fg import FunctionGraph

__all__ = [
    "Origin",
    "Step",
    "error_context",
    "format_provenance",
    "gradient_origin",
    "op_name",
    "origin_of",
    "origins",
    "provenance",
    "steps",
    "user_lines",
    "where_built",
]

#: the key of a rewritten node's :class:`Step` in ``node.tag`` (private: not pickled)
PROV_KEY = "_provenance"
#: the key of a gradient node's forward :class:`Origin` in ``node.tag`` (set by Op calls
#: while ``theon.grad`` differentiates a node: see ``theon.graph.op.GRADIENT_OF``)
GRAD_KEY = _GRAD_KEY

Trace = tuple[tuple[str, int, str], ...]


class Origin(NamedTuple):
    """A node as the user built it: its Op, where (``tag.trace``), and, for a node
    ``theon.grad`` made, the Origin of the forward node it is a gradient of."""

    op: Any
    trace: Trace | None
    grad_of: Origin | None = None


class Step(NamedTuple):
    """A rewrite that made a node: its phase, its name, and the provenance of the
    nodes it consumed (the rewritten node first).

    A consumed node that no rewrite made is kept as the Apply itself (its
    :class:`Origin` is read from it when asked for: no record is built while
    compiling); the readers below resolve it.
    """

    phase: str
    rewrite: str
    sources: tuple[Origin | Step | Apply, ...]


Provenance = Origin | Step

# ``tuple.__new__(Origin, fields)``: a record without the NamedTuple constructor's frame
_new: Any = tuple.__new__


def origin_of(node: Apply) -> Origin:
    """The :class:`Origin` of a node no rewrite made (its Op and source line).

    >>> import theon.tensor as tt
    >>> y = tt.exp(tt.dvector("x"))
    >>> o = origin_of(y.owner)
    >>> str(o.op), o.trace[0][2]
    ('Elemwise{exp,no_inplace}', '<module>')
    """
    outs = node.outputs
    trace = outs[0].tag.__dict__.get("trace") if outs else None
    grad_of = node.tag.__dict__.get(GRAD_KEY)  # the forward node, for a gradient's node
    if grad_of is not None and not isinstance(grad_of, Origin):
        grad_of = gradient_origin(grad_of)
    o: Origin = _new(Origin, (node.op, trace, grad_of))
    return o


def provenance(node: Apply) -> Provenance:
    """The :class:`Step` that made ``node``, or its :class:`Origin` if no rewrite did.

    >>> import theon.tensor as tt
    >>> y = tt.exp(tt.dvector("x"))
    >>> type(provenance(y.owner)).__name__
    'Origin'
    """
    got = node.tag.__dict__.get(PROV_KEY)
    return got if got is not None else origin_of(node)


# --------------------------------------------------------------------------------
# recording (called by apply_replacements for every fired rewrite)


def new_nodes(pairs: Sequence[tuple[Variable, Variable]], apply_nodes: Any) -> list[Apply]:
    """The nodes that replacing ``pairs`` would import: ancestors of the new variables
    not in ``apply_nodes`` (the graph's nodes, before the replacement)."""
    stack = []
    for _, new in pairs:
        n = new.owner
        if n is not None and n not in apply_nodes:
            stack.append(n)
    if len(stack) == 1:  # the usual case: one new node on nodes of the graph
        for v in stack[0].inputs:
            o = v.owner
            if o is not None and o not in apply_nodes:
                break
        else:
            return stack
    elif not stack:
        return stack
    out: list[Apply] = []
    seen: set[Apply] = set()
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        out.append(n)
        for v in n.inputs:
            o = v.owner
            if o is not None and o not in apply_nodes and o not in seen:
                stack.append(o)
    return out


def record_replacement(
    fgraph: FunctionGraph,
    rewrite: str,
    node: Apply | None,
    made: Sequence[Apply],
    pairs: Sequence[tuple[Variable, Variable]],
    consumed: Sequence[Apply] | None = None,
) -> None:
    """Record the :class:`Step` of the replacement ``pairs``, just made, on ``made``.

    ``made`` are the nodes the replacement imported (:func:`new_nodes`).  The nodes
    it consumed are the owners of the replaced variables that left the graph, and
    their ancestors that left with them, unless the caller knows them
    (``consumed``).  ``node`` is the rewritten node.
    """
    apply_nodes = fgraph.apply_nodes
    # each consumed node's Step as it is now, or the node itself (read when asked for)
    sources: list[Any] = []
    if node is not None:  # the rewritten node comes first, even when it stays
        sources.append(node.tag.__dict__.get(PROV_KEY) or node)
    # (the replaced variables were the graph's, and a node in the graph has its
    # inputs' owners in it: so these are exactly the nodes this replacement pruned)
    stack = []
    if consumed is not None:
        for n in consumed:
            if n is not node:
                sources.append(n.tag.__dict__.get(PROV_KEY) or n)
    else:
        for old, _ in pairs:
            o = old.owner
            if o is not None and o not in apply_nodes:
                stack.append(o)
    if stack:
        seen: set[Apply] = set()
        while stack:
            n = stack.pop()
            if n in seen:
                continue
            seen.add(n)
            if n is not node:
                sources.append(n.tag.__dict__.get(PROV_KEY) or n)
            for v in n.inputs:
                o = v.owner
                if o is not None and o not in apply_nodes and o not in seen:
                    stack.append(o)
    step = _new(Step, (fgraph._rewrite_phase or "", rewrite, tuple(sources)))
    for n in made:
        n.tag.__dict__[PROV_KEY] = step
    # a new variable computes what the replaced one did: it takes the replaced one's
    # source line (an Op call in a rewrite would give it the line calling
    # theon.function), for the messages and views that read ``tag.trace``
    for old, new in pairs:
        o = new.owner
        if o is not None and o.tag.__dict__.get(PROV_KEY) is step:
            trace = old.tag.__dict__.get("trace")
            if trace is not None:
                new.tag.trace = trace


def record_merge(fgraph: FunctionGraph, rewrite: str, gone: Apply, kept: Apply) -> None:
    """``gone`` was merged into ``kept``: ``kept`` now stands for both.

    Nothing is recorded when both are user nodes built on the same line (a
    gradient's duplicates, mostly): the record would add nothing.
    """
    kd = kept.tag.__dict__
    gd = gone.tag.__dict__
    pk = kd.get(PROV_KEY)
    pg = gd.get(PROV_KEY)
    if pk is None and pg is None:
        ko, go = kept.outputs, gone.outputs
        if ko and go and ko[0].tag.__dict__.get("trace") == go[0].tag.__dict__.get("trace"):
            return
    kd[PROV_KEY] = _new(Step, (
        fgraph._rewrite_phase or "", rewrite,
        (pk if pk is not None else kept, pg if pg is not None else gone),
    ))


# --------------------------------------------------------------------------------
# gradients


def gradient_origin(node: Apply) -> Origin:
    """The Origin of the forward node ``node`` that a gradient's node names: ``node``'s
    own, or, for a node a rewrite made (``grad`` differentiates the stabilized cost),
    its Op with the source line of the first user node it comes from.

    >>> import theon.tensor as tt
    >>> y = tt.exp(tt.dvector("x"))
    >>> gradient_origin(y.owner) == origin_of(y.owner)
    True
    """
    p = node.tag.__dict__.get(PROV_KEY)
    if p is not None:
        for q in origins(p):
            if q.trace:
                return Origin(node.op, q.trace, q.grad_of)
    return origin_of(node)


# --------------------------------------------------------------------------------
# reading


def origins(p: Provenance) -> list[Origin]:
    """The user-built nodes a provenance goes back to, each once, in first-seen order.

    >>> o = Origin("exp", None)
    >>> origins(Step("fusion", "elemwise_fusion", (o, Step("merge1", "merge", (o,)))))
    [Origin(op='exp', trace=None, grad_of=None)]
    """
    out: list[Origin] = []
    seen: set[int] = set()
    equal: set[Any] = set()
    stack: list[Any] = [p]
    while stack:
        q = stack.pop()
        if id(q) in seen:
            continue
        seen.add(id(q))
        if isinstance(q, Step):
            stack.extend(reversed(q.sources))
            continue
        if isinstance(q, Apply):
            q = origin_of(q)
        try:
            if q in equal:
                continue
            equal.add(q)
        except TypeError:  # an Op with unhashable props: identity is enough
            pass
        out.append(q)
    return out


def format_provenance(p: Provenance, indent: str = "  ") -> list[str]:
    """The tree of rewrites behind a provenance, one line per rewrite and per user node.

    A rewrite reached twice (the two nodes of a merge both came from it) is expanded
    the first time only.

    >>> o = Origin("exp", (("m.py", 3, "f"),))
    >>> print("\\n".join(format_provenance(Step("fusion", "elemwise_fusion", (o,)))))
    [fusion] elemwise_fusion of:
      exp built at m.py:3 in f
    """
    lines: list[str] = []
    shown: set[int] = set()
    stack: list[tuple[Any, int]] = [(p, 0)]
    while stack:
        q, depth = stack.pop()
        pad = indent * depth
        if isinstance(q, Apply):
            q = origin_of(q)
        if isinstance(q, Step):
            head = f"{pad}[{q.phase}] {q.rewrite}" if q.phase else f"{pad}{q.rewrite}"
            if id(q) in shown:
                lines.append(head + " (as above)")
                continue
            shown.add(id(q))
            lines.append(head + " of:")
            stack.extend((s, depth + 1) for s in reversed(q.sources))
        else:
            lines.append(f"{pad}{op_name(q.op)} built at {where_built(q)}")
    return lines


def steps(p: Provenance) -> list[Step]:
    """The rewrites that made a node, latest first, each once.

    >>> o = Origin("exp", None)
    >>> [s.rewrite for s in steps(Step("fusion", "f", (Step("canonicalize", "c", (o,)),)))]
    ['f', 'c']
    """
    out: list[Step] = []
    seen: set[int] = set()
    stack: list[Any] = [p]
    while stack:
        q = stack.pop()
        if id(q) in seen or not isinstance(q, Step):
            continue
        seen.add(id(q))
        out.append(q)
        stack.extend(reversed(q.sources))
    return out


def where_built(o: Origin) -> str:
    """``'file.py:12 in fn'`` for an Origin, with what it is the gradient of.

    >>> where_built(Origin("exp", (("m.py", 3, "f"),), Origin("log", (("m.py", 2, "f"),))))
    'm.py:3 in f (gradient of log built at m.py:2 in f)'
    """
    text = format_trace(o.trace) or "an unknown place (no user frame recorded)"
    closing = ""
    g = o.grad_of
    while g is not None:  # a gradient of a gradient ... of a forward node
        where = format_trace(g.trace) or "an unknown place"
        text += f" (gradient of {op_name(g.op)} built at {where}"
        closing += ")"
        g = g.grad_of
    return text + closing


def user_lines(node: Apply) -> list[tuple[tuple[str, int, str] | None, list[Any]]]:
    """The user's source lines ``node`` comes from: ``[(frame or None, [ops built there])]``.

    >>> import theon.tensor as tt
    >>> y = tt.exp(tt.dvector("x"))
    >>> [(frame[2], [str(op) for op in ops]) for frame, ops in user_lines(y.owner)]
    [('<module>', ['Elemwise{exp,no_inplace}'])]
    """
    by_line: dict[Any, list[Any]] = {}
    for o in origins(provenance(node)):
        frame = o.trace[0] if o.trace else None
        ops = by_line.setdefault(frame, [])
        if o.op not in ops:
            ops.append(o.op)
    return list(by_line.items())


def error_context(node: Apply, limit: int = 6) -> str:
    """Where the user built ``node`` (all the nodes a rewrite merged into it), for an
    error message; ``''`` when no line is known.

    >>> import theon.tensor as tt
    >>> y = tt.exp(tt.dvector("x"))
    >>> error_context(y.owner).startswith("the node was built at ")
    True
    """
    p = node.tag.__dict__.get(PROV_KEY)
    if p is None:
        o = origin_of(node)
        return f"the node was built at {where_built(o)}" if o.trace or o.grad_of else ""
    by_place: dict[str, list[str]] = {}
    for o in origins(p):
        if o.trace or o.grad_of:
            names = by_place.setdefault(where_built(o), [])
            name = op_name(o.op)
            if name not in names:
                names.append(name)
    if not by_place:
        return ""
    made = ", ".join(_step_name(s) for s in steps(p)[:limit])
    lines = [f"the node was made by rewrites ({made}) from nodes built at:"]
    for place, names in list(by_place.items())[:limit]:
        lines.append(f"  {place}: {', '.join(names)}")
    if len(by_place) > limit:
        lines.append(f"  ... and {len(by_place) - limit} more places (theon.explain(f) "
                     "lists them all)")
    return "\n".join(lines)


def _step_name(s: Step) -> str:
    return f"[{s.phase}] {s.rewrite}" if s.phase else s.rewrite


def op_name(op: Any) -> str:
    """A short name for an Op: ``exp`` for ``Elemwise{exp,no_inplace}``.

    >>> import theon.tensor as tt
    >>> op_name(tt.exp(tt.dvector("x")).owner.op)
    'exp'
    """
    if type(op).__name__ == "Elemwise":
        return str(op.scalar_op)
    return str(op)
