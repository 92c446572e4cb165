"""theon: an optimizing compiler for mathematical expressions on NumPy arrays.

``import theon`` imports the tensor layer (so ``theon.shared`` knows arrays and
``theon.tensor.dmatrix()`` works at once); the other subpackages are imported on
first use.  The rewrites and the linker's emitters are imported by the first
compile (see :func:`theon.compile.mode.preload`).

>>> import theon
>>> from theon.graph.type import Generic
>>> x = Generic()("x")
>>> theon.function([x], x)(3)
3
>>> y = -theon.tensor.ivector("y")
>>> y.type
TensorType(int32, shape=(None,))
"""

import importlib as _importlib
from functools import singledispatch as _singledispatch
from typing import Any as _Any

from theon import compat as _compat
from theon import tensor as tensor  # registers its shared constructor, rewrites, emitters
from theon.compile.clone import clone
from theon.compile.io import In, Out
from theon.compile.mode import Mode
from theon.compile.pipeline import function
from theon.compile.sharedvalue import shared
from theon.compile.updates import OrderedUpdates
from theon.config import config
from theon.gradient import Lop, Rop, grad, hessian, jacobian, pullback, pushforward, verify_grad
from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import FunctionGraph
from theon.graph.op import Op
from theon.graph.replace import clone_replace, graph_replace
from theon.graph.type import Generic, Type
from theon.printing import dprint, pp, pprint

_compat._install_theon_paths()  # Theano's old paths (theon.gof, ...), from theon.compat.table


@_singledispatch
def _as_symbolic(x: _Any, **kwargs: _Any) -> Variable:
    """The symbolic form of a value that is not a Variable, by its class: a tensor
    constant unless a rule is registered (PyTensor's extension point, as PyMC registers
    ``str``: ``@theon._as_symbolic.register(str)``)."""
    from theon.tensor import as_tensor_variable

    return as_tensor_variable(x, **kwargs)


def as_symbolic(x: _Any, name: str | None = None, **kwargs: _Any) -> Variable:
    """``x`` as a Variable: ``x`` itself if it is one, else :func:`_as_symbolic`'s rule
    for its class, named ``name`` (``kwargs`` go to the rule).

    >>> import numpy as np
    >>> as_symbolic(np.arange(3.0), name="c").type, as_symbolic(2.0).eval()
    (TensorType(float64, shape=(3,)), array(2.))
    """
    if isinstance(x, Variable):
        return x
    res = _as_symbolic(x, **kwargs)
    res.name = name
    return res


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
    "OrderedUpdates",
    "Out",
    "Rop",
    "Type",
    "Variable",
    "as_symbolic",
    "clone",
    "clone_replace",
    "config",
    "dprint",
    "function",
    "grad",
    "graph_replace",
    "hessian",
    "jacobian",
    "pp",
    "pprint",
    "pullback",
    "pushforward",
    "shared",
    "verify_grad",
]

# subpackages reachable as attributes of ``theon`` without importing them first
_SUBPACKAGES = frozenset(
    {
        "backends", "compat", "compile", "d3viz", "gof", "gpuarray", "gradient", "graph",
        "ifelse", "link", "misc", "opfromgraph", "printing", "rewriting", "sandbox", "scalar",
        "scan", "scan_module", "sparse", "tensor",
    }
)


# names of higher layers (control flow, theon.explain), imported on first access: name -> module
_LAZY = {
    "OpFromGraph": "theon.opfromgraph", "loop": "theon.scan.loop",
    # PyTensor's loop helpers (pytensor.map, ...)
    "map": "theon.scan.views", "reduce": "theon.scan.views", "foldl": "theon.scan.views",
    "foldr": "theon.scan.views",
    "explain": "theon.compile.explain",
}


def __getattr__(name: str) -> _Any:
    """Import a subpackage on first attribute access (``theon.tensor``), and the
    names of higher layers (``theon.OpFromGraph``, ``theon.loop``, ``theon.explain``)
    from their modules.

    ``theon.scan`` is the scan package, callable as ``theon.scan(...)``.
    """
    if name in _SUBPACKAGES:
        return _importlib.import_module(f"theon.{name}")
    if name in _LAZY:
        return getattr(_importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'theon' has no attribute {name!r}")
