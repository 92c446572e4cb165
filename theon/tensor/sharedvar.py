"""Shared variables holding arrays: ``theon.shared(np.zeros(3))`` gives a TensorSharedVariable.

Importing this module registers :func:`tensor_constructor` with
:func:`theon.compile.sharedvalue.shared`.  The static shape is free (``None``)
in every dimension unless ``shape=`` says otherwise, so ``set_value`` may
change the length of each dimension but not their number or the dtype.

>>> import numpy as np
>>> from theon.compile.sharedvalue import shared
>>> w = shared(np.zeros((2, 3)), name="w")
>>> w.type, (w * 2.0).dtype
(TensorType(float64, shape=(None, None)), 'float64')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from theon.compile.sharedvalue import SharedVariable, shared_constructor
from theon.tensor.type import TensorType
from theon.tensor.variable import _tensor_py_operators

__all__ = ["TensorSharedVariable", "tensor_constructor"]


class TensorSharedVariable(_tensor_py_operators, SharedVariable):
    """A shared variable whose type is a TensorType; it has all tensor operators and methods.

    >>> w = tensor_constructor(np.zeros(3), name="w")
    >>> isinstance(w, TensorSharedVariable), w.type
    (True, TensorType(float64, shape=(None,)))
    """

    type: TensorType


@shared_constructor
def tensor_constructor(
    value: Any,
    name: str | None = None,
    strict: bool = False,
    allow_downcast: bool | None = None,
    borrow: bool = False,
    shape: Any = None,
    broadcastable: Any = None,
    dtype: Any = None,
    **kwargs: Any,
) -> TensorSharedVariable:
    """Make a TensorSharedVariable for an ndarray, NumPy scalar or Python number.

    Declines (``TypeError``) any other value, so ``shared`` falls back to a
    generic shared variable.  ``shape`` gives static lengths (``None`` = free);
    ``dtype`` converts the value first.

    >>> v = tensor_constructor(np.arange(3.0), name="v")
    >>> v.get_value()
    array([0., 1., 2.])
    """
    if kwargs:
        raise TypeError(f"unexpected arguments {sorted(kwargs)} for a tensor shared variable")
    if isinstance(value, (bool, int, float, complex, np.generic)):
        value = np.asarray(value)
    if not isinstance(value, np.ndarray):
        raise TypeError(f"a tensor shared variable needs an ndarray or a number, got "
                        f"{type(value).__name__}")
    if value.dtype == object or value.dtype.kind not in "biufc":
        raise TypeError(f"a tensor shared variable needs numeric data, got dtype {value.dtype}")
    if dtype is not None:
        value = value.astype(dtype)
        borrow = True
    if shape is None and broadcastable is not None:
        shape = tuple(1 if b else None for b in broadcastable)
    if shape is None:
        shape = (None,) * value.ndim
    ttype = TensorType(value.dtype, shape=shape)
    if not borrow:
        value = value.copy()
    return TensorSharedVariable(name, ttype, value, strict, allow_downcast)
