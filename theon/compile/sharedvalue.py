"""Shared variables: symbolic variables with a value that lives between calls.

A :class:`SharedVariable` is an implicit input of every function that uses it:
the function reads its current value at each call and, through ``updates``,
may give it a new one afterwards.  :func:`shared` picks the variable's Type
from the value, trying the registered constructors newest first (the tensor
layer registers one for arrays and numbers; the fallback makes a ``Generic``
shared variable).

>>> from theon.graph.type import Generic
>>> s = shared({"count": 0}, name="state")
>>> s.type == Generic(), s.get_value()
(True, {'count': 0})
>>> s.set_value({"count": 1}); s.get_value()["count"]
1
"""

from __future__ import annotations

import copy
import itertools
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from theon.graph.basic import Variable, user_trace
from theon.graph.fg import describe
from theon.graph.type import Generic, Type

__all__ = [
    "Container",
    "SharedVariable",
    "copy_value",
    "generic_constructor",
    "shared",
    "shared_constructor",
]


def copy_value(x: Any) -> Any:
    """An independent copy of a runtime value (immutable values are returned as they are).

    >>> a = np.zeros(2); copy_value(a) is a, copy_value(3)
    (False, 3)
    """
    if isinstance(x, np.ndarray):
        return x.copy()
    if isinstance(x, (int, float, complex, bool, str, bytes, type(None), np.generic)):
        return x
    return copy.deepcopy(x)


_container_order = itertools.count()


class Container:
    """A one-element storage cell with the Type that filters what goes in it.

    ``storage`` is the cell itself (a list of length one), which compiled
    functions read and write directly.  ``lock`` (reentrant) is held by a call
    of a function that updates the cell, from reading its value to storing the
    new one, and by :attr:`value` assignments; a call that updates several cells
    takes their locks by increasing ``order``, so no two calls wait for each other.

    >>> c = Container(Generic(), 3, name="x")
    >>> c.value, c.storage
    (3, [3])
    """

    __slots__ = ("allow_downcast", "lock", "name", "order", "storage", "strict", "type")

    def __init__(
        self,
        type: Type,
        value: Any,
        name: str | None = None,
        strict: bool = False,
        allow_downcast: bool | None = None,
    ) -> None:
        self.type = type
        self.name = name
        self.strict = strict
        self.allow_downcast = allow_downcast
        self.storage: list[Any] = [value]
        self.lock = threading.RLock()
        self.order = next(_container_order)

    @property
    def value(self) -> Any:
        """The stored value (not a copy); setting it filters by the type."""
        return self.storage[0]

    @value.setter
    def value(self, v: Any) -> None:
        v = self.type.filter(v, self.strict, self.allow_downcast)
        with self.lock:
            self.storage[0] = v

    def copy(self) -> Container:
        """A container of the same type holding an independent copy of the value."""
        return Container(
            self.type, copy_value(self.storage[0]), self.name, self.strict, self.allow_downcast
        )

    def __getstate__(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__slots__ if k not in ("lock", "order")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            setattr(self, k, v)
        self.lock = threading.RLock()
        self.order = next(_container_order)

    def __repr__(self) -> str:
        return f"Container({self.name or ''}: {self.type})"


class SharedVariable(Variable):
    """A Variable whose value is stored with it and shared by the functions that use it.

    Parameters
    ----------
    name
        The variable's name.
    type
        Its Type; values are filtered by it.
    value
        The initial value (ignored when ``container`` is given).
    strict
        Refuse values that are not already exactly of the type.
    allow_downcast
        Accept lossy conversions in :meth:`set_value`.
    container
        An existing :class:`Container` to share (clones share their original's).

    Attributes
    ----------
    default_update
        ``None``, or a Variable giving this variable's new value after each call of
        a function that uses it (unless the function overrides it in ``updates`` or
        passes ``no_default_updates``).

    Examples
    --------
    >>> s = SharedVariable("s", Generic(), [1])
    >>> s.get_value(), s.clone().container is s.container
    ([1], True)
    """

    def __init__(
        self,
        name: str | None,
        type: Type,
        value: Any,
        strict: bool = False,
        allow_downcast: bool | None = None,
        container: Container | None = None,
    ) -> None:
        super().__init__(type, None, None, name)
        self.default_update: Variable | None = None
        if container is None:
            try:
                value = type.filter(value, strict, allow_downcast)
            except (TypeError, ValueError) as e:
                raise _type_error_like(e, f"cannot make shared variable {name or ''!r} of "
                                         f"type {type}: {e}") from None
            container = Container(type, value, name, bool(strict), allow_downcast)
        self.container = container

    def get_value(self, borrow: bool = False, return_internal_type: bool = False) -> Any:
        """The current value.

        With ``borrow=False`` (the default) it is a copy the caller owns.  With
        ``borrow=True`` it may be the internal storage: the caller must not change
        it (compiled functions do not write into it; an update stores a new value).
        ``return_internal_type`` is Theano's flag for values stored in another form
        (GPU arrays); theon stores the value itself, so it changes nothing.

        >>> s = shared([1, 2])
        >>> v = s.get_value(); v.append(3); s.get_value()
        [1, 2]
        """
        v = self.container.storage[0]
        return v if borrow else copy_value(v)

    def set_value(self, new_value: Any, borrow: bool = False) -> None:
        """Store ``new_value``, filtered by the type (a copy unless ``borrow=True``).

        Raises ``TypeError`` naming this variable when the value does not fit its
        type (wrong dtype, wrong number of dimensions, ...).

        >>> s = shared("a", name="s")
        >>> s.set_value("b"); s.get_value()
        'b'
        """
        c = self.container
        try:
            v = self.type.filter(new_value, c.strict, c.allow_downcast)
        except (TypeError, ValueError) as e:
            raise _type_error_like(
                e, f"cannot set the value of shared variable {describe(self)}: {e}"
            ) from None
        if not borrow and v is new_value:
            v = copy_value(v)
        with c.lock:  # after any call that is updating this variable
            c.storage[0] = v

    @property
    def value(self) -> Any:
        """Alias of ``get_value(borrow=True)``."""
        return self.container.storage[0]

    def clone(self, **kwargs: Any) -> SharedVariable:
        """A new SharedVariable of the same type sharing this one's storage."""
        cp = object.__new__(type(self))
        cp.__dict__.update(self.__dict__)
        Variable.__init__(cp, self.type, None, None, kwargs.get("name", self.name))
        cp.tag = self.tag.copy()
        return cp

    def zero(self, borrow: bool = False) -> None:
        """Set the value to zeros of the same shape (arrays) or to ``0``."""
        v = self.container.storage[0]
        self.set_value(np.zeros_like(v) if isinstance(v, np.ndarray) else 0, borrow=True)

    def __reduce__(self) -> tuple[Any, ...]:
        from theon.compile.pickling import dump_graph, picklable_tag
        from theon.graph.traversal import io_toposort

        extra = {
            k: v for k, v in self.__dict__.items() if k not in ("container", "default_update")
        }
        du = self.default_update
        # the default update is stored flat, like compiled graphs (no deep recursion,
        # unpicklable tag entries dropped)
        du_state = None if du is None else dump_graph([], [du], io_toposort([], [du]))
        return (
            _rebuild_shared,
            (type(self), self.name, self.type, self.container),
            {"extra": extra, "tag": picklable_tag(self.tag), "default_update": du_state},
        )

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state["extra"])
        self.tag.__dict__.update(state["tag"])
        if state.get("default_update") is not None:
            from theon.compile.pickling import load_graph

            self.default_update = load_graph(state["default_update"])[1][0]


def _rebuild_shared(
    cls: type[SharedVariable], name: str | None, type_: Type, container: Container
) -> SharedVariable:
    """Recreate a pickled SharedVariable around its (pickled) container."""
    sv = object.__new__(cls)
    Variable.__init__(sv, type_, None, None, name)
    sv.container = container
    sv.default_update = None
    return sv


def _type_error_like(e: Exception, msg: str) -> Exception:
    """An exception of ``e``'s kind (TypeError/ValueError) carrying ``msg``."""
    return ValueError(msg) if isinstance(e, ValueError) else TypeError(msg)


# the registry ------------------------------------------------------------------------
Constructor = Callable[..., SharedVariable]
_CONSTRUCTORS: list[Constructor] = []


def shared_constructor(ctor: Constructor, remove: bool = False) -> Constructor:
    """Register (or, with ``remove=True``, unregister) a constructor for :func:`shared`.

    A constructor is called as ``ctor(value, name=, strict=, allow_downcast=,
    borrow=, shape=, **kwargs)`` and returns a SharedVariable, or raises
    ``TypeError`` to decline the value.  Constructors are tried newest first.
    Usable as a decorator.

    >>> @shared_constructor
    ... def str_constructor(value, name=None, strict=False, allow_downcast=None,
    ...                     borrow=False, shape=None, **kw):
    ...     if not isinstance(value, str):
    ...         raise TypeError("not a str")
    ...     return SharedVariable(name, Generic(), value, strict, allow_downcast)
    >>> shared("hi").get_value()
    'hi'
    >>> _ = shared_constructor(str_constructor, remove=True)
    """
    if remove:
        if ctor in _CONSTRUCTORS:
            _CONSTRUCTORS.remove(ctor)
    elif ctor not in _CONSTRUCTORS:
        _CONSTRUCTORS.append(ctor)
    return ctor


def shared(
    value: Any,
    name: str | None = None,
    strict: bool = False,
    allow_downcast: bool | None = None,
    borrow: bool = False,
    shape: Any = None,
    **kwargs: Any,
) -> SharedVariable:
    """A SharedVariable holding ``value``, with its Type inferred from the value.

    Parameters
    ----------
    value
        The initial value: an array or a number gives a tensor variable, any other
        object a ``Generic`` one.
    name
        The variable's name (used in errors and printing).
    strict
        Later values must already be exactly of the type (no casting).
    allow_downcast
        Accept lossy conversions of later values.
    borrow
        Keep ``value`` itself instead of a copy (the caller must then not change it).
    shape
        Static shape for tensor values (``None`` entries for unknown lengths).

    Examples
    --------
    >>> counter = shared({"n": 0}, name="counter")
    >>> counter.name, counter.get_value()
    ('counter', {'n': 0})
    """
    if isinstance(value, Variable):
        raise TypeError(
            f"shared() needs a value, got the symbolic variable {describe(value)}; "
            "a shared variable holds data, not an expression"
        )
    declined: list[str] = []
    trace = user_trace()
    for ctor in reversed(_CONSTRUCTORS):
        try:
            var = ctor(
                value,
                name=name,
                strict=strict,
                allow_downcast=allow_downcast,
                borrow=borrow,
                shape=shape,
                **kwargs,
            )
        except TypeError as e:
            declined.append(f"{getattr(ctor, '__name__', ctor)}: {e}")
            continue
        var.tag.trace = trace
        return var
    raise TypeError(
        f"no shared-variable constructor accepts {type(value).__name__} value for "
        f"{name or 'a shared variable'!r}" + (" (" + "; ".join(declined) + ")" if declined else "")
    )


@shared_constructor
def generic_constructor(
    value: Any,
    name: str | None = None,
    strict: bool = False,
    allow_downcast: bool | None = None,
    borrow: bool = False,
    shape: Any = None,
    **kwargs: Any,
) -> SharedVariable:
    """The fallback: a ``Generic`` shared variable for any Python object.

    >>> generic_constructor(("a", 1), name="pair").type
    Generic
    """
    if shape is not None:
        raise TypeError("shape= is only meaningful for array values")
    if kwargs:
        raise TypeError(f"unexpected arguments {sorted(kwargs)} for a generic shared variable")
    if not borrow:
        try:
            value = copy_value(value)
        except Exception as e:
            raise TypeError(
                f"cannot copy the {type(value).__name__} value of {name or 'shared variable'!r} "
                f"({e}); pass borrow=True to share the object itself"
            ) from None
    return SharedVariable(name, Generic(), value, strict, allow_downcast)
