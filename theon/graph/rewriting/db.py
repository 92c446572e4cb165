"""``pytensor.graph.rewriting.db`` spelled ``theon.graph.rewriting.db``: PyTensor's rewrite
databases (:mod:`theon.rewriting.tagdb`) and queries.

``RewriteDatabase`` here is PyTensor's base class, theon's
:class:`~theon.rewriting.tagdb.TagDatabase`; theon's own phased database is
:class:`theon.rewriting.db.RewriteDatabase` (``rewrite_db``), which PyTensor's
``optdb`` (:mod:`theon.rewriting.optdb`) shows.  ``RewriteDatabaseQuery`` builds
theon's :class:`~theon.rewriting.db.RewriteQuery`.

>>> from theon.graph.rewriting.db import RewriteDatabaseQuery
>>> RewriteDatabaseQuery(include=["fast_run"]).include
('fast_run',)
"""

from collections.abc import Iterable
from typing import Any

from theon.rewriting.db import RewriteQuery
from theon.rewriting.tagdb import (
    EquilibriumDB,
    LocalGroupDB,
    ProxyDB,
    SequenceDB,
    TagDatabase,
    TopoDB,
)

__all__ = [
    "EquilibriumDB",
    "LocalGroupDB",
    "ProxyDB",
    "RewriteDatabase",
    "RewriteDatabaseQuery",
    "SequenceDB",
    "TopoDB",
]

#: PyTensor's base class of rewrite databases
RewriteDatabase = TagDatabase


def RewriteDatabaseQuery(
    include: Iterable[str],
    require: Iterable[str] | None = None,
    exclude: Iterable[str] | None = None,
    **kwargs: Any,
) -> RewriteQuery:
    """PyTensor's query constructor (its argument order: include, require, exclude) as a
    theon :class:`RewriteQuery`; PyTensor's other arguments (``subquery``,
    ``extra_rewrites``; ``position_cutoff`` is a ``SequenceDB.query`` argument here) have
    no counterpart and must be left out."""
    unused = {k: v for k, v in kwargs.items()
              if v is not None and v != {} and v != [] and v != float("inf")}
    if unused:
        raise TypeError(f"RewriteDatabaseQuery: theon has no {', '.join(sorted(unused))}")
    return RewriteQuery(tuple(include), tuple(exclude or ()), tuple(require or ()))
