"""theon: an optimizing compiler for mathematical expressions on NumPy arrays.

>>> import theon
>>> from theon.graph.type import Generic
>>> x = Generic()("x")
>>> theon.function([x], x)(3)
3
"""

from theon.compile.function import function
from theon.compile.io import In, Out
from theon.compile.mode import Mode
from theon.compile.sharedvalue import shared
from theon.config import config
from theon.gradient import Lop, Rop, grad, hessian, jacobian, verify_grad
from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import FunctionGraph
from theon.graph.op import Op
from theon.graph.type import Generic, Type
from theon.printing import dprint, pprint

__version__ = "0.1.0"

__all__ = [
    "Apply",
    "Constant",
    "FunctionGraph",
    "Generic",
    "In",
    "Lop",
    "Mode",
    "Op",
    "Out",
    "Rop",
    "Type",
    "Variable",
    "config",
    "dprint",
    "function",
    "grad",
    "hessian",
    "jacobian",
    "pprint",
    "shared",
    "verify_grad",
]
