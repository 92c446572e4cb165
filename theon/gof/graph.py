"""Theano's ``theano.gof.graph``: the graph objects and functions under their old names
(``inputs`` is :func:`theon.graph.traversal.graph_inputs`).

>>> import theon.tensor as T
>>> from theon.gof import graph
>>> x, y = T.dscalars("xy")
>>> [v.name for v in graph.inputs([x * y])]
['x', 'y']
>>> graph.is_same_graph(x * y, x * y), graph.is_same_graph(x * y, y * x)
(True, False)
"""

from theon.graph.basic import Apply, Constant, Node, Variable
from theon.graph.replace import (
    clone,
    clone_get_equiv,
    clone_replace,
    equal_computations,
    is_same_graph,
)
from theon.graph.traversal import (
    ancestors,
    applys_between,
    io_toposort,
    orphans_between,
    toposort,
    variables,
    vars_between,
)
from theon.graph.traversal import graph_inputs as inputs

__all__ = [
    "Apply",
    "Constant",
    "Node",
    "Variable",
    "ancestors",
    "applys_between",
    "clone",
    "clone_get_equiv",
    "clone_replace",
    "equal_computations",
    "inputs",
    "io_toposort",
    "is_same_graph",
    "orphans",
    "ops",
    "orphans_between",
    "toposort",
    "variables",
    "vars_between",
]

#: Theano's names of two traversals
ops = applys_between
orphans = orphans_between
