"""PyTensor's global rewrite database ``optdb``, as a view of theon's :data:`rewrite_db`.

PyTensor keeps its rewrites in one :class:`~theon.rewriting.tagdb.SequenceDB`
ordered by floating-point positions (``merge1`` at 0, ``canonicalize`` at 1,
``stabilize`` at 1.5, ``specialize`` at 2, fusion at 49, the inplace rewrites from
50, ``merge3`` at 100), whose ``canonicalize``, ``stabilize`` and ``specialize``
entries are equilibrium databases.  theon keeps them in :data:`rewrite_db`, an
explicit list of named phases.  :data:`optdb` translates:

* ``optdb.query(...)`` (a :class:`~theon.rewriting.db.RewriteQuery` or ``"+tag"``,
  ``"-tag"``, ``"&tag"`` strings) is ``rewrite_db.query``: ``optdb.query("+canonicalize",
  "-local_x")`` runs theon's canonicalize phase without ``local_x``;
* ``optdb["canonicalize"]`` (any phase name) is a :class:`PhaseDB`, whose ``register``
  puts a rewrite in that phase and whose ``query`` selects from it only;
* ``optdb.register(name, rewriter, *tags, position=p)`` puts the rewriter in the phase
  that runs where PyTensor's position ``p`` runs (:func:`phase_of_position`);
* ``optdb[name]`` of a registered rewrite is that rewriter.

>>> from theon.rewriting.basic import graph_rewriter
>>> @graph_rewriter
... def nothing(fgraph):
...     "g -> g"
>>> _ = optdb.register("nothing_at_half", nothing, "fast_run", position=0.5)
>>> rewrite_db["nothing_at_half"].phases
('merge1',)
>>> rewrite_db.unregister("nothing_at_half")
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from theon.graph.basic import Constant, Variable
from theon.graph.collector import gc_paused
from theon.graph.fg import FunctionGraph
from theon.graph.traversal import graph_inputs
from theon.rewriting.db import Phase, RewriteDatabase, RewriteQuery, rewrite_db
from theon.rewriting.tagdb import EquilibriumDB, SequenceDB, parse_query

__all__ = ["OptDB", "PhaseDB", "optdb", "phase_of_position", "rewrite_graph"]

# PyTensor's position ranges and the theon phase each runs in: (upper bound, phase,
# the phase a new one follows when theon lacks it); a graph rewriter PyTensor runs
# between two of its equilibrium databases runs in a sequential phase theon adds there
_POSITIONS: tuple[tuple[float, str, str | None], ...] = (
    (1.0, "merge1", None),
    (1.5, "after_canonicalize", "canonicalize"),
    (2.0, "after_stabilize", "stabilize"),
    (49.0, "after_specialize", "specialize"),
    (49.5, "fusion", None),
    (100.0, "inplace", None),
    (float("inf"), "merge2", None),
)


def phase_of_position(position: float, db: RewriteDatabase | None = None) -> str:
    """The theon phase where a rewriter at PyTensor's ``position`` in ``optdb`` runs.

    =================  ====================  =================================
    PyTensor position  theon phase            PyTensor neighbours
    =================  ====================  =================================
    below 1            ``merge1``            merge1 (0), before canonicalize
    1 to 1.5           ``after_canonicalize``  after canonicalize (1)
    1.5 to 2           ``after_stabilize``   after stabilize (1.5)
    2 to 49            ``after_specialize``  after specialize (2)
    49 to 49.5         ``fusion``            elemwise fusion (49)
    49.5 to 100        ``inplace``           add_destroy_handler (49.5), inplace
    100 and above      ``merge2``            merge3 (100)
    =================  ====================  =================================

    The three ``after_*`` phases are sequential phases added to :data:`rewrite_db` the
    first time something is registered there.  Within its phase an entry keeps its
    position (theon's own rewrites are at 0 there), so ``position=0.5`` runs after
    theon's first merge.

    ``db`` is :data:`rewrite_db` unless given.

    >>> phase_of_position(0.5), phase_of_position(75)
    ('merge1', 'inplace')
    """
    db = rewrite_db if db is None else db
    for bound, phase, after in _POSITIONS:
        if position < bound or bound == float("inf") and position == bound:
            if phase not in db.phases and after is not None:
                db.add_phase(Phase(phase, "sequential"), after=after)
            return phase
    raise ValueError(f"optdb: position {position!r} is not a number")


class PhaseDB(EquilibriumDB):
    """One phase of :data:`rewrite_db` (or of ``db``) seen as PyTensor's database of that
    name (``optdb["canonicalize"]``): ``register`` adds to the phase, ``query`` selects
    from it only."""

    def __init__(self, phase: str, db: RewriteDatabase | None = None) -> None:
        super().__init__()
        self.db = rewrite_db if db is None else db
        self.db.phase(phase)  # (KeyError for an unknown phase)
        self.name = phase

    def register(self, name: str, rewriter: Any, *tags: str, **kwargs: Any) -> Any:
        """Add ``rewriter`` to the phase as ``name`` with ``tags``; with
        ``use_db_name_as_tag=False`` it does not get the phase's name as a tag, so only a
        query naming it or one of ``tags`` runs it (as in PyTensor)."""
        position = kwargs.pop("position", 0)
        phase_tag = bool(kwargs.pop("use_db_name_as_tag", True))
        for k in ("final_rewriter", "cleanup", "overwrite_existing"):
            kwargs.pop(k, None)
        if kwargs:
            raise TypeError(f"optdb[{self.name!r}].register: unknown arguments "
                            f"{', '.join(sorted(kwargs))}")
        if position == "last":
            position = 0
        assert self.name is not None
        return self.db.register(name, rewriter, *tags, phase=self.name, position=position,
                                phase_tag=phase_tag)

    def query(self, *tags: Any, **kwtags: Any) -> Any:
        q = parse_query(tags, kwtags)
        assert self.name is not None
        return self.db.query(RewriteQuery(q.include, q.exclude, (*q.require, self.name)))

    def __getitem__(self, name: str) -> Any:
        return self.db[name].rewriter

    def __contains__(self, name: object) -> bool:
        return any(name == e.name and self.name in e.phases for e in self.db)


class OptDB(SequenceDB):
    """PyTensor's ``optdb`` over theon's phased :data:`rewrite_db` (or ``db``; see the
    module docstring); it stores nothing itself."""

    def __init__(self, db: RewriteDatabase | None = None) -> None:
        super().__init__()
        self.db = rewrite_db if db is None else db
        self.name = "optdb"

    def register(self, name: str, rewriter: Any, *tags: str, **kwargs: Any) -> Any:
        position = kwargs.pop("position", "last")
        for k in ("use_db_name_as_tag", "overwrite_existing"):
            kwargs.pop(k, None)
        if kwargs:
            raise TypeError(f"optdb.register: unknown arguments {', '.join(sorted(kwargs))}")
        if position == "last":
            position = float("inf")
        if not isinstance(position, (int, float)) or isinstance(position, bool):
            raise TypeError(f"optdb.register: position must be a number, got {position!r}")
        phase = phase_of_position(position, self.db)
        return self.db.register(
            name, rewriter, *tags, phase=phase, position=position if position < 1e9 else 1e9
        )

    def query(self, *tags: Any, position_cutoff: float | None = None, **kwtags: Any) -> Any:
        """The rewriter of ``rewrite_db.query`` for these tags (``position_cutoff`` is not
        supported: theon's phases have no positions)."""
        if position_cutoff is not None:
            raise TypeError("optdb.query: theon's phases have no position_cutoff; exclude "
                            "the phases you do not want by name ('-specialize')")
        return self.db.query(parse_query(tags, kwtags))

    def __getitem__(self, name: str) -> Any:
        if name in self.db.phases:
            return PhaseDB(name, self.db)
        return self.db[name].rewriter

    def __contains__(self, name: object) -> bool:
        return name in self.db.phases or name in self.db

    def __len__(self) -> int:
        return len(self.db)


#: PyTensor's ``pytensor.compile.optdb``: see :class:`OptDB`
optdb = OptDB()


def rewrite_graph(
    graph: Variable | Sequence[Variable] | FunctionGraph,
    include: Sequence[str] = ("canonicalize",),
    custom_rewrite: Any = None,
    clone: bool = False,
    *,
    exclude: Sequence[str] = (),
    require: Sequence[str] = (),
    **kwargs: Any,
) -> Any:
    """The variables of ``graph`` after the rewrites that the query selects (PyTensor's
    ``pytensor.graph.rewriting.utils.rewrite_graph``).

    Parameters
    ----------
    graph
        A variable, a list of them, or a FunctionGraph (rewritten in place and returned).
    include, exclude, require
        The tags of the query (as in :class:`~theon.rewriting.db.RewriteQuery`).
    custom_rewrite
        A graph rewriter run after the query's.
    clone
        For a FunctionGraph: whether to rewrite a copy.  Variables are always rewritten
        in a copy of their nodes over the same inputs; their graph is never changed.

    Returns
    -------
    Variable, list of Variable or FunctionGraph
        In the form ``graph`` was given.

    >>> import theon.tensor as pt
    >>> x = pt.dvector("x")
    >>> rewrite_graph(x * 1, include=("canonicalize",)) is x
    True
    """
    if kwargs:
        raise TypeError(f"rewrite_graph: unknown arguments {', '.join(sorted(kwargs))}")
    query = RewriteQuery(tuple(include), tuple(exclude), tuple(require))
    with gc_paused():  # see theon.graph.collector
        return _rewrite_graph(graph, query, custom_rewrite, clone)


def _rewrite_graph(
    graph: Variable | Sequence[Variable] | FunctionGraph,
    query: RewriteQuery,
    custom_rewrite: Any,
    clone: bool,
) -> Any:
    """The body of :func:`rewrite_graph`."""
    if isinstance(graph, FunctionGraph):
        fg = graph.clone() if clone else graph
    else:
        outs = [graph] if isinstance(graph, Variable) else list(graph)
        ins = [v for v in graph_inputs(outs) if not isinstance(v, Constant)]
        # a copy of the nodes over the same inputs: the result reads the caller's variables
        # (copied as they are imported: one walk)
        fg = FunctionGraph(ins, outs, clone=True, copy_inputs=False, copy_orphans=False)
    rewrite_db.query(query).rewrite(fg)
    if custom_rewrite is not None:
        custom_rewrite.rewrite(fg)
    if isinstance(graph, FunctionGraph):
        return fg
    res = list(fg.outputs)
    return res[0] if isinstance(graph, Variable) else res

