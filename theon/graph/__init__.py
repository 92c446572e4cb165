"""The seed core: Variables, Apply nodes, Ops, Types and FunctionGraphs (no tensors).

>>> from theon.scalar import float64, mul
>>> x = float64("x")
>>> y = mul(x, x)
>>> isinstance(y, Variable), isinstance(y.owner, Apply), [str(v) for v in graph_inputs([y])]
(True, True, ['x'])

PyTensor's ``pytensor.graph`` also holds ``node_rewriter``, ``graph_rewriter`` and
``rewrite_graph``, which belong to the rewriting layer above this one.  That layer
registers them here with :func:`register_graph_export` when it is imported (``import
theon`` imports it), so ``theon.graph.node_rewriter`` is
``theon.rewriting.node_rewriter``.
"""

from typing import Any

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import FunctionGraph
from theon.graph.op import Op
from theon.graph.replace import (
    clone,
    clone_get_equiv,
    clone_replace,
    equal_computations,
    graph_replace,
    vectorize_graph,
)
from theon.graph.traversal import (
    ancestors,
    explicit_graph_inputs,
    graph_inputs,
    io_toposort,
    toposort,
    variables,
    walk,
)
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
    "clone_get_equiv",
    "clone_replace",
    "equal_computations",
    "explicit_graph_inputs",
    "graph_inputs",
    "graph_replace",
    "io_toposort",
    "register_graph_export",
    "toposort",
    "variables",
    "vectorize_graph",
    "walk",
]

# names a higher layer defines and registers here (see the module docstring)
_EXPORTS: dict[str, Any] = {}


def register_graph_export(name: str, obj: Any) -> None:
    """Make ``theon.graph.<name>`` be ``obj``: how the rewriting layer puts PyTensor's
    ``pytensor.graph.node_rewriter`` (and ``graph_rewriter``, ``rewrite_graph``) here.

    >>> import theon.rewriting
    >>> import theon.graph
    >>> theon.graph.node_rewriter is theon.rewriting.node_rewriter
    True
    """
    _EXPORTS[name] = obj


def __getattr__(name: str) -> Any:
    try:
        return _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'theon.graph' has no attribute {name!r}") from None
