"""Who reads a variable in a FunctionGraph: :class:`Clients`, the ordered set of
``(node, input index)`` pairs, and :class:`Output`, the Op of the node reading each
graph output (PyTensor's), so that every reader is such a pair.

>>> from theon.graph.type import Generic
>>> x = Generic()("x")
>>> node = output_node(0, x)
>>> str(node.op), node.inputs == [x], node.outputs
('output[0]', True, [])
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from typing import Any, SupportsIndex

from theon.graph.basic import Apply, Variable
from theon.graph.op import Op

__all__ = ["Client", "Clients", "Output", "OutputList", "output_node"]

Client = tuple[Apply, int]  # (a node reading the variable, the input position)


class Clients(dict[Client, None]):
    """The ``(node, index)`` pairs reading a variable, in the order they were added.

    An insertion-ordered set (a dict with ``None`` values) that reads like a list:
    iterating gives the pairs, ``len``, ``in``, indexing by position and comparing
    with a list work.  Adding and removing a pair take constant time, however many
    clients the variable has (a constant used everywhere can have thousands).

    >>> c = Clients()
    >>> c.append(("n1", 0)); c.append(("n2", 1)); c.remove(("n1", 0))
    >>> c == [("n2", 1)], c[0], len(c)
    (True, ('n2', 1), 1)
    """

    __slots__ = ()

    def append(self, client: Client) -> None:
        """Add ``client`` at the end."""
        self[client] = None

    def remove(self, client: Client) -> None:
        """Remove ``client`` (``ValueError`` when absent, as for a list)."""
        try:
            del self[client]
        except KeyError:
            raise ValueError(f"{client!r} is not a client") from None

    def __getitem__(self, k: Any) -> Any:
        if isinstance(k, (int, slice)):
            return list(self)[k]
        return dict.__getitem__(self, k)

    def __eq__(self, other: object) -> bool:
        # compared as a list: in order, and unequal to anything but lists
        return isinstance(other, (list, Clients)) and list(self) == list(other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = None

    def __repr__(self) -> str:
        return repr(list(self))

    def __reduce__(self) -> Any:
        return (Clients, (), None, None, iter(self.items()))


class Output(Op):
    """The Op of the node that reads output ``idx`` of a FunctionGraph.

    It computes nothing and has no outputs; it exists so that every reader of a
    variable, graph outputs included, is an ``(Apply, input index)`` pair.

    >>> Output(0) == Output(0), Output(0) == Output(1)
    (True, False)
    """

    __props__ = ("idx",)

    def __init__(self, idx: int) -> None:
        self.idx = idx

    def make_node(self, *inputs: Any) -> Apply:
        (var,) = inputs
        return Apply(self, [var], [])

    def perform(
        self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]
    ) -> None:
        raise RuntimeError(f"{self} marks a FunctionGraph output and is never computed")

    def __str__(self) -> str:
        return f"output[{self.idx}]"


_OUTPUT_OPS: list[Output] = []


def output_node(idx: int, var: Variable) -> Apply:
    """A new ``Apply(Output(idx), [var], [])`` (the Ops are shared: they are immutable)."""
    while len(_OUTPUT_OPS) <= idx:
        _OUTPUT_OPS.append(Output(len(_OUTPUT_OPS)))
    node = Apply.__new__(Apply)
    node.op = _OUTPUT_OPS[idx]
    node.inputs = [var]
    node.outputs = []
    node._tag = None  # (made on first use: see Apply.tag)
    return node


class OutputList(list[Variable]):
    """A graph's outputs (``fgraph.outputs``): a list whose ``index`` takes constant time.

    PyMC looks up the position of each of a model's variables among the outputs of
    one graph (``fgraph.outputs.index(v)``): a list search each, quadratic in the
    model's size.  A table of first positions by identity is built on the first
    ``index`` and dropped by any change of the list; a value found by equality only
    (no theon variable is) takes the list's own search.

    >>> from theon.graph.type import Generic
    >>> x, y = Generic()("x"), Generic()("y")
    >>> outs = OutputList([x, y, x])
    >>> outs.index(x), outs.index(y)
    (0, 1)
    >>> outs[0] = y
    >>> outs.index(x), outs.index(y), outs == [y, y, x]
    (2, 0, True)
    """

    __slots__ = ("_first",)

    def __init__(self, items: Iterable[Variable] = ()) -> None:
        super().__init__(items)
        self._first: dict[int, int] | None = None

    def index(self, value: Any, start: SupportsIndex = 0,
              stop: SupportsIndex = sys.maxsize) -> int:
        if start != 0 or stop != sys.maxsize:
            return super().index(value, start, stop)
        first = self._first
        if first is None:
            first = {}
            for pos, v in enumerate(self):
                first.setdefault(id(v), pos)
            self._first = first
        got = first.get(id(value))
        return super().index(value) if got is None else got

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]:
        # (copies and pickles hold the items only: the table is of these objects' ids)
        return (OutputList, (list(self),))

    # every change drops the table
    def __setitem__(self, key: Any, value: Any) -> None:
        self._first = None
        super().__setitem__(key, value)

    def __delitem__(self, key: Any) -> None:
        self._first = None
        super().__delitem__(key)

    def __iadd__(self, other: Iterable[Variable]) -> OutputList:  # type: ignore[override, misc]
        self._first = None
        super().__iadd__(other)
        return self

    def __imul__(self, n: SupportsIndex) -> OutputList:
        self._first = None
        super().__imul__(n)
        return self

    def append(self, value: Variable) -> None:
        self._first = None
        super().append(value)

    def extend(self, values: Iterable[Variable]) -> None:
        self._first = None
        super().extend(values)

    def insert(self, i: SupportsIndex, value: Variable) -> None:
        self._first = None
        super().insert(i, value)

    def pop(self, i: SupportsIndex = -1) -> Variable:
        self._first = None
        return super().pop(i)

    def remove(self, value: Variable) -> None:
        self._first = None
        super().remove(value)

    def clear(self) -> None:
        self._first = None
        super().clear()

    def sort(self, *args: Any, **kwargs: Any) -> None:
        self._first = None
        super().sort(*args, **kwargs)

    def reverse(self) -> None:
        self._first = None
        super().reverse()
