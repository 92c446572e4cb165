"""Rewriter protocols: node rewriters, graph rewriters, dispatch and replacement.

A *node rewrite* is a plain function ``(fgraph, node) -> replacements`` whose
docstring states its math.  ``replacements`` is a list with one new Variable per
output of ``node`` (``None`` keeps that output), a dict ``{old: new}``, or
``None``/``False`` when the rewrite does not apply.  :func:`node_rewriter`
turns such a function into a :class:`NodeRewriter` that says which ops it
*tracks*, so the walkers only try it on matching nodes.

A *graph rewriter* (:class:`GraphRewriter`) transforms a whole FunctionGraph in
place; calling it on a graph runs it.

>>> from theon.graph.op import Op
>>> class Neg(Op):
...     __props__ = ()
>>> @node_rewriter([Neg])
... def local_neg_neg(fgraph, node):
...     '''neg(neg(x)) -> x'''
...     x = node.inputs[0]
...     if x.owner is not None and isinstance(x.owner.op, Neg):
...         return [x.owner.inputs[0]]
...     return None
>>> local_neg_neg.name, local_neg_neg.tracks()
('local_neg_neg', [<class 'theon.rewriting.basic.Neg'>])
"""

from __future__ import annotations

import functools
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from theon.graph.basic import Apply, Variable
from theon.graph.features import InconsistencyError
from theon.graph.op import Op
from theon.rewriting import provenance as _prov
from theon.rewriting import tracing as _trace

if TYPE_CHECKING:
    from theon.graph.fg import FunctionGraph

__all__ = [
    "FromFunctionGraphRewriter",
    "FromFunctionNodeRewriter",
    "GraphRewriter",
    "NodeRewriter",
    "RewriteError",
    "RewriteStats",
    "RewriterIndex",
    "SequentialGraphRewriter",
    "SequentialNodeRewriter",
    "SubstitutionNodeRewriter",
    "apply_replacements",
    "graph_rewriter",
    "node_rewriter",
    "register_track_key",
    "replacement_pairs",
]

TrackEntry = Op | type | Callable[[Op], bool]
Replacement = Sequence[Variable | None] | dict[Variable, Variable] | Variable | bool | None


class RewriteError(TypeError):
    """A rewrite returned something it may not (wrong count, wrong type, not a Variable)."""


@dataclass
class RewriteStats:
    """What a rewriter did: rewrite attempts, fires per rewrite, and time per phase."""

    attempts: int = 0
    fires: Counter[str] = field(default_factory=Counter)
    phases: dict[str, RewriteStats] = field(default_factory=dict)
    seconds: float = 0.0
    budget_exhausted: bool = False

    @property
    def total_fires(self) -> int:
        return sum(self.fires.values())

    def add(self, other: RewriteStats | None) -> None:
        """Accumulate ``other`` into this one."""
        if other is None:
            return
        self.attempts += other.attempts
        self.fires.update(other.fires)
        self.budget_exhausted |= other.budget_exhausted


# ---------------------------------------------------------------------------------
# rewriters


class GraphRewriter:
    """Base of rewriters that transform a whole FunctionGraph in place.

    Subclasses define :meth:`apply`; ``rewriter(fgraph)`` attaches the features
    the rewriter needs and applies it.
    """

    name: str = ""

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        """Attach the features :meth:`apply` relies on."""

    def apply(self, fgraph: FunctionGraph) -> RewriteStats | int | None:
        """Rewrite ``fgraph`` in place; may return stats or the number of changes."""
        raise NotImplementedError(f"{type(self).__name__} does not define apply()")

    def rewrite(self, fgraph: FunctionGraph) -> RewriteStats:
        """Attach requirements, then apply; returns what was done."""
        self.add_requirements(fgraph)
        t0 = time.perf_counter()
        got = self.apply(fgraph)
        if isinstance(got, RewriteStats):
            stats = got
        else:  # tolerate rewriters returning a count of changes (or anything else)
            stats = RewriteStats()
            if isinstance(got, int) and not isinstance(got, bool) and got > 0:
                stats.fires[str(self)] += got
        stats.seconds = time.perf_counter() - t0
        return stats

    def __call__(self, fgraph: FunctionGraph) -> RewriteStats:
        return self.rewrite(fgraph)

    def __str__(self) -> str:
        return self.name or type(self).__name__

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self}>"


class NodeRewriter:
    """Base of local rewriters: :meth:`transform` looks at one node.

    Attributes
    ----------
    name
        The rewrite's name (used in the database, warnings and traces).
    inplace
        The rewrite introduces destructive ops: walkers make sure a
        DestroyHandler validates each of its replacements.
    """

    name: str = ""
    inplace: bool = False

    def tracks(self) -> list[TrackEntry] | None:
        """Ops (equal), Op classes (isinstance) or predicates ``op -> bool``; None: all."""
        return None

    def transform(self, fgraph: FunctionGraph, node: Apply) -> Replacement:
        """Replacements for ``node``'s outputs, or ``None``/``False``."""
        raise NotImplementedError(f"{type(self).__name__} does not define transform()")

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        """Attach the features :meth:`transform` relies on."""

    def __call__(self, fgraph: FunctionGraph, node: Apply) -> Replacement:
        return self.transform(fgraph, node)

    def __str__(self) -> str:
        return self.name or type(self).__name__

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self}>"


class FromFunctionNodeRewriter(NodeRewriter):
    """A NodeRewriter made from a plain function (see :func:`node_rewriter`)."""

    def __init__(
        self,
        fn: Callable[[FunctionGraph, Apply], Replacement],
        tracks: Sequence[TrackEntry] | None,
        inplace: bool = False,
        name: str | None = None,
        requirements: Sequence[Callable[[FunctionGraph], None]] = (),
    ) -> None:
        self.fn = fn
        self._tracks = None if tracks is None else list(tracks)
        self.inplace = inplace
        self.name = str(name or getattr(fn, "__name__", type(self).__name__))
        self.requirements = tuple(requirements)
        functools.update_wrapper(self, fn)

    def tracks(self) -> list[TrackEntry] | None:
        return self._tracks

    def transform(self, fgraph: FunctionGraph, node: Apply) -> Replacement:
        return self.fn(fgraph, node)

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        for req in self.requirements:
            req(fgraph)


def _check_tracks(tracks: Sequence[TrackEntry] | None, where: str) -> None:
    if tracks is None:
        return
    if isinstance(tracks, (str, bytes)) or not isinstance(tracks, (list, tuple)):
        raise TypeError(f"{where}: tracks must be a list of ops, op classes or predicates "
                        f"(or None for all nodes), got {tracks!r}")
    for t in tracks:
        if isinstance(t, Op) or (isinstance(t, type) and issubclass(t, Op)):
            continue
        if isinstance(t, type) or not callable(t):
            raise TypeError(f"{where}: track {t!r} is not an Op, an Op class or a predicate "
                            "`op -> bool`")


def node_rewriter(
    tracks: Sequence[TrackEntry] | None,
    inplace: bool = False,
    name: str | None = None,
    requirements: Sequence[Callable[[FunctionGraph], None]] = (),
) -> Callable[[Callable[[FunctionGraph, Apply], Replacement]], FromFunctionNodeRewriter]:
    """Decorate a function ``(fgraph, node) -> replacements`` into a NodeRewriter.

    Parameters
    ----------
    tracks
        Which nodes to try it on: Op instances (matched by equality), Op classes
        (matched by ``isinstance``) and predicates ``op -> bool`` (evaluated once
        per distinct op); ``None`` tries every node.
    inplace
        Whether the rewrite introduces ops that destroy their inputs.
    name
        Defaults to the function's name.
    requirements
        Callables ``fgraph -> None`` attaching features the rewrite needs.

    Examples
    --------
    >>> @node_rewriter(None)
    ... def nothing(fgraph, node):
    ...     '''x -> x (never applies)'''
    ...     return None
    >>> nothing.name, nothing.tracks() is None
    ('nothing', True)
    """
    _check_tracks(tracks, "node_rewriter")

    def deco(fn: Callable[[FunctionGraph, Apply], Replacement]) -> FromFunctionNodeRewriter:
        return FromFunctionNodeRewriter(fn, tracks, inplace, name, requirements)

    return deco


class FromFunctionGraphRewriter(GraphRewriter):
    """A GraphRewriter made from a function ``fgraph -> RewriteStats | None``."""

    def __init__(
        self,
        fn: Callable[[FunctionGraph], RewriteStats | None],
        name: str | None = None,
        requirements: Sequence[Callable[[FunctionGraph], None]] = (),
    ) -> None:
        self.fn = fn
        self.name = str(name or getattr(fn, "__name__", type(self).__name__))
        self.requirements = tuple(requirements)
        functools.update_wrapper(self, fn)

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        for req in self.requirements:
            req(fgraph)

    def apply(self, fgraph: FunctionGraph) -> RewriteStats | None:
        return self.fn(fgraph)


def graph_rewriter(
    fn: Callable[[FunctionGraph], RewriteStats | None] | None = None,
    *,
    name: str | None = None,
    requirements: Sequence[Callable[[FunctionGraph], None]] = (),
) -> Any:
    """Decorate a function ``fgraph -> None`` into a GraphRewriter.

    >>> @graph_rewriter
    ... def touch_nothing(fgraph):
    ...     '''g -> g'''
    >>> touch_nothing.name
    'touch_nothing'
    """

    def deco(f: Callable[[FunctionGraph], RewriteStats | None]) -> FromFunctionGraphRewriter:
        return FromFunctionGraphRewriter(f, name, requirements)

    return deco(fn) if fn is not None else deco


class SequentialGraphRewriter(GraphRewriter):
    """Run rewriters one after the other (node rewriters are walked in-to-out).

    Takes a list of rewriters, or (PyTensor's form) the rewriters as arguments; its
    length is the number of rewriters, so one without any is false.

    >>> seq = SequentialGraphRewriter([], name="nothing")
    >>> str(seq), len(seq), bool(SequentialGraphRewriter())
    ('nothing', 0, False)
    """

    def __init__(
        self,
        *rewriters: GraphRewriter | NodeRewriter | Iterable[GraphRewriter | NodeRewriter],
        name: str | None = None,
        failure_callback: Callable[..., Any] | None = None,
    ) -> None:
        from theon.rewriting.walkers import WalkingGraphRewriter

        items: list[Any] = list(rewriters)
        if len(items) == 1 and not isinstance(items[0], (GraphRewriter, NodeRewriter)):
            items = list(items[0])
        self.rewriters: list[GraphRewriter] = []
        for r in items:
            if isinstance(r, GraphRewriter):
                self.rewriters.append(r)
            elif isinstance(r, NodeRewriter):
                self.rewriters.append(WalkingGraphRewriter([r]))
            else:
                raise TypeError(
                    f"SequentialGraphRewriter: {r!r} is not a GraphRewriter or a NodeRewriter"
                )
        self.name = name or "sequential"
        self.failure_callback = failure_callback

    def __len__(self) -> int:
        return len(self.rewriters)

    @property
    def data(self) -> list[GraphRewriter]:
        """The rewriters, in order (PyTensor's attribute)."""
        return list(self.rewriters)

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        for r in self.rewriters:
            r.add_requirements(fgraph)

    def apply(self, fgraph: FunctionGraph) -> RewriteStats:
        stats = RewriteStats()
        for r in self.rewriters:
            try:
                sub = r.rewrite(fgraph)
            except Exception as e:
                if self.failure_callback is None:
                    raise
                self.failure_callback(e, self, r)
                continue
            stats.add(sub)
            stats.phases[str(r)] = sub
        return stats


class SequentialNodeRewriter(NodeRewriter):
    """Node rewriters tried in order on a node; the first that applies gives the result
    (PyTensor's; what a ``LocalGroupDB`` query returns).

    With ``apply_all_rewrites`` the others are then tried on the node that result comes
    from, each in turn, and the last result is returned.  It tracks what its rewriters
    track (every node when one of them tracks every node).

    >>> from theon.scalar import exp, float64, log, neg
    >>> @node_rewriter([neg])
    ... def neg_neg(fgraph, node):
    ...     "neg(neg(x)) -> x"
    ...     x = node.inputs[0]
    ...     return [x.owner.inputs[0]] if x.owner and x.owner.op == neg else None
    >>> @node_rewriter([log])
    ... def log_exp(fgraph, node):
    ...     "log(exp(x)) -> x"
    ...     x = node.inputs[0]
    ...     return [x.owner.inputs[0]] if x.owner and x.owner.op == exp else None
    >>> both = SequentialNodeRewriter(neg_neg, log_exp)
    >>> x = float64("x")
    >>> both.transform(None, log(exp(x)).owner) == [x], sorted(map(str, both.tracks()))
    (True, ['log', 'neg'])
    """

    def __init__(
        self,
        *rewriters: NodeRewriter,
        apply_all_rewrites: bool = False,
        profile: bool = False,
        name: str | None = None,
    ) -> None:
        for r in rewriters:
            if not isinstance(r, NodeRewriter):
                raise TypeError(f"SequentialNodeRewriter: {r!r} is not a NodeRewriter")
        self.rewriters = list(rewriters)
        self.apply_all_rewrites = apply_all_rewrites
        self.inplace = any(r.inplace for r in rewriters)
        self.name = name or f"sequential({', '.join(map(str, rewriters))})"
        self._index = RewriterIndex(self.rewriters)

    def tracks(self) -> list[TrackEntry] | None:
        out: list[TrackEntry] = []
        for r in self.rewriters:
            t = r.tracks()
            if t is None:
                return None
            out.extend(t)
        return out

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        for r in self.rewriters:
            r.add_requirements(fgraph)

    def transform(self, fgraph: FunctionGraph, node: Apply) -> Replacement:
        result: Replacement = None
        candidates = self._index.candidates
        for r in self.rewriters:
            if r not in candidates(node.op):
                continue
            got = r.transform(fgraph, node)
            if got is None or got is False:
                continue
            if not self.apply_all_rewrites:
                return got
            result = got
            pairs = replacement_pairs(r, node, got)
            new_owner = pairs[0][1].owner if len(pairs) == 1 else None
            if new_owner is None:
                return result
            node = new_owner
        return result


class SubstitutionNodeRewriter(NodeRewriter):
    """``op1(*inputs) -> op2(*inputs)`` (PyTensor's): replaces the outputs of every node
    of ``op1`` by those of ``op2`` applied to the same inputs.

    >>> from theon.scalar import exp, float64, log
    >>> x = float64("x")
    >>> str(SubstitutionNodeRewriter(exp, log).transform(None, exp(x).owner)[0].owner.op)
    'log'
    """

    def __init__(self, op1: Op, op2: Op, transfer_tags: bool = True) -> None:
        self.op1, self.op2, self.transfer_tags = op1, op2, transfer_tags
        self.name = f"{op1} -> {op2}"

    def tracks(self) -> list[TrackEntry]:
        return [self.op1]

    def transform(self, fgraph: FunctionGraph, node: Apply) -> Replacement:
        if node.op != self.op1:
            return None
        new = self.op2.make_node(*node.inputs)
        if self.transfer_tags:
            new.tag = node.tag.copy()
            for o, n in zip(node.outputs, new.outputs):
                n.tag = o.tag.copy()
        return list(new.outputs)


# ---------------------------------------------------------------------------------
# dispatch

# op class -> functions giving extra dispatch keys for its instances (e.g. an
# Elemwise's scalar op), so a rewrite tracking the key also sees the node.
_TRACK_KEYS: dict[type, Callable[[Op], Any]] = {}
_TRACK_KEYS_VERSION = [0]


def register_track_key(op_class: type, key: Callable[[Op], Any]) -> None:
    """Let rewrites tracking ``key(op)`` (an op or its class) match nodes of ``op_class``.

    For instance ``register_track_key(Elemwise, lambda op: op.scalar_op)`` makes a
    rewrite that tracks the scalar ``add`` (or its class) see ``Elemwise(add)`` nodes.
    Only ops of exactly ``op_class`` get the key: a subclass is another kind of op
    (PyMC's ``MeasurableElemwise(add)`` is not an addition for theon's rewrites), seen
    by the rewrites that track it or a class it derives from.

    >>> register_track_key(Op, lambda op: None)
    >>> _ = _TRACK_KEYS.pop(Op)
    """
    _TRACK_KEYS[op_class] = key
    _TRACK_KEYS_VERSION[0] += 1


class RewriterIndex:
    """Node rewriters indexed for fast dispatch: op -> the rewriters to try, in order.

    Candidates are computed once per distinct op and cached.
    """

    def __init__(self, rewriters: Iterable[NodeRewriter]) -> None:
        self.rewriters: list[NodeRewriter] = list(rewriters)
        self._by_op: dict[Any, list[int]] = {}
        self._by_class: dict[type, list[int]] = {}
        self._preds: list[tuple[Callable[[Op], bool], int]] = []
        self._all: list[int] = []
        for k, rw in enumerate(self.rewriters):
            tracks = rw.tracks()
            if tracks is None:
                self._all.append(k)
                continue
            for t in tracks:
                if isinstance(t, Op):
                    self._by_op.setdefault(t, []).append(k)
                elif isinstance(t, type):
                    self._by_class.setdefault(t, []).append(k)
                else:
                    self._preds.append((t, k))
        self._cache: dict[Any, tuple[NodeRewriter, ...]] = {}
        self._version = _TRACK_KEYS_VERSION[0]

    def __len__(self) -> int:
        return len(self.rewriters)

    def candidates(self, op: Op) -> tuple[NodeRewriter, ...]:
        """The rewriters tracking ``op``, in registration order."""
        if self._version != _TRACK_KEYS_VERSION[0]:
            self._cache.clear()
            self._version = _TRACK_KEYS_VERSION[0]
        try:
            got = self._cache.get(op)
        except TypeError:  # an op with unhashable props: no caching
            return self._compute(op)
        if got is None:
            got = self._compute(op)
            self._cache[op] = got
        return got

    def _compute(self, op: Op) -> tuple[NodeRewriter, ...]:
        idx: set[int] = set(self._all)
        keys: list[Any] = [op]
        keyfn = _TRACK_KEYS.get(type(op))
        if keyfn is not None:
            extra = keyfn(op)
            if extra is not None:
                keys.append(extra)
        for key in keys:
            try:
                idx.update(self._by_op.get(key, ()))
            except TypeError:
                pass
            for cls in type(key).__mro__:
                idx.update(self._by_class.get(cls, ()))
        for pred, k in self._preds:
            if k not in idx and pred(op):
                idx.add(k)
        return tuple(self.rewriters[k] for k in sorted(idx))


# ---------------------------------------------------------------------------------
# replacements


def replacement_pairs(
    rewriter: NodeRewriter | str, node: Apply, result: Replacement
) -> list[tuple[Variable, Variable]]:
    """Normalize what a rewrite returned into ``[(old, new), ...]`` (possibly empty)."""
    if result is None or result is False:
        return []
    if isinstance(result, dict):
        pairs = list(result.items())
    elif isinstance(result, Variable):
        if len(node.outputs) != 1:
            raise RewriteError(
                f"rewrite {rewriter} returned one Variable for {node}, which has "
                f"{len(node.outputs)} outputs; return a list with one entry per output"
            )
        pairs = [(node.outputs[0], result)]
    elif isinstance(result, (list, tuple)):
        if len(result) != len(node.outputs):
            raise RewriteError(
                f"rewrite {rewriter} returned {len(result)} replacements for {node}, "
                f"which has {len(node.outputs)} outputs"
            )
        pairs = [(o, n) for o, n in zip(node.outputs, result) if n is not None]
    else:
        raise RewriteError(
            f"rewrite {rewriter} returned {type(result).__name__} {result!r} for {node}; "
            "expected a list of Variables, a dict {old: new}, None or False"
        )
    out = []
    for old, new in pairs:
        if not isinstance(new, Variable) or not isinstance(old, Variable):
            raise RewriteError(
                f"rewrite {rewriter} replaced {old!r} by {new!r} in {node}; both must be "
                "Variables"
            )
        if old is not new:
            out.append((old, new))
    return out


def apply_replacements(
    fgraph: FunctionGraph,
    pairs: Sequence[tuple[Variable, Variable]],
    rewriter: NodeRewriter | GraphRewriter | str,
    node: Apply | None = None,
    *,
    consumed: Sequence[Apply] | None = None,
) -> bool:
    """Replace each ``old`` by ``new`` in ``fgraph``; False if a validator refused.

    Types must match (or be convertible by ``old.type.convert_variable``): a rewrite
    never changes an output's type.  When a DestroyHandler is attached the
    replacements are validated and rolled back on :class:`InconsistencyError`.
    The new nodes record where they come from (:mod:`theon.rewriting.provenance`):
    ``node``, the rewritten node, and every node the replacement removes from the
    graph, found by a walk unless the caller lists them (``consumed``: fusion
    knows the nodes it fused).
    """
    name = str(rewriter)
    checked: list[tuple[Variable, Variable]] = []
    apply_nodes = fgraph.apply_nodes
    fresh = False  # whether a replacement brings new nodes (see provenance below)
    for old, new in pairs:
        if old.type is not new.type and old.type != new.type:
            conv = old.type.convert_variable(new)
            if conv is None:
                from theon.graph.fg import describe

                raise RewriteError(
                    f"rewrite {name} replaced {describe(old)} by {new} of type {new.type}"
                    + (f" in node {node}" if node is not None else "")
                    + "; a rewrite must keep each variable's type"
                )
            new = conv
        checked.append((old, new))
        if not fresh:
            o = new.owner
            fresh = o is not None and o not in apply_nodes
    # provenance (see theon.rewriting.provenance): the nodes this imports, found
    # before the graph changes
    made = _prov.new_nodes(checked, apply_nodes) if fresh else ()
    if fgraph.destroy_handler is not None:
        if not hasattr(fgraph, "replace_all_validate"):
            from theon.graph.features import ReplaceValidate

            fgraph.attach_feature(ReplaceValidate())
        try:
            fgraph.replace_all_validate(checked, reason=name)
        except InconsistencyError:
            return False
    else:
        for old, new in checked:
            fgraph.replace(old, new, reason=name)
    if made:
        _prov.record_replacement(fgraph, name, node, made, checked, consumed)
    elif node is not None and getattr(rewriter, "merges_nodes", False):
        kept = checked[0][1].owner
        if kept is not None and node is not kept:
            _prov.record_merge(fgraph, name, node, kept)
    if fgraph.rewrite_trace is not None or fgraph._rewrite_verbose:
        _trace.record(fgraph, name, node if node is not None else "", checked)
    return True
