"""PyTensor's ``pytensor.graph.utils``: the graph layer's small helpers and errors.

``MetaType`` is PyTensor's metaclass of Ops.  theon's :class:`~theon.graph.op.Op`
derives equality, hashing and its text from ``__props__`` in the class itself and
has no metaclass; ``MetaType`` gives the same to other classes that name it.

>>> class Point(metaclass=MetaType):
...     __props__ = ("x", "y")
...     def __init__(self, x, y):
...         self.x, self.y = x, y
>>> Point(1, 2) == Point(1, 2), Point(1, 2) == Point(1, 3), str(Point(1, 2))
(True, False, 'Point{x=1, y=2}')
"""

from __future__ import annotations

from abc import ABCMeta
from typing import Any

from theon.graph.basic import Scratchpad, user_trace
from theon.graph.features import InconsistencyError
from theon.graph.fg import MissingInputError
from theon.graph.op import OpContractError, TestValueError

__all__ = [
    "InconsistencyError",
    "MetaType",
    "MethodNotDefined",
    "MissingInputError",
    "Scratchpad",
    "TestValueError",
    "add_tag_trace",
]

#: PyTensor's name of the error an Op raises for a method it does not define
MethodNotDefined = OpContractError


class MetaType(ABCMeta):
    """A metaclass giving a class with ``__props__`` (a tuple of attribute names)
    ``_props``, ``_props_dict``, and, unless it defines them, ``__eq__``, ``__hash__``
    and ``__str__`` from those attributes."""

    def __new__(mcs, name: str, bases: tuple[type, ...], dct: dict[str, Any]) -> MetaType:
        props = dct.get("__props__")
        if props is not None:
            if not isinstance(props, tuple) or not all(isinstance(p, str) for p in props):
                raise TypeError(f"{name}.__props__ must be a tuple of attribute names, "
                                f"got {props!r}")
            names: tuple[str, ...] = props

            def _props(self: Any) -> tuple[Any, ...]:
                return tuple(getattr(self, p) for p in names)

            def _props_dict(self: Any) -> dict[str, Any]:
                return {p: getattr(self, p) for p in names}

            dct.setdefault("_props", _props)
            dct.setdefault("_props_dict", _props_dict)
            if "__eq__" not in dct:

                def __eq__(self: Any, other: object) -> bool:
                    return type(self) is type(other) and _props(self) == _props(other)

                dct["__eq__"] = __eq__
            if "__hash__" not in dct:

                def __hash__(self: Any) -> int:
                    return hash((type(self), _props(self)))

                dct["__hash__"] = __hash__
            if "__str__" not in dct:

                def __str__(self: Any) -> str:
                    if not names:
                        return type(self).__name__
                    inner = ", ".join(f"{p}={getattr(self, p)}" for p in names)
                    return f"{type(self).__name__}{{{inner}}}"

                dct["__str__"] = __str__
        return super().__new__(mcs, name, bases, dct)


def add_tag_trace(thing: Any, user_line: int | None = None) -> Any:
    """Record on ``thing.tag.trace`` the line of the user's code that built it (as theon
    does for every variable an Op call makes); returns ``thing``."""
    thing.tag.trace = user_trace()
    return thing
