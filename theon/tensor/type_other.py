"""Types of graph values that are not tensors: ``None`` as an argument.

``NoneConst`` is the one constant of :class:`NoneTypeT`: an Op input that means "not
given", such as a random draw's ``size=None`` (PyTensor's module path and names).

>>> NoneConst.data is None, isinstance(NoneConst.type, NoneTypeT)
(True, True)
>>> none_type_t.filter(None) is None
True
"""

from __future__ import annotations

from typing import Any

from theon.graph.basic import Constant
from theon.graph.type import Generic

__all__ = ["NoneConst", "NoneTypeT", "none_type_t"]


class NoneTypeT(Generic):
    """The type whose only value is ``None``.

    >>> NoneTypeT().is_valid_value(0)
    False
    """

    def filter(self, x: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        if x is None:
            return None
        raise TypeError(f"{self} holds only None, got {type(x).__name__} {x!r}")

    def is_valid_value(self, x: Any) -> bool:
        return x is None

    def __str__(self) -> str:
        return "NoneTypeT"


none_type_t = NoneTypeT()

#: the constant ``None`` (e.g. a random draw's ``size`` when none is given)
NoneConst = Constant(none_type_t, None, name="NoneConst")
