"""``pytensor.graph.rewriting.utils`` spelled ``theon.graph.rewriting.utils``:
``rewrite_graph`` (run the rewrites of a query on some variables) and ``is_same_graph``.

>>> import theon.tensor as pt
>>> from theon.graph.rewriting.utils import rewrite_graph
>>> x = pt.dvector("x")
>>> rewrite_graph(x * 1, include=("canonicalize",)) is x
True
"""

from theon.graph.replace import is_same_graph
from theon.rewriting.optdb import rewrite_graph

__all__ = ["is_same_graph", "rewrite_graph"]
