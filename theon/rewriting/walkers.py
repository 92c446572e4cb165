"""Worklist-driven walkers: apply node rewriters over a FunctionGraph.

Both walkers keep a *worklist* of nodes to look at.  It starts with every node
(in dependency order for in-to-out, reversed for out-to-in).  When a rewrite
fires, only what changed is pushed: the nodes it imported, the clients whose
inputs were replaced, and the producers of inputs that lost a client.  Nothing
re-walks the whole graph, so when rewrites are local the work is linear in the
graph's size.  A budget of fires per node stops rewrite cycles with a warning
naming the rewrite that fired most.

>>> w = WalkingGraphRewriter([], order="out_to_in")
>>> w.order
'out_to_in'
"""

from __future__ import annotations

import warnings
from collections import Counter, deque
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from theon.graph.basic import Apply, Variable
from theon.graph.features import Feature
from theon.graph.fg import Output
from theon.progress import current as progress_current
from theon.rewriting.basic import (
    FromFunctionNodeRewriter,
    GraphRewriter,
    NodeRewriter,
    RewriterIndex,
    RewriteStats,
    apply_replacements,
    replacement_pairs,
)

if TYPE_CHECKING:
    from theon.graph.fg import FunctionGraph

__all__ = [
    "EquilibriumGraphRewriter",
    "RewriteLoopWarning",
    "WalkingGraphRewriter",
    "dfs_rewriter",
    "in2out",
    "out2in",
]

DEFAULT_MAX_USE_RATIO = 8.0

#: what a walker does when a rewrite raises: ``"raise"`` (with a note naming the rewrite
#: and the node), ``"warn"`` (and go on), or PyTensor's ``failure_callback``, called as
#: ``callback(exception, walker, replacement_pairs, rewriter, node)`` (and go on)
OnError = str | Callable[..., Any]


class RewriteLoopWarning(UserWarning):
    """Rewriting stopped because rewrites kept firing (probably a rewrite cycle)."""


class _Worklist(Feature):
    """Feature pushing changed nodes onto a FIFO worklist."""

    def __init__(self, track_new: bool = True) -> None:
        self.queue: deque[Apply] = deque()
        self.queued: set[Apply] = set()
        self.track_new = track_new
        self.changes = 0
        # while a replacement is being tried: what it would push (dropped if refused,
        # so a node whose rewrite a validator rolls back is not retried forever)
        self.buffer: list[Apply] | None = None

    def push(self, node: Apply) -> None:
        if self.buffer is not None:
            self.buffer.append(node)
        elif node not in self.queued:
            self.queued.add(node)
            self.queue.append(node)

    def begin(self) -> None:
        self.buffer = []
        self._changes_before = self.changes

    def end(self, commit: bool) -> None:
        buf, self.buffer = self.buffer or [], None
        if commit:
            for n in buf:
                self.push(n)
        else:
            self.changes = self._changes_before

    def on_import(self, fgraph: FunctionGraph, node: Apply, reason: str | None) -> None:
        if self.track_new:
            buf = self.buffer
            if buf is not None:
                buf.append(node)
            else:
                self.push(node)

    def on_change_input(
        self,
        fgraph: FunctionGraph,
        node: Apply,
        i: int,
        old: Variable,
        new: Variable,
        reason: str | None,
    ) -> None:
        self.changes += 1
        if self.track_new and type(node.op) is not Output:
            buf = self.buffer
            if buf is not None:
                buf.append(node)
            else:
                self.push(node)

    def on_prune(self, fgraph: FunctionGraph, node: Apply, reason: str | None) -> None:
        # producers that lost a client may now match "single client" rewrites
        if self.track_new:
            owners = [inp.owner for inp in node.inputs if inp.owner is not None]
            buf = self.buffer
            if buf is not None:
                buf.extend(owners)
            else:
                for owner in owners:
                    self.push(owner)

    def clone(self) -> Feature:
        return Feature()


def _run(
    fgraph: FunctionGraph,
    index: RewriterIndex,
    graph_rewriters: Sequence[GraphRewriter],
    order: str,
    track_new: bool,
    max_use_ratio: float,
    name: str,
    on_error: OnError,
    walker: GraphRewriter | None = None,
) -> RewriteStats:
    """The shared worklist loop of both walkers."""
    stats = RewriteStats()
    initial = fgraph.toposort()
    if order == "out_to_in":
        initial.reverse()
    budget = int(max_use_ratio * (len(initial) + 8))
    wl = _Worklist(track_new)
    fgraph.attach_feature(wl)
    apply_nodes = fgraph.apply_nodes
    queue, queued = wl.queue, wl.queued
    fires: Counter[str] = stats.fires
    n_fires = 0
    attempts = 0
    candidates = index.candidates
    # op -> its candidates, by identity (ops hash in Python; most nodes share few ops)
    by_id: dict[int, tuple[Any, tuple[tuple[NodeRewriter, Any], ...]]] = {}
    progress = progress_current()  # None unless a progress display is enabled
    try:
        queue.extend(initial)  # what wl.push would do for each (no duplicates here)
        queued.update(initial)
        while True:
            changes_before = wl.changes
            for g in graph_rewriters:
                stats.add(g.rewrite(fgraph))
            while queue:
                node = queue.popleft()
                queued.discard(node)
                if progress is not None:  # nodes visited of visited + still queued
                    progress.advance(1, progress.done + len(queue))
                if node not in apply_nodes:
                    continue
                op = node.op
                got = by_id.get(id(op))
                if got is None or got[0] is not op:
                    cands = tuple((rw, _transform_of(rw)) for rw in candidates(op))
                    got = by_id[id(op)] = (op, cands)
                for rw, transform in got[1]:
                    attempts += 1
                    pairs: list[tuple[Variable, Variable]] = []
                    try:
                        result = transform(fgraph, node)
                        if result is None or result is False:
                            continue
                        pairs = replacement_pairs(rw, node, result)
                        if not pairs:
                            continue
                        wl.begin()
                        ok = False
                        try:
                            ok = apply_replacements(fgraph, pairs, rw, node)
                        finally:
                            wl.end(ok)
                        if not ok:
                            continue
                    except Exception as e:
                        if callable(on_error):  # PyTensor's failure_callback
                            on_error(e, walker, pairs, rw, node)
                            continue
                        if on_error == "raise":
                            e.add_note(f"while applying rewrite {rw} to node {node} (in {name})")
                            raise
                        warnings.warn(
                            f"rewrite {rw} failed on node {node} and was skipped: "
                            f"{type(e).__name__}: {e}",
                            stacklevel=2,
                        )
                        continue
                    fires[rw.name] += 1
                    n_fires += 1
                    if n_fires > budget:
                        worst, count = fires.most_common(1)[0]
                        warnings.warn(
                            f"{name}: stopped after {n_fires} rewrites on a graph of "
                            f"{len(initial)} nodes (max_use_ratio={max_use_ratio}); "
                            f"rewrite {worst!r} fired {count} times and is probably in a "
                            "cycle with another rewrite (or undoes itself)",
                            RewriteLoopWarning,
                            stacklevel=2,
                        )
                        stats.budget_exhausted = True
                        return stats
                    if node not in apply_nodes:
                        break
            if not graph_rewriters or wl.changes == changes_before:
                break
    finally:
        stats.attempts += attempts
        fgraph.remove_feature(wl)
    return stats


def _transform_of(rw: NodeRewriter) -> Any:
    """``rw.transform``, or the function it would call (one call frame less per attempt)."""
    if (
        isinstance(rw, FromFunctionNodeRewriter)
        and type(rw).transform is FromFunctionNodeRewriter.transform
        and "transform" not in vars(rw)
    ):
        return rw.fn
    return rw.transform


def _split(
    rewriters: Iterable[NodeRewriter | GraphRewriter],
) -> tuple[list[NodeRewriter], list[GraphRewriter]]:
    nodes: list[NodeRewriter] = []
    graphs: list[GraphRewriter] = []
    for r in rewriters:
        if isinstance(r, NodeRewriter):
            nodes.append(r)
        elif isinstance(r, GraphRewriter):
            graphs.append(r)
        else:
            raise TypeError(
                f"expected a NodeRewriter or GraphRewriter, got {r!r}; decorate plain "
                "functions with @node_rewriter(tracks) or @graph_rewriter"
            )
    return nodes, graphs


def _ensure_destroy_handler(fgraph: FunctionGraph) -> None:
    from theon.graph.destroyhandler import ensure_destroy_handler

    ensure_destroy_handler(fgraph)


class WalkingGraphRewriter(GraphRewriter):
    """Apply node rewriters to each node once, plus to what their changes touch.

    Parameters
    ----------
    rewriters
        Node rewriters, tried in order on each node they track.
    order
        ``"in_to_out"`` (dependencies first) or ``"out_to_in"``.
    ignore_newtrees
        Only visit the nodes present at the start (do not follow changes).
    max_use_ratio
        At most this many fires per node of the initial graph.
    on_error
        ``"raise"`` (default): an exception in a rewrite propagates with a note
        naming the rewrite and node; ``"warn"``: warn and go on; a callable: see
        :data:`OnError`.
    failure_callback
        PyTensor's name for a callable ``on_error`` (``None``: raise).

    ``rewriters`` may also be a single NodeRewriter (PyTensor's form), and ``order``
    ``"dfs"`` (PyTensor's depth-first order), which walks as ``"in_to_out"`` does: its
    initial order is already a depth-first post-order.

    Examples
    --------
    >>> walker = in2out(name="nothing")
    >>> walker.order, walker.name
    ('in_to_out', 'nothing')
    """

    def __init__(
        self,
        rewriters: Iterable[NodeRewriter] | NodeRewriter,
        order: str = "in_to_out",
        ignore_newtrees: bool = False,
        max_use_ratio: float = DEFAULT_MAX_USE_RATIO,
        name: str | None = None,
        on_error: OnError = "raise",
        failure_callback: Callable[..., Any] | None = None,
    ) -> None:
        if order == "dfs":
            order = "in_to_out"
        if order not in ("in_to_out", "out_to_in"):
            raise ValueError(f"order must be 'in_to_out' or 'out_to_in', got {order!r}")
        if failure_callback is not None:
            on_error = failure_callback
        if isinstance(rewriters, NodeRewriter):
            rewriters = [rewriters]
        nodes, graphs = _split(rewriters)
        if graphs:
            raise TypeError(f"WalkingGraphRewriter takes node rewriters only, got {graphs}")
        self.index = RewriterIndex(nodes)
        self.order = order
        self.ignore_newtrees = ignore_newtrees
        self.max_use_ratio = max_use_ratio
        self.on_error = on_error
        self.name = name or (
            f"{order}({', '.join(str(r) for r in nodes)})" if len(nodes) <= 3 else order
        )

    @property
    def rewriters(self) -> list[NodeRewriter]:
        return self.index.rewriters

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        for r in self.index.rewriters:
            r.add_requirements(fgraph)
            if r.inplace:
                _ensure_destroy_handler(fgraph)

    def apply(self, fgraph: FunctionGraph) -> RewriteStats:
        return _run(
            fgraph, self.index, (), self.order, not self.ignore_newtrees,
            self.max_use_ratio, self.name, self.on_error, self,
        )


class EquilibriumGraphRewriter(GraphRewriter):
    """Apply node and graph rewriters until none applies (a fixed point).

    Node rewriters are driven by the worklist; graph rewriters (e.g. merge)
    run at the start and again whenever the worklist drained after changes, so
    they should be incremental.

    Parameters
    ----------
    rewriters
        Node rewriters and graph rewriters.
    max_use_ratio
        At most this many fires per node of the initial graph (``None``: the default).
    on_error, failure_callback
        As for :class:`WalkingGraphRewriter`.
    final_rewriters, cleanup_rewriters
        PyTensor's graph rewriters run after each pass; here they run with the other
        graph rewriters, whenever the worklist drains after changes.
    ignore_newtrees, tracks_on_change_inputs
        PyTensor's arguments, accepted and unused: nodes a rewrite makes and nodes
        whose inputs change are always visited again.

    Examples
    --------
    >>> eq = EquilibriumGraphRewriter([], name="nothing")
    >>> eq.name
    'nothing'
    """

    def __init__(
        self,
        rewriters: Iterable[NodeRewriter | GraphRewriter],
        max_use_ratio: float | None = DEFAULT_MAX_USE_RATIO,
        name: str | None = None,
        order: str = "in_to_out",
        on_error: OnError = "raise",
        *,
        failure_callback: Callable[..., Any] | None = None,
        ignore_newtrees: bool = True,
        tracks_on_change_inputs: bool = False,
        final_rewriters: Sequence[GraphRewriter] | None = None,
        cleanup_rewriters: Sequence[GraphRewriter] | None = None,
    ) -> None:
        if max_use_ratio is None:
            max_use_ratio = DEFAULT_MAX_USE_RATIO
        if failure_callback is not None:
            on_error = failure_callback
        rewriters = [*rewriters, *(final_rewriters or ()), *(cleanup_rewriters or ())]
        nodes, graphs = _split(rewriters)
        self.index = RewriterIndex(nodes)
        self.graph_rewriters = graphs
        self.max_use_ratio = max_use_ratio
        self.order = order
        self.on_error = on_error
        self.name = name or "equilibrium"

    @property
    def rewriters(self) -> list[Any]:
        return [*self.index.rewriters, *self.graph_rewriters]

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        for r in self.index.rewriters:
            r.add_requirements(fgraph)
            if r.inplace:
                _ensure_destroy_handler(fgraph)
        for g in self.graph_rewriters:
            g.add_requirements(fgraph)

    def apply(self, fgraph: FunctionGraph) -> RewriteStats:
        return _run(
            fgraph, self.index, self.graph_rewriters, self.order, True,
            self.max_use_ratio, self.name, self.on_error, self,
        )


def in2out(
    *rewriters: NodeRewriter, name: str | None = None, ignore_newtrees: bool = False, **kw: Any
) -> WalkingGraphRewriter:
    """An in-to-out :class:`WalkingGraphRewriter` over ``rewriters``.

    >>> in2out().order
    'in_to_out'
    """
    return WalkingGraphRewriter(rewriters, "in_to_out", ignore_newtrees, name=name, **kw)


def out2in(
    *rewriters: NodeRewriter, name: str | None = None, ignore_newtrees: bool = False, **kw: Any
) -> WalkingGraphRewriter:
    """An out-to-in :class:`WalkingGraphRewriter` over ``rewriters``.

    >>> out2in().order
    'out_to_in'
    """
    return WalkingGraphRewriter(rewriters, "out_to_in", ignore_newtrees, name=name, **kw)


def dfs_rewriter(
    *rewriters: NodeRewriter, name: str | None = None, ignore_newtrees: bool = False, **kw: Any
) -> WalkingGraphRewriter:
    """PyTensor's depth-first walker over ``rewriters``: an in-to-out
    :class:`WalkingGraphRewriter` (whose initial order is a depth-first post-order).

    >>> dfs_rewriter().order
    'in_to_out'
    """
    return WalkingGraphRewriter(rewriters, "in_to_out", ignore_newtrees, name=name, **kw)
