"""The tensor layer's exceptions (PyTensor's ``pytensor.tensor.exceptions``).

>>> import theon.tensor as tt
>>> from theon.tensor.basic import get_underlying_scalar_constant_value
>>> try:
...     get_underlying_scalar_constant_value(tt.dscalar("x"))
... except NotScalarConstantError as e:
...     print("not a constant")
not a constant
"""

from __future__ import annotations

__all__ = ["NotScalarConstantError"]


class NotScalarConstantError(ValueError):
    """The variable is not a constant scalar (as far as can be told statically).

    Raised by :func:`theon.tensor.basic.get_scalar_constant_value` and
    :func:`~theon.tensor.basic.get_underlying_scalar_constant_value`.
    """
