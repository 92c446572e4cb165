"""Types: the constraints on a Variable's values, and the filters that enforce them.

A Type's identity is its ``__props__``: two instances of one class with equal
props are equal, so the seed's ``double`` may be made more than once.

>>> g = Generic()
>>> g.filter([1, 2])
[1, 2]
>>> g("x").type == Generic()
True
"""

from __future__ import annotations

from typing import Any

from theon.graph.basic import Constant, Variable, caller_trace

__all__ = ["Generic", "Type", "generic"]


class Type:
    """Base of all Types.

    Subclasses define :meth:`filter`; the rest has defaults built on it.
    ``variable_type`` and ``constant_type`` are the classes of the Variables
    this type makes.

    >>> class Even(Type):
    ...     def filter(self, x, strict=False, allow_downcast=None):
    ...         if x % 2:
    ...             raise TypeError(f"{x} is odd")
    ...         return x
    >>> Even().filter(4), Even().is_valid_value(3)
    (4, False)

    ``Type[str]`` (PyTensor's Types are generic in their values) is ``Type`` itself, so
    ``class StringType(Type[str])`` works; theon's Types do not declare their values'
    type.

    >>> Type[str] is Type
    True
    """

    __props__: tuple[str, ...] = ()
    variable_type: type[Variable] = Variable
    constant_type: type[Constant] = Constant

    def __class_getitem__(cls, item: Any) -> type[Type]:
        return cls

    # identity ----------------------------------------------------------------
    def _props(self) -> tuple[Any, ...]:
        return tuple(getattr(self, p) for p in self.__props__)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        return type(self) is type(other) and self._props() == other._props()

    def __hash__(self) -> int:
        return hash((type(self), self._props()))

    def __str__(self) -> str:
        if self.__props__:
            args = ", ".join(f"{p}={getattr(self, p)!r}" for p in self.__props__)
            return f"{type(self).__name__}({args})"
        return type(self).__name__

    def __repr__(self) -> str:
        return str(self)

    # values ------------------------------------------------------------------
    def filter(self, x: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        """Return ``x`` as a value of this type, or raise ``TypeError``.

        With ``strict``, ``x`` must already be a value of this type.  Otherwise an
        exact conversion is allowed; a lossy one only with ``allow_downcast``.
        """
        raise NotImplementedError(f"{type(self).__name__} does not define filter()")

    def is_valid_value(self, x: Any) -> bool:
        """Whether ``x`` is, as it is, a value of this type."""
        try:
            self.filter(x, strict=True)
        except (TypeError, ValueError):
            return False
        return True

    def values_eq(self, a: Any, b: Any) -> bool:
        """Whether two values of this type are equal."""
        return bool(a == b)

    def values_eq_approx(self, a: Any, b: Any) -> bool:
        """Whether two values are equal up to round-off (exact by default)."""
        return self.values_eq(a, b)

    def constant_signature(self, data: Any) -> Any:
        """A hashable key for a constant's data; equal data give equal keys."""
        try:
            hash(data)
        except TypeError:
            return (type(data), id(data))
        return (type(data), data)

    # variables ----------------------------------------------------------------
    def make_variable(self, name: str | None = None) -> Variable:
        """A new Variable of this type."""
        return self.variable_type(self, None, None, name)

    def __call__(self, name: str | None = None) -> Variable:
        """Same as :meth:`make_variable` (the seeds' ``dmatrix('x')``); a named variable
        made by the user's code records where (``tag.trace``), for error messages."""
        var = self.make_variable(name)
        if name is not None:
            trace = caller_trace()
            if trace is not None:
                var.tag.trace = trace
        return var

    def make_constant(self, value: Any, name: str | None = None) -> Constant:
        """A Constant of this type holding ``value``."""
        return self.constant_type(self, value, name=name)

    def convert_variable(self, var: Variable) -> Variable | None:
        """``var`` converted to this type when that is free and exact, else ``None``."""
        if var.type == self:
            return var
        return None

    def in_same_class(self, other: Type) -> bool:
        """Whether ``other`` is the same kind of type (same class and props)."""
        return self == other

    def is_super(self, other: Type) -> bool:
        """Whether every value of ``other`` is a value of this type."""
        return self == other

    def filter_variable(self, other: Any, allow_convert: bool = True) -> Variable:
        """``other`` as a Variable of this type: a Constant for plain values.

        Raises ``TypeError`` naming both types when that is not possible.
        """
        if not isinstance(other, Variable):
            return self.make_constant(other)
        if other.type == self:
            return other
        if allow_convert:
            conv = self.convert_variable(other)
            if conv is not None:
                return conv
        raise TypeError(
            f"cannot convert variable {other} of type {other.type} to type {self}"
        )


class Generic(Type):
    """The type of any Python object; ``filter`` accepts everything.

    >>> Generic().filter({"a": 1})
    {'a': 1}
    """

    def filter(self, x: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        return x

    def is_valid_value(self, x: Any) -> bool:
        return True

    def values_eq(self, a: Any, b: Any) -> bool:
        if a is b:
            return True
        try:
            return bool(a == b)
        except Exception:
            return False

    def __str__(self) -> str:
        return "Generic"


generic = Generic()
