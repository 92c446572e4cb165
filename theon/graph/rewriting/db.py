"""``pytensor.graph.rewriting.db`` spelled ``theon.graph.rewriting.db``: the rewrite
database and its queries (PyTensor's ``RewriteDatabaseQuery`` is theon's ``RewriteQuery``).

>>> from theon.graph.rewriting.db import RewriteDatabaseQuery
>>> RewriteDatabaseQuery(include=["fast_run"]).include
('fast_run',)
"""

from collections.abc import Iterable
from typing import Any

from theon.rewriting.db import (
    Phase,
    PhasedRewriter,
    RewriteDatabase,
    RewriteEntry,
    RewriteQuery,
    rewrite_db,
)

__all__ = [
    "Phase",
    "PhasedRewriter",
    "RewriteDatabase",
    "RewriteDatabaseQuery",
    "RewriteEntry",
    "RewriteQuery",
    "rewrite_db",
]

def RewriteDatabaseQuery(
    include: Iterable[str],
    require: Iterable[str] | None = None,
    exclude: Iterable[str] | None = None,
    **kwargs: Any,
) -> RewriteQuery:
    """PyTensor's query constructor (its argument order: include, require, exclude) as a
    theon :class:`RewriteQuery`; PyTensor's other arguments (``subquery``,
    ``position_cutoff``, ``extra_rewrites``) have no counterpart and must be left out."""
    unused = {k: v for k, v in kwargs.items() if v is not None and k != "position_cutoff"}
    if unused:
        raise TypeError(f"RewriteDatabaseQuery: theon has no {', '.join(sorted(unused))}")
    return RewriteQuery(tuple(include), tuple(exclude or ()), tuple(require or ()))
