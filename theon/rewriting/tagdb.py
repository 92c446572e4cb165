"""PyTensor's rewrite databases: rewriters registered by name with tags, and queried.

theon's own rewrites live in one phased database, :data:`theon.rewriting.rewrite_db`.
Programs written for PyTensor (PyMC's ``logprob`` module) build databases of their
own out of these classes, and nest them:

* :class:`TagDatabase` (PyTensor's ``RewriteDatabase``): entries with tags; a query
  selects the entries having one of the *included* tags, all *required* ones and no
  *excluded* one (an entry's name is one of its tags, and so is the name of the
  database it was registered in).  A selected entry that is itself a database is
  queried in turn, with the same query.
* :class:`EquilibriumDB`: a query gives an :class:`EquilibriumGraphRewriter` of the
  selected rewriters.
* :class:`SequenceDB`: entries have a ``position``; a query gives a
  :class:`SequentialGraphRewriter` running them by position (then name).
* :class:`LocalGroupDB`: a query gives a :class:`SequentialNodeRewriter`.
* :class:`TopoDB`: walks another database's node rewriters over the graph
  (a :class:`WalkingGraphRewriter`).
* :class:`ProxyDB`: queries another database.

A query is a :class:`~theon.rewriting.db.RewriteQuery`, or tags written as strings:
``"+tag"`` includes, ``"-tag"`` excludes and ``"&tag"`` requires.  Query results are
cached until something is registered again.

>>> from theon.rewriting.basic import node_rewriter
>>> from theon.scalar import exp, float64, log
>>> @node_rewriter([log])
... def log_of_exp(fgraph, node):
...     "log(exp(x)) -> x"
...     x = node.inputs[0]
...     return [x.owner.inputs[0]] if x.owner and x.owner.op == exp else None
>>> db = EquilibriumDB()
>>> _ = db.register("log_of_exp", log_of_exp, "basic")
>>> seq = SequenceDB()
>>> _ = seq.register("simplify", db, "basic", position=1)
>>> from theon.graph.fg import FunctionGraph
>>> x = float64("x")
>>> fg = FunctionGraph([x], [log(exp(x))], clone=False)
>>> _ = seq.query("+basic").rewrite(fg)
>>> fg.outputs[0] is x
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from theon.rewriting.basic import (
    GraphRewriter,
    NodeRewriter,
    SequentialGraphRewriter,
    SequentialNodeRewriter,
)
from theon.rewriting.walkers import (
    DEFAULT_MAX_USE_RATIO,
    EquilibriumGraphRewriter,
    WalkingGraphRewriter,
)

__all__ = [
    "EquilibriumDB",
    "LocalGroupDB",
    "ProxyDB",
    "SequenceDB",
    "TagDatabase",
    "TopoDB",
    "parse_query",
]

# bumped by every registration anywhere: a query cached before it is stale (a database
# may hold another one, whose entries change without the outer one knowing)
_GENERATION = [0]


def parse_query(tags: tuple[Any, ...], kwtags: dict[str, Any] | None = None) -> Any:
    """The :class:`~theon.rewriting.db.RewriteQuery` of ``query(*tags)``.

    ``tags`` is one RewriteQuery, or strings ``"+include"``, ``"-exclude"`` and
    ``"&require"``.

    >>> parse_query(("+canonicalize", "-local_x", "&fast_run"))
    RewriteQuery(include=('canonicalize',), exclude=('local_x',), require=('fast_run',))
    """
    from theon.rewriting.db import RewriteQuery

    if kwtags:
        raise TypeError(f"query: theon has no sub-queries ({', '.join(sorted(kwtags))})")
    if len(tags) == 1 and isinstance(tags[0], RewriteQuery):
        return tags[0]
    include: list[str] = []
    exclude: list[str] = []
    require: list[str] = []
    for t in tags:
        if not isinstance(t, str) or t[:1] not in ("+", "-", "&"):
            raise ValueError(
                f"query: {t!r} is not a tag starting with '+' (include), '-' (exclude) or "
                "'&' (require), nor a single RewriteQuery"
            )
        {"+": include, "-": exclude, "&": require}[t[0]].append(t[1:])
    return RewriteQuery(tuple(include), tuple(exclude), tuple(require))


@dataclass
class _Entry:
    name: str
    obj: Any  # a NodeRewriter, a GraphRewriter or a TagDatabase
    tags: set[str]
    position: float = 0.0


class TagDatabase:
    """Rewriters (and databases) registered by name with tags (PyTensor's
    ``RewriteDatabase``).

    A query returns the selected rewriters, with each selected database replaced by
    its own query's result; the subclasses combine them into one rewriter.

    Attributes
    ----------
    name
        Set it to make the database's name a tag of what is registered in it later.
    """

    name: str | None = None

    def __init__(self) -> None:
        self._entries: dict[str, _Entry] = {}
        self._cache: dict[Any, tuple[int, Any]] = {}

    def register(
        self,
        name: str,
        rewriter: Any,
        *tags: str,
        use_db_name_as_tag: bool = True,
        overwrite_existing: bool = False,
        position: float | str = "last",
        **kwargs: Any,
    ) -> Any:
        """Register ``rewriter`` (a NodeRewriter, GraphRewriter or database) as ``name``
        with ``tags``; returns it.  A used name raises ``ValueError`` unless
        ``overwrite_existing``."""
        if not isinstance(rewriter, (NodeRewriter, GraphRewriter, TagDatabase)):
            raise TypeError(
                f"cannot register {rewriter!r} as {name!r}: expected a NodeRewriter, a "
                "GraphRewriter or a rewrite database"
            )
        if kwargs:
            raise TypeError(f"{type(self).__name__}.register: unknown arguments "
                            f"{', '.join(sorted(kwargs))}")
        if name in self._entries and not overwrite_existing:
            raise ValueError(f"{name!r} is already registered in this database")
        all_tags = {name, type(rewriter).__name__, *tags}
        if use_db_name_as_tag and self.name is not None:
            all_tags.add(self.name)
        if position == "last":
            pos = max((e.position for e in self._entries.values()), default=-1.0) + 1
        elif isinstance(position, (int, float)) and not isinstance(position, bool):
            pos = float(position)
        else:
            raise TypeError(f"register: position must be a number or 'last', got {position!r}")
        self._entries[name] = _Entry(name, rewriter, all_tags, pos)
        _GENERATION[0] += 1
        return rewriter

    def add_tags(self, name: str, *tags: str) -> None:
        """Add ``tags`` to the entry ``name``."""
        self._entry(name).tags.update(tags)
        _GENERATION[0] += 1

    def remove_tags(self, name: str, *tags: str) -> None:
        """Remove ``tags`` from the entry ``name``."""
        self._entry(name).tags.difference_update(tags)
        _GENERATION[0] += 1

    def _entry(self, name: str) -> _Entry:
        try:
            return self._entries[name]
        except KeyError:
            raise KeyError(f"no rewrite registered as {name!r}") from None

    def __getitem__(self, name: str) -> Any:
        """The rewriter registered as ``name`` (or the only one having the tag ``name``)."""
        e = self._entries.get(name)
        if e is not None:
            return e.obj
        tagged = [e.obj for e in self._entries.values() if name in e.tags]
        if len(tagged) == 1:
            return tagged[0]
        if not tagged:
            raise KeyError(f"no rewrite registered as {name!r}")
        raise ValueError(f"{len(tagged)} rewrites have the tag {name!r}; ask for one by name")

    def __contains__(self, name: object) -> bool:
        return any(name == e.name or name in e.tags for e in self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def selected(self, query: Any) -> list[tuple[_Entry, Any]]:
        """``(entry, rewriter)`` for each entry ``query`` selects, in registration order;
        a database entry's rewriter is its own query's result."""
        out = []
        for e in self._entries.values():
            if query.selects(frozenset(e.tags)):
                obj = e.obj.query(query) if isinstance(e.obj, TagDatabase) else e.obj
                out.append((e, obj))
        return out

    def query(self, *tags: Any, **kwtags: Any) -> Any:
        """The rewriter running the entries selected by the query (see :func:`parse_query`).

        Equal queries give the same rewriter until something is registered again.
        """
        q = parse_query(tags, kwtags)
        got = self._cache.get(q)
        if got is not None and got[0] == _GENERATION[0]:
            return got[1]
        rw = self._build(self.selected(q), q)
        self._cache[q] = (_GENERATION[0], rw)
        return rw

    def _build(self, selected: list[tuple[_Entry, Any]], query: Any) -> Any:
        """The query's result: here the list of selected rewriters."""
        return _flatten(selected)

    def print_summary(self) -> None:
        """Print the entries and their tags."""
        print(f"{type(self).__name__} {self.name or ''}")
        for e in self._entries.values():
            print(f"  {e.name}: {sorted(e.tags - {e.name})}")


class EquilibriumDB(TagDatabase):
    """A query gives an :class:`EquilibriumGraphRewriter` of the selected node and graph
    rewriters (PyTensor's; ``ignore_newtrees`` and ``tracks_on_change_inputs`` are
    accepted: theon's walker always revisits what changed)."""

    def __init__(
        self,
        ignore_newtrees: bool = True,
        tracks_on_change_inputs: bool = False,
        eq_rewriter_class: type[EquilibriumGraphRewriter] = EquilibriumGraphRewriter,
    ) -> None:
        super().__init__()
        self.ignore_newtrees = ignore_newtrees
        self.tracks_on_change_inputs = tracks_on_change_inputs
        self.eq_rewriter_class = eq_rewriter_class
        self._final: set[str] = set()

    def register(
        self,
        name: str,
        rewriter: Any,
        *tags: str,
        final_rewriter: bool = False,
        cleanup: bool = False,
        **kwargs: Any,
    ) -> Any:
        """As :meth:`TagDatabase.register`; a ``final_rewriter`` or ``cleanup`` graph
        rewriter runs with the other graph rewriters, whenever the node rewriters are
        done."""
        if final_rewriter or cleanup:
            self._final.add(name)
        return super().register(name, rewriter, *tags, **kwargs)

    def _build(self, selected: list[tuple[_Entry, Any]], query: Any) -> Any:
        return self.eq_rewriter_class(
            _flatten(selected), DEFAULT_MAX_USE_RATIO, name=self.name or "equilibrium"
        )


class SequenceDB(TagDatabase):
    """A query gives a :class:`SequentialGraphRewriter` running the selected entries by
    ``position`` (then name); ``position_cutoff`` keeps those before it.

    >>> db = SequenceDB()
    >>> from theon.rewriting.merge import merge_rewriter
    >>> _ = db.register("b", merge_rewriter, "basic", position=2)
    >>> _ = db.register("a", merge_rewriter, "basic", position=2)
    >>> _ = db.register("c", merge_rewriter, "basic")
    >>> [e.name for e, _ in db.ordered(db.selected(parse_query(("+basic",))))]
    ['a', 'b', 'c']
    """

    def __init__(self, failure_callback: Callable[..., Any] | None = None) -> None:
        super().__init__()
        self.failure_callback = failure_callback

    def query(self, *tags: Any, position_cutoff: float | None = None, **kwtags: Any) -> Any:
        if position_cutoff is None:
            return super().query(*tags, **kwtags)
        q = parse_query(tags, kwtags)
        selected = [(e, o) for e, o in self.selected(q) if e.position < position_cutoff]
        return self._build(selected, q)

    @staticmethod
    def ordered(selected: list[tuple[_Entry, Any]]) -> list[tuple[_Entry, Any]]:
        """``selected`` by position, then name."""
        return sorted(selected, key=lambda eo: (eo[0].position, eo[0].name))

    def _build(self, selected: list[tuple[_Entry, Any]], query: Any) -> Any:
        return SequentialGraphRewriter(
            _flatten(self.ordered(selected)),
            name=self.name or "sequence",
            failure_callback=self.failure_callback,
        )


class LocalGroupDB(SequenceDB):
    """A query gives a :class:`SequentialNodeRewriter` of the selected node rewriters, by
    position (PyTensor's)."""

    def __init__(
        self,
        apply_all_rewrites: bool = False,
        profile: bool = False,
        node_rewriter: type[SequentialNodeRewriter] = SequentialNodeRewriter,
    ) -> None:
        super().__init__()
        self.apply_all_rewrites = apply_all_rewrites
        self.node_rewriter = node_rewriter

    def _build(self, selected: list[tuple[_Entry, Any]], query: Any) -> Any:
        return self.node_rewriter(
            *_flatten(self.ordered(selected)),
            apply_all_rewrites=self.apply_all_rewrites,
            name=self.name,
        )


class TopoDB(TagDatabase):
    """A query walks ``db``'s node rewriters over the graph in ``order`` (a
    :class:`WalkingGraphRewriter`)."""

    def __init__(
        self,
        db: TagDatabase,
        order: str = "in_to_out",
        ignore_newtrees: bool = False,
        failure_callback: Callable[..., Any] | None = None,
    ) -> None:
        super().__init__()
        self.db = db
        self.order = order
        self.ignore_newtrees = ignore_newtrees
        self.failure_callback = failure_callback

    def query(self, *tags: Any, **kwtags: Any) -> Any:
        inner = self.db.query(*tags, **kwtags)
        rewriters = inner if isinstance(inner, list) else [inner]
        return WalkingGraphRewriter(
            rewriters, self.order, self.ignore_newtrees,
            name=self.name or self.db.name, failure_callback=self.failure_callback,
        )


class ProxyDB(TagDatabase):
    """A query is ``db``'s query (so ``db`` can be registered under another name and
    tags)."""

    def __init__(self, db: TagDatabase) -> None:
        super().__init__()
        self.db = db

    def query(self, *tags: Any, **kwtags: Any) -> Any:
        return self.db.query(*tags, **kwtags)


def _flatten(selected: list[tuple[_Entry, Any]]) -> list[Any]:
    """The rewriters of ``selected``, a nested base database's list spliced in."""
    out: list[Any] = []
    for _, o in selected:
        if isinstance(o, list):
            out.extend(o)
        else:
            out.append(o)
    return out
