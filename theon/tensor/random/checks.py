"""Compile-time check: a generator read by two draws gives the same numbers twice.

``theon.function`` calls :func:`warn_reused_rng` on the user's graph (through
:func:`theon.compile.pipeline.register_graph_check`) before rewriting.  When one
generator variable is the ``rng`` input of two or more draws, those draws start
from the same state, so they repeat each other's numbers (two ``normal`` draws of
one shape are equal): almost always a forgotten ``next_rng``.  Thread it instead,
``r1, x = normal(rng=rng, return_next_rng=True); r2, y = normal(rng=r1, ...)``, and
store the last one back with ``updates={rng: r2}``.  One ``UserWarning`` per
compiled function names each such generator and where each of its draws was built.

>>> import warnings
>>> import numpy as np
>>> import theon
>>> import theon.tensor.random as tr
>>> rng = theon.shared(np.random.default_rng(0), name="rng")
>>> x = tr.normal(size=(2,), rng=rng)
>>> y = tr.normal(size=(2,), rng=rng)
>>> with warnings.catch_warnings(record=True) as w:
...     warnings.simplefilter("always")
...     f = theon.function([], [x, y])
>>> "'rng'" in str(w[0].message) and len(w)
1
"""

from __future__ import annotations

import warnings

from theon.graph.basic import Apply, Variable, user_stacklevel
from theon.graph.fg import FunctionGraph, describe
from theon.tensor.random.type import RandomType

__all__ = ["warn_reused_rng"]


def _is_draw(node: Apply) -> bool:
    return (bool(node.inputs) and bool(node.outputs)
            and isinstance(node.inputs[0].type, RandomType)
            and isinstance(node.outputs[0].type, RandomType))


def warn_reused_rng(fgraph: FunctionGraph) -> None:
    """Warn once if a generator variable is the ``rng`` of two or more draws."""
    readers: dict[Variable, list[Apply]] = {}
    seen: set[tuple[object, ...]] = set()
    for node in fgraph.apply_nodes:
        if _is_draw(node):
            # two copies of one draw (same Op, same inputs; a gradient may rebuild a
            # node) give the same numbers by design and are merged: count them once
            key = (node.op, *(id(i) for i in node.inputs))
            if key in seen:
                continue
            seen.add(key)
            readers.setdefault(node.inputs[0], []).append(node)
    reused = [(r, nodes) for r, nodes in readers.items() if len(nodes) > 1]
    if not reused:
        return
    parts = []
    for r, nodes in reused:
        draws = "; ".join(f"{n.op}: {describe(n.outputs[-1])}" for n in nodes)
        parts.append(f"the random generator {describe(r)} is read by {len(nodes)} draws "
                     f"({draws})")
    warnings.warn(
        "; ".join(parts) + ". Draws from one generator state repeat the same numbers: pass "
        "each draw the next_rng of the previous one (return_next_rng=True) and store the "
        "last one back with an update.",
        UserWarning, stacklevel=user_stacklevel())
