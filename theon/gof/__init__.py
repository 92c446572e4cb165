"""Theano's old name for the graph core: ``from theano import gof`` -> ``from theon import gof``.

Seed 004 builds Ops with ``gof.Op()``, ``gof.Apply`` and ``gof.Constant``; this
package gives those spellings the graph core's objects (no new concepts), and
Theano's submodules ``gof.graph``, ``gof.fg``, ``gof.op``, ``gof.type`` and
``gof.opt`` the functions and rewriters they held.

>>> from theon import gof
>>> import theon.graph.op
>>> gof.Op is theon.graph.op.Op
True
>>> gof.graph.inputs is theon.graph.traversal.graph_inputs
True
"""

import theon
from theon.gof import fg, graph, op, opt, type
from theon.gof.fg import InconsistencyError, MissingInputError
from theon.gof.opt import (
    EquilibriumOptimizer,
    LocalOptimizer,
    MergeOptimizer,
    Optimizer,
    PatternSub,
    SeqOptimizer,
    TopoOptimizer,
    local_optimizer,
)
from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import FunctionGraph
from theon.graph.op import Op
from theon.graph.type import Generic, Type

__all__ = [
    "Apply",
    "Constant",
    "EquilibriumOptimizer",
    "FunctionGraph",
    "Generic",
    "InconsistencyError",
    "LocalOptimizer",
    "MergeOptimizer",
    "MissingInputError",
    "Op",
    "Optimizer",
    "PatternSub",
    "SeqOptimizer",
    "TopoOptimizer",
    "Type",
    "Variable",
    "fg",
    "graph",
    "local_optimizer",
    "op",
    "opt",
    "theon",
    "type",
]
