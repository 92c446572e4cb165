"""Types of graph values that are not tensors: ``None`` and slices as arguments.

``NoneConst`` is the one constant of :class:`NoneTypeT`: an Op input that means "not
given", such as a random draw's ``size=None`` (PyTensor's module path and names).
:class:`SliceType` is the type of a Python ``slice`` value.  theon's indexing Ops keep
their slices in the Op (``idx_list``), so none of theon's Ops makes a slice variable;
the type is there for programs that pass slices through graphs of their own.

>>> NoneConst.data is None, isinstance(NoneConst.type, NoneTypeT)
(True, True)
>>> none_type_t.filter(None) is None
True
"""

from __future__ import annotations

from typing import Any

from theon.graph.basic import Constant
from theon.graph.type import Generic

__all__ = ["NoneConst", "NoneTypeT", "SliceType", "none_type_t", "slicetype"]


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


class SliceType(Generic):
    """The type of a Python ``slice``.

    >>> slicetype.filter(slice(1, None))
    slice(1, None, None)
    >>> slicetype.is_valid_value(3)
    False
    """

    def filter(self, x: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        if isinstance(x, slice):
            return x
        raise TypeError(f"{self} holds slices, got {type(x).__name__} {x!r}")

    def is_valid_value(self, x: Any) -> bool:
        return isinstance(x, slice)

    def __str__(self) -> str:
        return "slice"


slicetype = SliceType()
