"""The rewrite database: named phases of tagged rewrites, and queries on them.

Rewrites are registered under a name, with tags, into one or more *phases*.
The phases form an explicit ordered list of names::

    merge1, canonicalize, stabilize, specialize, fusion, inplace, merge2

An equilibrium phase runs its rewrites to a fixed point; a sequential phase
runs them once each, in order.  A :class:`RewriteQuery` selects the entries
having any *included* tag, none of the *excluded* tags and all *required* tags
(an entry's tags include its name, and in each phase that phase's name), and
:meth:`RewriteDatabase.query` builds the rewriter running them phase by phase.

>>> sorted(rewrite_db["merge"].tags & {"fast_run", "fast_compile"})
['fast_compile', 'fast_run']
>>> rewrite_db.phases[:2]
['merge1', 'canonicalize']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from theon.plugins import ModuleLoader
from theon.progress import phase as progress_phase
from theon.rewriting import tracing as _trace
from theon.rewriting.basic import GraphRewriter, NodeRewriter, RewriteStats
from theon.rewriting.merge import constant_folding, merge_rewriter
from theon.rewriting.tagdb import _GENERATION, TagDatabase
from theon.rewriting.walkers import (
    DEFAULT_MAX_USE_RATIO,
    EquilibriumGraphRewriter,
    WalkingGraphRewriter,
)

if TYPE_CHECKING:
    from theon.graph.fg import FunctionGraph

__all__ = [
    "PHASES",
    "Phase",
    "PhasedRewriter",
    "RewriteDatabase",
    "RewriteEntry",
    "RewriteQuery",
    "load_rewrite_modules",
    "register_canonicalize",
    "register_fusion",
    "register_inplace",
    "register_rewrite_module",
    "register_specialize",
    "register_stabilize",
    "register_useless",
    "resolve_rewriter",
    "rewrite_db",
]

PHASE_KINDS = ("equilibrium", "in_to_out", "out_to_in", "sequential")


@dataclass(frozen=True)
class RewriteQuery:
    """Which registered rewrites a mode runs.

    An entry is selected when it has at least one tag of ``include``, none of
    ``exclude`` and all of ``require``.

    >>> q = RewriteQuery.named("fast_run").excluding("inplace")
    >>> q.include, q.exclude
    (('fast_run',), ('inplace',))
    """

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    require: tuple[str, ...] = ()

    @classmethod
    def named(cls, name: str) -> RewriteQuery:
        """The query behind a preset name (``"fast_run"``, ``"fast_compile"``, and
        PyTensor's other optimizer names, :data:`PRESETS`); any other name is the query
        including that tag.

        >>> RewriteQuery.named("o3")
        RewriteQuery(include=('fast_run',), exclude=('inplace',), require=())
        """
        got = PRESETS.get(name)
        return got if got is not None else cls(include=(name,))

    def including(self, *tags: str) -> RewriteQuery:
        """This query also selecting entries tagged with any of ``tags``."""
        return RewriteQuery(self.include + tags, self.exclude, self.require)

    def excluding(self, *tags: str) -> RewriteQuery:
        """This query without the entries tagged with any of ``tags``."""
        return RewriteQuery(self.include, self.exclude + tags, self.require)

    def requiring(self, *tags: str) -> RewriteQuery:
        """This query keeping only entries tagged with all of ``tags``."""
        return RewriteQuery(self.include, self.exclude, self.require + tags)

    def selects(self, tags: frozenset[str]) -> bool:
        """Whether an entry with ``tags`` is selected."""
        return (
            any(t in tags for t in self.include)
            and not any(t in tags for t in self.exclude)
            and all(t in tags for t in self.require)
        )


#: PyTensor's optimizer names (``Mode(optimizer="o3")``) as theon queries.  PyTensor's
#: ``minimum_compile`` tag marks no rewrite of theon's (a query selecting nothing: only
#: merging, which the linker needs not); ``fast_run_stable`` is ``fast_run``, whose
#: rewrites all keep results within the identities docs list
PRESETS: dict[str, RewriteQuery] = {
    "o1": RewriteQuery(("fast_compile",)),
    "o2": RewriteQuery(("fast_compile", "fusion")),
    "o3": RewriteQuery(("fast_run",), ("inplace",)),
    "o4": RewriteQuery(("fast_run",)),
    "unsafe": RewriteQuery(("fast_run",), ("inplace",)),
    "fast_run_stable": RewriteQuery(("fast_run",)),
    "stabilize": RewriteQuery(("fast_run",)),
    "minimum_compile": RewriteQuery(("merge",), ("merge1", "canonicalize", "stabilize",
                                                  "specialize", "merge2")),
}


@dataclass(frozen=True)
class Phase:
    """A named stage of rewriting: how its rewrites run together."""

    name: str
    kind: str = "equilibrium"
    destroy_handler: bool = False
    max_use_ratio: float = DEFAULT_MAX_USE_RATIO


@dataclass
class RewriteEntry:
    """A registered rewrite: its name, rewriter, tags (its name included), phases.

    Within each of its phases, an entry also carries the phase's name as a tag, unless
    ``phase_tag`` is false (PyTensor's ``use_db_name_as_tag=False``: such an entry runs
    only when a query names it, or one of its own tags).
    """

    name: str
    rewriter: NodeRewriter | GraphRewriter | TagDatabase
    tags: frozenset[str]
    phases: tuple[str, ...]
    position: float = 0
    seq: int = field(default=0, compare=False)
    phase_tag: bool = True


class PhasedRewriter(GraphRewriter):
    """Runs phases in order; sets up the trace and the DestroyHandler as needed.

    After a run, ``fgraph.rewrite_stats`` holds a :class:`RewriteStats` with one
    entry per phase in ``.phases``.
    """

    def __init__(self, phases: Sequence[tuple[Phase, GraphRewriter]], name: str) -> None:
        self.phases = list(phases)
        self.name = name

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        """Nothing up front: each phase attaches its own requirements when it starts.

        In particular the DestroyHandler (and the validation of every replacement
        it brings) only arrives with the phase that needs it.
        """

    def apply(self, fgraph: FunctionGraph) -> RewriteStats:
        from theon.config import config
        from theon.graph.destroyhandler import ensure_destroy_handler

        recording = _trace.recording_active()
        if (config.trace_rewrites or recording) and fgraph.rewrite_trace is None:
            fgraph.rewrite_trace = []
        log = fgraph.rewrite_trace
        start = len(log) if log is not None else 0
        if config.optimizer_verbose:
            fgraph._rewrite_verbose = True
        if any(n.op.destroy_map for n in fgraph.apply_nodes):
            ensure_destroy_handler(fgraph)
        stats = RewriteStats()
        try:
            for phase, rw in self.phases:
                if phase.destroy_handler:
                    ensure_destroy_handler(fgraph)
                fgraph._rewrite_phase = phase.name
                progress_phase(phase.name, len(fgraph.apply_nodes))
                sub = rw.rewrite(fgraph)
                stats.phases[phase.name] = sub
                stats.add(sub)
        finally:
            fgraph._rewrite_phase = None
            fgraph._rewrite_verbose = False
            if recording and log is not None:
                _trace.publish(log[start:])
        fgraph.rewrite_stats = stats
        return stats


class RewriteDatabase:
    """Rewrites registered by name, with tags, into an ordered list of phases.

    Examples
    --------
    >>> db = RewriteDatabase([Phase("only", "sequential")])
    >>> _ = db.register("merge", merge_rewriter, "fast_run", phase="only")
    >>> [e.name for e in db.select(RewriteQuery.named("fast_run"))["only"]]
    ['merge']
    """

    def __init__(self, phases: Iterable[Phase | str] = ()) -> None:
        self._phases: list[Phase] = []
        self._entries: list[RewriteEntry] = []
        self._seq = 0
        # query -> (the generation of PyTensor-style databases it saw, its rewriter)
        self._cache: dict[RewriteQuery, tuple[int, PhasedRewriter]] = {}
        self._declared: set[str] = set()
        for p in phases:
            self.add_phase(p if isinstance(p, Phase) else Phase(p))

    # phases ------------------------------------------------------------------------
    @property
    def phases(self) -> list[str]:
        """The phase names, in the order they run."""
        return [p.name for p in self._phases]

    def phase(self, name: str) -> Phase:
        """The :class:`Phase` called ``name``."""
        for p in self._phases:
            if p.name == name:
                return p
        raise KeyError(f"no phase {name!r}; phases: {', '.join(self.phases)}")

    def add_phase(
        self, phase: Phase | str, *, before: str | None = None, after: str | None = None,
        **kw: Any,
    ) -> Phase:
        """Add a phase at the end, or just ``before``/``after`` another one."""
        if isinstance(phase, str):
            phase = Phase(phase, **kw)
        if phase.kind not in PHASE_KINDS:
            raise ValueError(f"phase kind must be one of {PHASE_KINDS}, got {phase.kind!r}")
        if phase.name in self.phases:
            raise ValueError(f"phase {phase.name!r} already exists")
        if before is not None and after is not None:
            raise ValueError("give before= or after=, not both")
        if before is not None:
            k = self.phases.index(self.phase(before).name)
        elif after is not None:
            k = self.phases.index(self.phase(after).name) + 1
        else:
            k = len(self._phases)
        self._phases.insert(k, phase)
        self._cache.clear()
        return phase

    # entries -----------------------------------------------------------------------
    def register(
        self,
        name: str,
        rewriter: NodeRewriter | GraphRewriter | TagDatabase,
        *tags: str,
        phase: str | Sequence[str] = "canonicalize",
        position: float = 0,
        phase_tag: bool = True,
    ) -> Any:
        """Register ``rewriter`` as ``name`` with ``tags`` in ``phase`` (a name or names).

        Within a phase, entries run by ``position``, then registration order.
        ``phase_tag``: whether the entry has its phase's name as a tag (see
        :class:`RewriteEntry`).
        Registering another rewriter under a used name raises ``ValueError``
        (unless it comes from the same module: a reload replaces it).
        A PyTensor-style database (:mod:`theon.rewriting.tagdb`) may be registered: a
        query that selects it queries it in turn, with the same query.
        Returns ``rewriter``, so this can be used under a decorator.
        """
        if not isinstance(rewriter, (NodeRewriter, GraphRewriter, TagDatabase)):
            raise TypeError(
                f"cannot register {rewriter!r} as {name!r}: expected a NodeRewriter or a "
                "GraphRewriter (decorate functions with @node_rewriter(tracks) or "
                "@graph_rewriter)"
            )
        phases = (phase,) if isinstance(phase, str) else tuple(phase)
        for p in phases:
            self.phase(p)
        for e in self._entries:
            if e.name != name:
                continue
            if e.rewriter is rewriter:
                if set(phases) & set(e.phases):
                    raise ValueError(f"{name!r} is already registered in {e.phases}")
                continue
            if not _same_origin(e.rewriter, rewriter):
                raise ValueError(f"a different rewrite is already registered as {name!r}")
        self._entries = [
            e for e in self._entries if not (e.name == name and e.rewriter is not rewriter)
        ]
        self._seq += 1
        all_tags = frozenset(tags) | {name}
        self._entries.append(
            RewriteEntry(name, rewriter, all_tags, phases, position, self._seq, phase_tag)
        )
        self._cache.clear()
        return rewriter

    def unregister(self, name: str) -> None:
        """Remove every entry called ``name``."""
        before = len(self._entries)
        self._entries = [e for e in self._entries if e.name != name]
        if len(self._entries) == before:
            raise KeyError(f"no rewrite registered as {name!r}")
        self._cache.clear()

    def __contains__(self, name: object) -> bool:
        return any(e.name == name for e in self._entries)

    def __getitem__(self, name: str) -> RewriteEntry:
        for e in self._entries:
            if e.name == name:
                return e
        raise KeyError(f"no rewrite registered as {name!r}")

    def __iter__(self) -> Iterator[RewriteEntry]:
        return iter(list(self._entries))

    def __len__(self) -> int:
        return len(self._entries)

    def declare_tags(self, *tags: str) -> None:
        """Make ``tags`` known before any rewrite carries them: the tag of rewrites in a
        module loaded on demand (``theon.tensor.linalg.rewriting`` is imported with
        ``theon.tensor.linalg``), which a mode's query includes whether or not it is.

        >>> db = RewriteDatabase()
        >>> db.declare_tags("my_tag")
        >>> "my_tag" in db.tags()
        True
        """
        self._declared.update(tags)

    def tags(self) -> set[str]:
        """Every tag in use (names and phases included), and the declared ones."""
        out: set[str] = set(self.phases) | self._declared
        for e in self._entries:
            out |= e.tags
        return out

    # queries -----------------------------------------------------------------------
    def select(self, query: RewriteQuery | str) -> dict[str, list[RewriteEntry]]:
        """``{phase: selected entries in run order}`` for the phases with any."""
        load_rewrite_modules()
        if isinstance(query, str):
            query = RewriteQuery.named(query)
        out: dict[str, list[RewriteEntry]] = {}
        for p in self._phases:
            chosen = [
                e for e in self._entries
                if p.name in e.phases
                and query.selects(e.tags | {p.name} if e.phase_tag else e.tags)
            ]
            if chosen:
                chosen.sort(key=lambda e: (e.position, e.seq))
                out[p.name] = chosen
        return out

    def query(self, query: RewriteQuery | str) -> PhasedRewriter:
        """The rewriter running the entries ``query`` selects, phase by phase (cached)."""
        load_rewrite_modules()
        if isinstance(query, str):
            query = RewriteQuery.named(query)
        got = self._cache.get(query)
        if got is not None and got[0] == _GENERATION[0]:
            return got[1]
        known = self.tags()
        unknown = [t for t in query.include if t not in known]
        if unknown:
            raise ValueError(
                f"unknown rewrite tag(s) {unknown} in {query}; known tags include "
                f"{', '.join(sorted(t for t in known if not t.startswith('local_'))[:40])}"
            )
        phases: list[tuple[Phase, GraphRewriter]] = []
        for pname, entries in self.select(query).items():
            p = self.phase(pname)
            rewriters = [
                e.rewriter.query(query) if isinstance(e.rewriter, TagDatabase) else e.rewriter
                for e in entries
            ]
            phases.append((p, _build_phase(p, rewriters)))
        rw = PhasedRewriter(phases, name=_query_name(query))
        self._cache[query] = (_GENERATION[0], rw)
        return rw


def _query_name(q: RewriteQuery) -> str:
    parts = ["+".join(q.include)]
    if q.exclude:
        parts.append("-" + "-".join(q.exclude))
    if q.require:
        parts.append("&" + "&".join(q.require))
    return "".join(parts)


def _same_origin(a: Any, b: Any) -> bool:
    return (
        type(a) is type(b)
        and getattr(a, "__module__", None) == getattr(b, "__module__", None)
        and getattr(a, "__qualname__", None) == getattr(b, "__qualname__", None)
    )


def _build_phase(phase: Phase, rewriters: list[NodeRewriter | GraphRewriter]) -> GraphRewriter:
    """The GraphRewriter running ``rewriters`` as ``phase`` says."""
    from theon.rewriting.basic import SequentialGraphRewriter

    if phase.kind == "equilibrium":
        return EquilibriumGraphRewriter(rewriters, phase.max_use_ratio, name=phase.name)
    if phase.kind == "sequential":
        return SequentialGraphRewriter(rewriters, name=phase.name)
    nodes = [r for r in rewriters if isinstance(r, NodeRewriter)]
    graphs = [r for r in rewriters if isinstance(r, GraphRewriter)]
    walker = WalkingGraphRewriter(
        nodes, order=phase.kind, max_use_ratio=phase.max_use_ratio, name=phase.name
    )
    return SequentialGraphRewriter([walker, *graphs], name=phase.name) if graphs else walker


# ---------------------------------------------------------------------------------
# the global database

PHASES: tuple[Phase, ...] = (
    Phase("merge1", "sequential"),
    Phase("canonicalize", "equilibrium"),
    Phase("stabilize", "equilibrium"),
    Phase("specialize", "equilibrium"),
    Phase("fusion", "sequential"),
    Phase("inplace", "sequential", destroy_handler=True),
    Phase("merge2", "sequential"),
)

rewrite_db = RewriteDatabase(PHASES)

rewrite_db.register(
    "merge", merge_rewriter, "fast_run", "fast_compile",
    phase=("merge1", "canonicalize", "stabilize", "specialize", "merge2"),
)
rewrite_db.register(
    "constant_folding", constant_folding, "fast_run", "fast_compile",
    phase=("canonicalize", "stabilize", "specialize"),
)


Rewriter = NodeRewriter | GraphRewriter


def _make_register(
    phases: tuple[str, ...], default_tags: tuple[str, ...], what: str
) -> Callable[..., Any]:
    def register(*args: Any, name: str | None = None, position: int = 0) -> Any:
        def do(rw: Rewriter, tags: Sequence[str]) -> Rewriter:
            rw_name = name or getattr(rw, "name", None) or getattr(rw, "__name__", None)
            if not rw_name:
                raise ValueError(f"cannot tell the name of {rw!r}; pass name=")
            rewrite_db.register(
                rw_name, rw, *default_tags, *tags, phase=phases, position=position
            )
            return rw

        if args and not isinstance(args[0], str):
            rw, *tags = args
            return do(rw, tags)

        def deco(rw: Rewriter) -> Rewriter:
            return do(rw, args)

        return deco

    register.__name__ = f"register_{what}"
    register.__doc__ = (
        f"Register a rewrite in the {' and '.join(phases)} phase(s), tagged "
        f"{', '.join(default_tags)} plus any tags given.\n\n"
        f"Use as ``@register_{what}`` or ``@register_{what}('fast_compile', ...)`` above "
        "``@node_rewriter(...)``, or call ``register_{what}(rewriter, *tags, name=...)``."
    )
    return register


register_canonicalize = _make_register(("canonicalize",), ("fast_run",), "canonicalize")
register_stabilize = _make_register(("stabilize",), ("fast_run",), "stabilize")
register_specialize = _make_register(("specialize",), ("fast_run",), "specialize")
register_useless = _make_register(
    ("canonicalize", "specialize"), ("fast_run", "useless"), "useless"
)
register_fusion = _make_register(("fusion",), ("fast_run",), "fusion")
register_inplace = _make_register(("inplace",), ("fast_run", "inplace"), "inplace")


_rewrite_modules = ModuleLoader("rewrites")


def register_rewrite_module(module: str) -> None:
    """Have ``module`` imported (it registers rewrites here) before the database is queried.

    The layer that owns the rewrites calls this when it is imported
    (``theon.tensor`` registers ``"theon.tensor.rewriting"``); the module itself
    is imported by :func:`load_rewrite_modules` on the first query, so that
    building graphs does not pay for the rewrites.

    >>> register_rewrite_module("theon.tensor.rewriting")  # done by theon.tensor
    """
    _rewrite_modules.register(module)


def load_rewrite_modules() -> None:
    """Import the modules given to :func:`register_rewrite_module`, each exactly once.

    Thread-safe; called by every :meth:`RewriteDatabase.select` (so by every
    query and compile).  A module that fails to import raises.

    >>> load_rewrite_modules()
    >>> "local_mul_canonizer" in rewrite_db
    True
    """
    _rewrite_modules.load()


def resolve_rewriter(spec: Any) -> Callable[[Any], Any] | None:
    """The callable rewriting a FunctionGraph for a mode's optimizer spec.

    ``spec`` is ``None`` (no rewrites), a preset or tag name (``"fast_run"``,
    ``"fast_compile"``, ``"merge"``), a :class:`RewriteQuery`, or a callable
    ``fgraph -> ...`` (e.g. a GraphRewriter), returned as is.

    Examples
    --------
    >>> resolve_rewriter(None) is None
    True
    >>> resolve_rewriter("fast_compile").name
    'fast_compile'
    """
    if spec is None:
        return None
    if isinstance(spec, str):
        if spec.lower() in ("none", ""):
            return None
        spec = RewriteQuery.named(spec)
    if isinstance(spec, RewriteQuery):
        return rewrite_db.query(spec)
    if callable(spec):
        return spec  # type: ignore[no-any-return]
    raise TypeError(
        f"optimizer must be None, a name like 'fast_run', a RewriteQuery or a callable "
        f"fgraph -> None; got {spec!r}"
    )
