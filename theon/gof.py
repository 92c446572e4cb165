"""The seeds' old name for the graph core: ``from theano import gof`` -> ``from theon import gof``.

Seed 004 builds Ops with ``gof.Op()``, ``gof.Apply`` and ``gof.Constant``; this
module gives those spellings the graph core's objects (no new concepts).

>>> from theon import gof
>>> import theon.graph.op
>>> gof.Op is theon.graph.op.Op
True
"""

import theon
from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import FunctionGraph
from theon.graph.op import Op
from theon.graph.type import Generic, Type

__all__ = ["Apply", "Constant", "FunctionGraph", "Generic", "Op", "Type", "Variable", "theon"]
