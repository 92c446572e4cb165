"""``OrderedUpdates``: a mapping from shared variables to their new values, in the order
they were given (PyTensor's ``pytensor.updates``; a plain dict does as well for
:func:`theon.function`).

>>> import theon
>>> a, b = theon.shared(0.0, name="a"), theon.shared(1.0, name="b")
>>> u = OrderedUpdates([(a, a + 1)]) + OrderedUpdates([(b, b * 2)])
>>> [k.name for k in u]
['a', 'b']
>>> f = theon.function([], [], updates=u)
>>> f(); (a.get_value(), b.get_value())
[]
(array(1.), array(2.))
"""

from __future__ import annotations

from typing import Any

from theon.compile.sharedvalue import SharedVariable

__all__ = ["OrderedUpdates"]


def _check_key(key: Any) -> None:
    if not isinstance(key, SharedVariable):
        raise TypeError(
            f"OrderedUpdates: a key must be a shared variable (the state to update), got "
            f"{key!r} of {type(key).__name__}"
        )


class OrderedUpdates(dict[Any, Any]):
    """A dict from shared variables to their new values (symbolic variables).

    Keys that are not shared variables are refused; ``+`` and :meth:`update` join two
    sets of updates, and giving one variable two different new values is a ``KeyError``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for key in self:
            _check_key(key)

    def __setitem__(self, key: Any, value: Any) -> None:
        _check_key(key)
        super().__setitem__(key, value)

    def update(self, *args: Any, **kwargs: Any) -> None:
        """Add the updates of a mapping or of (variable, new value) pairs; a variable
        already here must get the same new value."""
        if len(args) > 1:
            raise TypeError(f"OrderedUpdates.update takes one mapping, got {len(args)}")
        items = dict(*[a for a in args if a is not None], **kwargs)
        for key, value in items.items():
            if key in self:
                if self[key] is value:
                    continue
                raise KeyError(
                    f"OrderedUpdates: two new values for {key}: {self[key]} and {value}"
                )
            self[key] = value

    def __add__(self, other: Any) -> OrderedUpdates:
        out = OrderedUpdates()
        out.update(self)
        out.update(other)
        return out

    def __radd__(self, other: Any) -> OrderedUpdates:
        out = OrderedUpdates()
        out.update(other)
        out.update(self)
        return out
