"""Theano's graph walks in Theano's orders: ``theano.gof.graph``'s ``inputs``,
``ancestors``, ``variables``, ``orphans`` and Aesara's ``vars_between``.

theon's own walks (:mod:`theon.graph.traversal`, PyTensor's path) take a node's inputs
from the last to the first, as PyTensor has since pymc-devs/pytensor#1596.  Theano took
them from the first to the last, and Theano-era programs read that order: Lasagne's
``get_all_params`` lists a network's parameters in the order of ``inputs``, and a
program that saves or sets parameters by position needs the same list back.  These are
the functions the old paths (``theon.gof.graph.inputs``, ...) name in
:mod:`theon.compat.table`.

Both orders take the roots from the last given to the first:

>>> from theon.scalar import add, float64
>>> import theon.graph.traversal as pytensor_order
>>> x, y, z = float64("x"), float64("y"), float64("z")
>>> [str(v) for v in inputs([add(x, y), z])], [str(v) for v in ancestors([add(x, y)])]
(['z', 'x', 'y'], ['add.0', 'x', 'y'])
>>> [str(v) for v in pytensor_order.graph_inputs([add(x, y), z])]
['z', 'y', 'x']
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable

from theon.graph.basic import Variable
from theon.graph.traversal import preorder, walk

__all__ = ["ancestors", "inputs", "orphans", "variables", "vars_between"]


def ancestors(
    variable_list: Iterable[Variable], blockers: Collection[Variable] | None = None
) -> list[Variable]:
    """``variable_list`` and all the variables they depend on, in Theano's order.

    A depth-first preorder: the roots from the last to the first, a node's inputs from
    the first to the last; a variable is marked when it is taken.  The walk does not go
    past ``blockers`` (listed themselves).

    >>> from theon.scalar import add, exp, float64
    >>> u, v = float64("u"), float64("v")
    >>> [str(x) for x in ancestors([add(add(u, v), exp(u))])]
    ['add.0', 'add.0', 'u', 'v', 'exp.0']
    """
    return preorder(variable_list, blockers, last_input_first=False)


def inputs(
    variable_list: Iterable[Variable], blockers: Collection[Variable] | None = None
) -> list[Variable]:
    """The owner-less variables of :func:`ancestors`, in its order (Theano's ``inputs``).

    As Theano's, a blocker computed by a node is not listed (theon's
    :func:`theon.graph.traversal.graph_inputs` lists it: an input of the graph cut there).

    >>> from theon.scalar import add, float64
    >>> x, y, z = float64("x"), float64("y"), float64("z")
    >>> [str(v) for v in inputs([x, y, z])], [str(v) for v in inputs([add(x, 1.0), y])]
    (['z', 'y', 'x'], ['y', 'x', '1.0'])
    """
    return [v for v in ancestors(variable_list, blockers) if v.owner is None]


def _expander(ins: Iterable[Variable]) -> Callable[[Variable], list[Variable] | None]:
    """Theano's expansion of a variable computed by a node outside ``ins``: the node's
    inputs and outputs, reversed (so a stack takes the first input first, the outputs
    after the inputs)."""
    in_set = set(ins)

    def expand(v: Variable) -> list[Variable] | None:
        owner = v.owner
        if owner is None or v in in_set:
            return None
        return [*reversed(owner.outputs), *reversed(owner.inputs)]

    return expand


def variables(i: Iterable[Variable], o: Iterable[Variable]) -> list[Variable]:
    """Every variable between ``i`` and ``o``, the other outputs of the nodes on the way
    included, in Theano's order.

    A depth-first preorder from ``o``, the last first: at each variable computed by a
    node (and not in ``i``), the node's inputs first to last, then its outputs first to
    last.

    >>> from theon.scalar import add, float64
    >>> x, y = float64("x"), float64("y")
    >>> [str(v) for v in variables([x], [add(x, y)])]
    ['add.0', 'x', 'y']
    """
    return walk(o, _expander(i), bfs=False)


def vars_between(ins: Iterable[Variable], outs: Iterable[Variable]) -> list[Variable]:
    """:func:`variables`' variables in Aesara's order (PyTensor's before #1596).

    A *breadth*-first walk from ``outs`` in their order that, at each variable computed
    by a node (and not in ``ins``), queues the node's outputs last to first, then its
    inputs last to first.

    >>> from theon.scalar import add, float64, neg
    >>> x, y = float64("x"), float64("y")
    >>> [str(v) for v in vars_between([x], [add(neg(x), y)])]
    ['add.0', 'y', 'neg.0', 'x']
    """
    return walk(outs, _expander(ins), bfs=True)


def orphans(i: Iterable[Variable], o: Iterable[Variable]) -> list[Variable]:
    """The owner-less variables of :func:`variables` that are not in ``i`` (constants,
    free inputs), in its order.

    >>> from theon.scalar import add, float64
    >>> x, y = float64("x"), float64("y")
    >>> [str(v) for v in orphans([x], [add(add(x, 2.0), y)])]
    ['2.0', 'y']
    """
    ins = list(i)
    in_set = set(ins)
    return [v for v in variables(ins, o) if v.owner is None and v not in in_set]
