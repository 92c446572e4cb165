"""Small names PyTensor keeps in ``pytensor.tensor`` that are neither Ops nor array
functions: ``transfer`` (a variable on a target device: theon has the CPU only),
``values_eq_approx_always_true``, the ``TensorLike`` annotation, and ``Op`` (the Op base
class) and ``none_type_t`` (the type of ``NoneConst``), which PyTensor's module exports
too.

>>> import theon.tensor as tt
>>> v = tt.dvector("v")
>>> transfer(v, "cpu") is v
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Union

import numpy.typing as npt

from theon.graph.basic import Variable
from theon.graph.op import Op
from theon.tensor.basic import as_tensor_variable
from theon.tensor.type_other import none_type_t
from theon.tensor.variable import TensorVariable

__all__ = ["Op", "TensorLike", "none_type_t", "transfer", "values_eq_approx_always_true"]

#: what ``as_tensor_variable`` takes: a variable, a sequence of them, or array-like data
TensorLike = Union[Variable, Sequence[Variable], npt.ArrayLike]  # noqa: UP007


def transfer(var: Any, target: str) -> TensorVariable:
    """``var`` on the device ``target``: ``'cpu'`` (the only one theon has) gives the
    tensor variable itself; any other target is an error.

    >>> transfer([1.0, 2.0], "cpu").type.ndim
    1
    """
    if target == "cpu":
        return as_tensor_variable(var)
    raise ValueError(f"transfer: theon runs on the CPU only; cannot transfer {var!r} to "
                     f"{target!r}")


def values_eq_approx_always_true(a: Any, b: Any) -> bool:
    """A value comparison that accepts anything (PyTensor's, for checks that must not
    compare two values).

    >>> values_eq_approx_always_true(1.0, [2.0, 3.0])
    True
    """
    return True
