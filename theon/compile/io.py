"""``In`` and ``Out``: how a function treats each input and output.

``In`` gives an input a keyword name, a default value, state (``value`` plus
``update``: the input keeps the update's result for the next call), and says
whether the function may overwrite the argument (``mutable``).  ``Out(v,
borrow=True)`` lets a function return its internal storage instead of a copy.

>>> import theon
>>> from theon.graph.type import Generic
>>> x = Generic()("x")
>>> In(x, value=3).value
3
>>> f = theon.function([In(x, name="n", value=3)], x)
>>> f(), f(n=4), f(5)
(3, 4, 5)
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
        A Variable computed by the function whose value becomes the stored value
        (the default of the next call) after each call; needs ``value``.
    mutable
        The function may overwrite this argument's array in place (the inplace
        rewrites may then reuse its memory); the caller must not expect the
        argument to keep its value.  Implies ``borrow``.
    borrow
        The function may keep the given array without copying it.
    strict
        Refuse any argument that is not already of the exact type.
    allow_downcast
        Accept lossy conversions of the argument (``None``: only for Python floats
        into floatX).
    implicit
        The input is not an argument: its value is always the stored one (shared
        variables are implicit inputs).
    shared
        Set by ``function`` for the In of a shared variable.
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
        if update is not None and not isinstance(update, Variable):
            raise TypeError(
                f"In({variable}): update must be a Variable, got {type(update).__name__}"
            )
        if update is not None and value is _NO_VALUE and not shared:
            raise ValueError(
                f"In({variable}): an input with an update keeps state between calls and "
                "needs an initial value= "
            )
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
        """Whether the input has a default (or stored) value."""
        return self.value is not _NO_VALUE

    def __repr__(self) -> str:
        return f"In({self.variable}, name={self.name!r})"


class Out:
    """An output of a compiled function; ``borrow=True`` may return internal storage.

    With ``borrow=True`` the result may alias the function's inputs, shared values
    or storage a later call overwrites: copy it before keeping it.

    >>> from theon.graph.type import Generic
    >>> Out(Generic()("y"), borrow=True)
    Out(y, borrow=True)
    """

    def __init__(self, variable: Variable, borrow: bool = False) -> None:
        if not isinstance(variable, Variable):
            raise TypeError(f"Out() needs a Variable, got {variable!r}")
        self.variable = variable
        self.borrow = borrow

    def __repr__(self) -> str:
        return f"Out({self.variable}, borrow={self.borrow})"
