"""Symbolic NumPy arrays: ``TensorType``, the seeds' shortcuts, and the tensor op set.

Import it as ``tt``::

    import theon.tensor as tt
    x = tt.dmatrix("x")
    y = tt.exp(x).sum(axis=1)

>>> import theon
>>> import theon.tensor as tt
>>> a = tt.vector("a")
>>> f = theon.function([a], a + a**10)
>>> f([0, 1, 2])
array([   0.,    2., 1026.])
"""

import importlib as _importlib

from theon.graph.basic import Apply, Constant, Variable
from theon.tensor import sharedvar
from theon.tensor.basic import (
    NotScalarConstantError,
    ScalarFromTensor,
    TensorFromScalar,
    as_tensor,
    as_tensor_variable,
    cast,
    constant,
    get_scalar_constant_value,
    scalar_from_tensor,
    tensor_from_scalar,
    value,
)
from theon.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from theon.tensor.math import *  # noqa: F403
from theon.tensor.math import __all__ as _math_all
from theon.tensor.sharedvar import TensorSharedVariable
from theon.tensor.type import *  # noqa: F403
from theon.tensor.type import __all__ as _type_all
from theon.tensor.variable import TensorConstant, TensorValue, TensorVariable

__all__ = [
    "Apply",
    "CAReduce",
    "Constant",
    "DimShuffle",
    "Elemwise",
    "NotScalarConstantError",
    "ScalarFromTensor",
    "TensorConstant",
    "TensorFromScalar",
    "TensorSharedVariable",
    "TensorValue",
    "TensorVariable",
    "Variable",
    "as_tensor",
    "as_tensor_variable",
    "cast",
    "constant",
    "get_scalar_constant_value",
    "scalar_from_tensor",
    "sharedvar",
    "tensor_from_scalar",
    "value",
]
__all__ += [n for n in _type_all + _math_all if n not in __all__]

# The oldest seeds' spellings (seed 001/003: ``Result``, ``Tensor``); the later names win,
# these only keep that code running.
Result = Variable
Tensor = TensorType  # noqa: F405  (from the star import of theon.tensor.type)
__all__ += ["Result", "Tensor"]

# Modules written beside this one; each contributes its ``__all__`` when present.
_OPTIONAL_MODULES = (
    "shape",
    "reshaping",
    "subtensor",
    "extra_ops",
    "sort",
    "blas",
    "products",
    "nlinalg",
    "slinalg",
    "linalg",
    "creation",
    "joining",
    "special",
    "random",
    "einsum",
)


def _load_optional() -> None:
    """Import the optional submodules that exist and re-export their public names."""
    g = globals()
    for name in _OPTIONAL_MODULES:
        full = f"theon.tensor.{name}"
        try:
            mod = _importlib.import_module(full)
        except ModuleNotFoundError as e:
            if e.name == full:
                continue
            raise
        for n in getattr(mod, "__all__", ()):
            if n in ("all", "any", "max", "min", "sum", "prod") and n in g:
                continue  # the reductions of theon.tensor.math stay
            g[n] = getattr(mod, n)
            if n not in __all__:
                __all__.append(n)


_load_optional()


def _preload() -> None:
    """Fill the rewrite and linker registries now, not during the first compile."""
    from theon.compile.mode import preload

    preload()


_preload()
