"""``loop``: a carry-style loop, like ``jax.lax.scan``, on the same Scan Op as ``scan``.

``step(carry, x) -> (carry, y)``; ``loop`` returns ``(final_carry, ys)``.  The
carry, ``x`` and ``y`` may be Variables or nested tuples, lists and dicts of them
("pytrees"); ``ys`` has the structure of ``y`` with each leaf stacked over the
steps.  The same running sum as :mod:`theon.scan`'s example:

>>> import numpy as np, theon, theon.tensor as tt
>>> xs = tt.dvector("xs")
>>> total, partial = loop(lambda c, x: (c + x, c + x), tt.constant(0.0), xs)
>>> f = theon.function([xs], [total, partial])
>>> [v.tolist() for v in f(np.array([1.0, 2.0, 3.0]))]
[6.0, [1.0, 3.0, 6.0]]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from theon.graph.basic import Variable
from theon.graph.fg import describe
from theon.scan.basic import build_scan
from theon.scan.utils import until
from theon.tensor.basic import as_tensor_variable

__all__ = ["loop"]

# a pytree's structure: None for a leaf, else (kind, keys or length, children)
Tree = Any


def flatten(tree: Any) -> tuple[list[Any], Tree]:
    """The leaves of a nest of tuples, lists and dicts, and its structure (iteratively).

    >>> leaves, tdef = flatten({"b": 1, "a": (2, [3])})
    >>> leaves
    [2, 3, 1]
    >>> unflatten(tdef, [20, 30, 10])
    {'a': (20, [30]), 'b': 10}
    """
    leaves: list[Any] = []
    root: list[Any] = [None]
    stack: list[tuple[Any, list[Any], int]] = [(tree, root, 0)]
    while stack:
        node, parent, slot = stack.pop()
        if isinstance(node, dict):
            keys = sorted(node)
            kids: list[Any] = [None] * len(keys)
            parent[slot] = ("dict", tuple(keys), kids)
            stack.extend((node[k], kids, i) for i, k in reversed(list(enumerate(keys))))
        elif isinstance(node, (tuple, list)):
            kids = [None] * len(node)
            parent[slot] = (type(node).__name__, len(node), kids)
            stack.extend((c, kids, i) for i, c in reversed(list(enumerate(node))))
        else:
            leaves.append(node)
            parent[slot] = None
    return leaves, root[0]


def unflatten(tdef: Tree, leaves: list[Any]) -> Any:
    """The nest of structure ``tdef`` (from :func:`flatten`) holding ``leaves``."""
    it = iter(leaves)
    # build bottom-up: a post-order list of structure nodes
    order: list[tuple[Tree, list[Any], int]] = []
    root: list[Any] = [None]
    stack: list[tuple[Tree, list[Any], int]] = [(tdef, root, 0)]
    while stack:
        item = stack.pop()
        order.append(item)
        node = item[0]
        if node is not None:
            built: list[Any] = [None] * len(node[2])
            item[1][item[2]] = built  # placeholder, replaced below
            stack.extend((c, built, i) for i, c in reversed(list(enumerate(node[2]))))
    for node, parent, slot in order:
        if node is None:
            parent[slot] = next(it)
    for node, parent, slot in reversed(order):
        if node is not None:
            kids = parent[slot]
            kind, keys, _ = node
            if kind == "dict":
                parent[slot] = dict(zip(keys, kids))
            elif kind == "tuple":
                parent[slot] = tuple(kids)
            else:
                parent[slot] = list(kids)
    return root[0]


def _path(tdef: Tree, k: int) -> str:
    """A readable name of leaf ``k`` of structure ``tdef`` (``[1]['w']``)."""
    count = 0
    stack: list[tuple[Tree, str]] = [(tdef, "")]
    while stack:
        node, p = stack.pop()
        if node is None:
            if count == k:
                return p or "(the whole carry)"
            count += 1
            continue
        kind, keys, kids = node
        labels = [f"[{key!r}]" for key in keys] if kind == "dict" else [
            f"[{i}]" for i in range(len(kids))]
        stack.extend((c, p + lab) for c, lab in reversed(list(zip(kids, labels))))
    return f"leaf {k}"


def loop(
    step: Callable[[Any, Any], Any],
    init: Any,
    xs: Any = None,
    length: Any = None,
    reverse: bool = False,
    mode: Any = None,
    name: str | None = None,
) -> tuple[Any, Any]:
    """Run ``step(carry, x) -> (carry, y)`` over ``xs``; return ``(final_carry, ys)``.

    Parameters
    ----------
    step
        The loop body.  It may also return ``(carry, y, until(condition))`` to
        stop after the step whose condition is true.  ``y`` may be ``None``.
    init
        The initial carry: a Variable (or value) or a tuple, list or dict of them.
    xs
        The sequences, iterated over their first dimension: a Variable or a
        tuple, list or dict of them, or ``None`` (then ``step`` gets ``x=None``
        and ``length`` is required).
    length
        The number of steps (an int or integer scalar); by default the length of ``xs``.
    reverse
        Iterate from the end of ``xs``; ``ys`` stays aligned with ``xs``
        (``ys[i]`` is computed from ``xs[i]``), as in ``jax.lax.scan``.
    mode, name
        As for :func:`~theon.scan.basic.scan`.

    Returns
    -------
    final_carry, ys
        The carry after the last step (structured like ``init``), and each leaf
        of ``y`` stacked over the steps (structured like ``y``).

    Examples
    --------
    The same loop as ``theon.scan(lambda x, h: 0.5 * h + x, sequences=xs,
    outputs_info=h0)``, with a carry:

    >>> import numpy as np, theon, theon.tensor as tt
    >>> xs, h0 = tt.dvector("xs"), tt.dscalar("h0")
    >>> def step(h, x):
    ...     h = 0.5 * h + x
    ...     return h, h
    >>> h_last, hs = loop(step, h0, xs)
    >>> theon.function([xs, h0], hs)(np.array([1.0, 1.0, 1.0]), 0.0)
    array([1.  , 1.5 , 1.75])

    Carries and sequences may be structured:

    >>> c, _ = loop(lambda c, x: ({"n": c["n"] + 1, "s": c["s"] + x["v"]}, None),
    ...             {"n": tt.constant(0), "s": tt.constant(0.0)}, {"v": xs})
    >>> [v.tolist() for v in theon.function([xs], [c["n"], c["s"]])(np.array([1.0, 2.0]))]
    [2, 3.0]
    """
    c_leaves, c_def = flatten(init)
    c_vars = [as_tensor_variable(c) for c in c_leaves]
    if xs is None:
        x_vars: list[Variable] = []
        x_def: Tree = None
        if length is None:
            raise ValueError("loop: give length when there is no xs to iterate over")
    else:
        x_leaves, x_def = flatten(xs)
        x_vars = [as_tensor_variable(x) for x in x_leaves]
    n_c = len(c_vars)
    body = _Body(step, xs is not None, x_def, c_def, len(x_vars), n_c)
    results, _, buffers = build_scan(
        body, x_vars or None, c_vars, None, length, -1, reverse, mode, name, False,
        trailing_nit=True,
    )
    finals = []
    for buf in buffers[:n_c]:
        assert buf is not None
        finals.append(buf[-1])
    final = unflatten(c_def, finals)
    # (loop's carries are tensors: no output is a non-tensor state)
    ys_vars = [as_tensor_variable(y) for y in results[n_c:]]
    if reverse:
        ys_vars = [y[::-1] for y in ys_vars]
    y_def = body.y_def[0]
    ys = None if y_def == "none" else unflatten(y_def, ys_vars)
    return final, ys


class _Body:
    """The step function :func:`loop` gives ``build_scan``: it calls ``step(carry, x)``
    on the unflattened placeholders and flattens what it returns, checking that the
    carry keeps its structure and types; ``y_def`` records the structure of ``y``."""

    def __init__(self, step: Callable[[Any, Any], Any], has_xs: bool, x_def: Tree,
                 c_def: Tree, n_x: int, n_c: int) -> None:
        self.step, self.has_xs, self.x_def, self.c_def = step, has_xs, x_def, c_def
        self.n_x, self.n_c = n_x, n_c
        self.y_def: list[Tree] = []

    def __call__(self, *args: Variable) -> Any:
        n_x, n_c, c_def = self.n_x, self.n_c, self.c_def
        x = unflatten(self.x_def, list(args[:n_x])) if self.has_xs else None
        carry = unflatten(c_def, list(args[n_x: n_x + n_c]))
        res = self.step(carry, x)
        cond = None
        if isinstance(res, tuple) and len(res) == 3 and isinstance(res[2], until):
            cond = res[2]
            res = res[:2]
        if not isinstance(res, (tuple, list)) or len(res) != 2:
            raise TypeError(
                f"loop: the step must return (carry, y), got {type(res).__name__} {res!r}"
            )
        new_c, y = res
        nc_leaves, nc_def = flatten(new_c)
        if nc_def != c_def:
            raise TypeError(
                "loop: the step returned a carry of another structure than init: "
                f"{unflatten(nc_def, ['.'] * len(nc_leaves))!r} instead of "
                f"{unflatten(c_def, ['.'] * n_c)!r}"
            )
        nc_vars = [as_tensor_variable(c) for c in nc_leaves]
        for k, (old, new) in enumerate(zip(args[n_x: n_x + n_c], nc_vars)):
            if new.type != old.type and old.type.convert_variable(new) is None:
                raise TypeError(
                    f"loop: carry{_path(c_def, k)} has type {old.type} in init but the step "
                    f"returns {describe(new)} of type {new.type}; cast one of them"
                )
        y_leaves, tdef = ([], None) if y is None else flatten(y)
        self.y_def.append(tdef if y is not None else "none")
        outs = nc_vars + [as_tensor_variable(v) for v in y_leaves]
        return (outs, cond) if cond is not None else outs
