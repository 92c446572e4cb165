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
from typing import Any as _Any

import numpy as _np

from theon.compile.sharedvalue import shared_constructor as _shared_constructor
from theon.graph.basic import Apply, Constant, Variable
from theon.graph.vectorize import register_vectorize_module as _register_vectorize_module
from theon.link.registry import register_linker_backend as _register_linker_backend
from theon.rewriting.db import register_rewrite_module as _register_rewrite_module
from theon.scalar.type import register_scalar_conversion as _register_scalar_conversion
from theon.tensor import blas as _blas
from theon.tensor import complex as _complex
from theon.tensor import creation as _creation
from theon.tensor import extra_ops as _extra_ops
from theon.tensor import grids as _grids
from theon.tensor import interpolate as _interpolate
from theon.tensor import joining as _joining
from theon.tensor import layout as _layout
from theon.tensor import math as _math
from theon.tensor import names as _names
from theon.tensor import numeric as _numeric
from theon.tensor import pad as _pad
from theon.tensor import reshaping as _reshaping
from theon.tensor import searching as _searching
from theon.tensor import shape as _shape
from theon.tensor import sharedvar
from theon.tensor import shortcuts as _shortcuts
from theon.tensor import sort as _sort
from theon.tensor import special as _special
from theon.tensor import statistics as _statistics
from theon.tensor import subtensor as _subtensor
from theon.tensor import triangular as _triangular
from theon.tensor import type as _type
from theon.tensor.basic import (
    NotScalarConstantError,
    ScalarFromTensor,
    TensorFromScalar,
    as_tensor,
    as_tensor_variable,
    cast,
    constant,
    get_scalar_constant_value,
    get_underlying_scalar_constant_value,
    scalar_from_tensor,
    tensor_from_scalar,
    value,
)
from theon.tensor.blockwise import Blockwise, vectorize
from theon.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from theon.tensor.sharedvar import TensorSharedVariable
from theon.tensor.type_other import NoneConst
from theon.tensor.variable import TensorConstant, TensorValue, TensorVariable

# The names of the op modules, in this order: where two export a name, the later wins
# (theon.tensor.blas's ``dot`` over theon.tensor.math's), except theon.tensor.math's
# reductions, which stay.
# isort: off
from theon.tensor.math import *  # noqa: F403
from theon.tensor.type import *  # noqa: F403
from theon.tensor.shortcuts import *  # noqa: F403
from theon.tensor.shape import *  # noqa: F403
from theon.tensor.reshaping import *  # noqa: F403
from theon.tensor.subtensor import *  # noqa: F403
from theon.tensor.extra_ops import *  # noqa: F403
from theon.tensor.sort import *  # noqa: F403
from theon.tensor.blas import *  # noqa: F403
from theon.tensor.creation import *  # noqa: F403
from theon.tensor.joining import *  # noqa: F403
from theon.tensor.special import *  # noqa: F403
from theon.tensor.triangular import *  # noqa: F403
from theon.tensor.numeric import *  # noqa: F403
from theon.tensor.complex import *  # noqa: F403
from theon.tensor.searching import *  # noqa: F403
from theon.tensor.layout import *  # noqa: F403
from theon.tensor.grids import *  # noqa: F403
from theon.tensor.statistics import *  # noqa: F403
from theon.tensor.pad import *  # noqa: F403
from theon.tensor.interpolate import *  # noqa: F403
from theon.tensor.names import *  # noqa: F403
# isort: on

all, any, max, min = _math.all, _math.any, _math.max, _math.min
prod, sum = _math.prod, _math.sum

__all__ = [
    "Apply",
    "Blockwise",
    "CAReduce",
    "Constant",
    "DimShuffle",
    "Elemwise",
    "NoneConst",
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
    "get_underlying_scalar_constant_value",
    "scalar_from_tensor",
    "sharedvar",
    "tensor_from_scalar",
    "value",
    "vectorize",
]
__all__ += [n for m in (_type, _shortcuts, _math) for n in m.__all__ if n not in __all__]

# The oldest seeds' spellings (seed 001/003: ``Result``, ``Tensor``); the later names win,
# these only keep that code running.
Result = Variable
Tensor = TensorType  # noqa: F405  (from the star import of theon.tensor.type)
__all__ += ["Result", "Tensor"]

_OP_MODULES = (
    _shape, _reshaping, _subtensor, _extra_ops, _sort, _blas, _creation, _joining, _special,
    _triangular, _numeric, _complex, _searching, _layout, _grids, _statistics, _pad,
    _interpolate, _names,
)
__all__ += [n for m in _OP_MODULES for n in m.__all__ if n not in __all__]


# Theano's and PyTensor's module ``tensor.xlogx`` (``T.xlogx.xlogx``) replaces the
# elementwise function of the star import as ``theon.tensor.xlogx``; calling the module
# calls that function, so ``T.xlogx(x)`` keeps working
_importlib.import_module("theon.tensor.xlogx")


def _as_scalar(x: Variable) -> Variable | None:
    """A 0-d tensor as a scalar variable (for ``theon.scalar.as_scalar``)."""
    return scalar_from_tensor(x) if tensor_type(x).ndim == 0 else None  # noqa: F405


# The layers above that serve tensor graphs: the tensor rewrites and the py linker's
# emitters are imported on first use (the first compile), not by ``import theon.tensor``.
_register_rewrite_module("theon.tensor.rewriting")
_register_linker_backend("py", "theon.backends.py.tensor")
_register_linker_backend("py", "theon.backends.py.basic")
_register_linker_backend("py", "theon.backends.py.tensor_extra")
_register_linker_backend("numba", "theon.backends.numba.tensor")
_register_linker_backend("numba", "theon.backends.numba.tensor_extra")
_register_linker_backend("jax", "theon.backends.jax.tensor")  # (jax loads when a rule runs)
_register_linker_backend("jax", "theon.backends.jax.searching")
_register_vectorize_module("theon.tensor.vectorize_rules")
_register_scalar_conversion(TensorType, _as_scalar)  # noqa: F405


# Names of higher layers that Theano kept in ``theano.tensor`` (``T.grad``): the layer that
# owns each registers it here when it is imported (theon.gradient does, and ``import theon``
# imports it), so this module never imports a layer above its own.
_PROVIDED: dict[str, _Any] = {}


# Theano's ``T.nnet``, ``T.shared_randomstreams``: submodules reachable as attributes
_LAZY_MODULES = frozenset(
    {"random", "nnet", "shared_randomstreams", "signal", "linalg", "nlinalg", "slinalg",
     "fft", "optimize", "rewriting", "functional", "utils"}
)


def provide(name: str, value: _Any) -> None:
    """Make ``value`` reachable as ``theon.tensor.<name>`` (for a higher layer's names).

    >>> import theon, theon.tensor as tt
    >>> tt.grad is theon.grad
    True
    """
    _PROVIDED[name] = value


def __getattr__(name: str) -> _Any:
    """The submodules in ``_LAZY_MODULES`` are imported on first use (they are not needed
    to build tensors); the names registered with :func:`provide` are looked up here."""
    if name in _LAZY_MODULES:
        import importlib

        return importlib.import_module(f"theon.tensor.{name}")
    if name in _PROVIDED:
        return _PROVIDED[name]
    raise AttributeError(f"module 'theon.tensor' has no attribute {name!r}")


@_shared_constructor
def _generator_constructor(value: _Any, **kwargs: _Any) -> _Any:
    """``theon.shared(np.random.Generator)`` before ``theon.tensor.random`` is imported."""
    if not isinstance(value, _np.random.Generator):
        raise TypeError(f"not a numpy.random.Generator: {type(value).__name__}")
    from theon.tensor.random.type import generator_constructor

    return generator_constructor(value, **kwargs)
