"""The seed core: Variables, Apply nodes, Ops, Types and FunctionGraphs (no tensors).

>>> from theon.scalar import float64, mul
>>> x = float64("x")
>>> y = mul(x, x)
>>> isinstance(y, Variable), isinstance(y.owner, Apply), [str(v) for v in graph_inputs([y])]
(True, True, ['x'])
"""

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import FunctionGraph
from theon.graph.op import Op
from theon.graph.replace import clone, clone_replace, equal_computations, vectorize_graph
from theon.graph.traversal import ancestors, graph_inputs, io_toposort, toposort, variables
from theon.graph.type import Generic, Type

__all__ = [
    "Apply",
    "Constant",
    "FunctionGraph",
    "Generic",
    "Op",
    "Type",
    "Variable",
    "ancestors",
    "clone",
    "clone_replace",
    "equal_computations",
    "graph_inputs",
    "io_toposort",
    "toposort",
    "variables",
    "vectorize_graph",
]
