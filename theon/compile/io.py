"""``In`` and ``Out``: how a function treats each input and output.

>>> from theon.graph.type import Generic
>>> x = Generic()("x")
>>> In(x, value=3).value
3
"""

from __future__ import annotations

from typing import Any

from theon.graph.basic import Variable

__all__ = ["In", "Out"]

_NO_VALUE: Any = object()


class In:
    """An input of a compiled function.

    Parameters
    ----------
    variable
        The symbolic input.
    name
        Keyword name for calls (defaults to the variable's name).
    value
        Default value, used when the argument is not given.
    update
        A variable whose value replaces the stored default after each call.
    mutable
        The function may overwrite this argument's array in place.
    borrow
        The function may keep the given array without copying it.
    strict
        Refuse any argument that is not already of the exact type.
    allow_downcast
        Accept lossy conversions of the argument (``None``: only for Python floats
        into floatX).
    implicit
        The input is not a positional argument (shared variables).
    """

    def __init__(
        self,
        variable: Variable,
        name: str | None = None,
        value: Any = _NO_VALUE,
        update: Variable | None = None,
        mutable: bool | None = None,
        borrow: bool | None = None,
        strict: bool = False,
        allow_downcast: bool | None = None,
        implicit: bool | None = None,
        shared: bool = False,
    ) -> None:
        if not isinstance(variable, Variable):
            raise TypeError(f"In() needs a Variable, got {variable!r}")
        self.variable = variable
        self.name = variable.name if name is None else name
        self.value = value
        self.update = update
        self.mutable = bool(mutable)
        self.borrow = bool(borrow) or self.mutable
        self.strict = strict
        self.allow_downcast = allow_downcast
        self.shared = shared
        self.implicit = bool(implicit) if implicit is not None else shared
        if self.mutable and borrow is False:
            raise ValueError(f"input {self.name}: a mutable input must be borrowed")

    @property
    def has_default(self) -> bool:
        return self.value is not _NO_VALUE

    def __repr__(self) -> str:
        return f"In({self.variable}, name={self.name!r})"


class Out:
    """An output of a compiled function; ``borrow=True`` may return internal storage."""

    def __init__(self, variable: Variable, borrow: bool = False) -> None:
        if not isinstance(variable, Variable):
            raise TypeError(f"Out() needs a Variable, got {variable!r}")
        self.variable = variable
        self.borrow = borrow

    def __repr__(self) -> str:
        return f"Out({self.variable}, borrow={self.borrow})"
