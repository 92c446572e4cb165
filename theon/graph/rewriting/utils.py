"""``pytensor.graph.rewriting.utils`` spelled ``theon.graph.rewriting.utils``:
``rewrite_graph`` (run the rewrites of a query on some variables) and ``is_same_graph``.

>>> import theon.tensor as pt
>>> from theon.graph.rewriting.utils import rewrite_graph
>>> x = pt.dvector("x")
>>> rewrite_graph(x * 1, include=("canonicalize",)) is x
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from theon.graph.basic import Constant, Variable
from theon.graph.fg import FunctionGraph
from theon.graph.replace import clone_get_equiv, is_same_graph
from theon.graph.traversal import graph_inputs
from theon.rewriting.db import RewriteQuery, rewrite_db

__all__ = ["is_same_graph", "rewrite_graph"]


def rewrite_graph(
    graph: Variable | Sequence[Variable] | FunctionGraph,
    include: Sequence[str] = ("canonicalize",),
    exclude: Sequence[str] = (),
    require: Sequence[str] = (),
    clone: bool = False,
    **kwargs: Any,
) -> Any:
    """The variables of ``graph`` after the rewrites that the query selects.

    Parameters
    ----------
    graph
        A variable, a list of them, or a FunctionGraph (rewritten in place and returned).
    include, exclude, require
        The tags of the query (as in :class:`~theon.rewriting.db.RewriteQuery`).
    clone
        For a FunctionGraph: whether to rewrite a copy.  Variables are always rewritten
        in a copy of their nodes over the same inputs; their graph is never changed.

    Returns
    -------
    Variable, list of Variable or FunctionGraph
        In the form ``graph`` was given.
    """
    query = RewriteQuery(tuple(include), tuple(exclude), tuple(require))
    if isinstance(graph, FunctionGraph):
        fg = graph.clone() if clone else graph
        rewrite_db.query(query)(fg)
        return fg
    single = isinstance(graph, Variable)
    outs = [graph] if isinstance(graph, Variable) else list(graph)
    ins = [v for v in graph_inputs(outs) if not isinstance(v, Constant)]
    # a copy of the nodes over the same inputs: the result reads the caller's variables
    equiv = clone_get_equiv(ins, outs, copy_inputs=False, copy_orphans=False)
    fg = FunctionGraph(ins, [equiv.get(o, o) for o in outs], clone=False)
    rewrite_db.query(query)(fg)
    res = list(fg.outputs)
    return res[0] if single else res
