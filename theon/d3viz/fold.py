"""Folding a layout that is far wider (or taller) than a window into rows (or columns).

A layered layout is as wide as its widest layer and as tall as its longest path.
The gradient of a cost of 100 scalar variables has 100 inputs side by side and a
few layers: some 30,000 units wide and 400 tall, so fitting it into a window
shrinks it to an unreadable strip.  A long chain is the same on its side.

:func:`fold` cuts such a layout into bands and stacks them, as lines of text are
stacked: a wide layout into rows of about :data:`ROW` units, one under the other;
a tall one into columns of about :data:`COLUMN` units, side by side.  Each band
keeps its nodes' relative positions and its edges' bends.  The cuts are placed
where few edges cross them (within a quarter of a band of the even cut), and an
edge joining two bands is drawn straight from one to the other.  Rows of
:data:`ROW` units are a window's width at a legible scale, so the page opens with
the width fitted and the rows read from the top down.

>>> from theon.d3viz.layout import layout
>>> nodes = [f"n{i}" for i in range(200)]
>>> lay = layout(nodes, {n: (60, 20) for n in nodes}, [])  # 200 boxes in one row
>>> round(lay.width), round(lay.height)
(16816, 60)
>>> fold(lay)
10
>>> lay.width < 2 * ROW and lay.height > 10 * 20
True
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Hashable

from theon.d3viz.layout import MARGIN, Layout

__all__ = ["COLUMN", "ROW", "fold"]

#: the length of a row of a folded wide layout, and of a column of a tall one (units)
ROW = 1800.0
COLUMN = 1400.0
#: the space between two bands
BAND_GAP = 70.0
#: a layout is folded when it is this many times wider than tall (or taller than wide)
#: and longer than one and a half bands
WIDE = 3.0
TALL = 2.0


def fold(lay: Layout) -> int:
    """Fold ``lay`` in place into rows (a wide layout) or columns (a tall one); the
    number of bands (1: ``lay`` is left as it is)."""
    if lay.width > 1.5 * ROW and lay.width > WIDE * lay.height:
        return _fold(lay, across=False, n=math.ceil(lay.width / ROW))
    if lay.height > 1.5 * COLUMN and lay.height > TALL * lay.width:
        return _fold(lay, across=True, n=math.ceil(lay.height / COLUMN))
    return 1


def _fold(lay: Layout, across: bool, n: int) -> int:
    """Cut ``lay`` into ``n`` bands by x (rows) or, ``across``, by layer (columns)."""
    if across:  # a layer's top: nodes of one layer stay in one column
        top: dict[int, float] = {}
        for v, layer in lay.layer.items():
            t = lay.y[v] - lay.size[v][1] / 2
            top[layer] = min(top.get(layer, t), t)
        key = {v: top[lay.layer[v]] for v in lay.x}
        length = lay.height
    else:
        key = dict(lay.x)
        length = lay.width
    cuts = _cuts(key, lay.edges, length, n)
    band = {v: bisect_right(cuts, k) for v, k in key.items()}
    nb = len(cuts) + 1
    left, upper = [math.inf] * nb, [math.inf] * nb
    right, lower = [-math.inf] * nb, [-math.inf] * nb
    for v, b in band.items():
        (w, h), x, y = lay.size[v], lay.x[v], lay.y[v]
        left[b], right[b] = min(left[b], x - w / 2), max(right[b], x + w / 2)
        upper[b], lower[b] = min(upper[b], y - h / 2), max(lower[b], y + h / 2)
    shift: list[tuple[float, float]] = []
    at = MARGIN
    for b in range(nb):
        if left[b] == math.inf:  # (an empty band: cuts are distinct, so none is)
            shift.append((0.0, 0.0))
            continue
        if across:
            shift.append((at - left[b], MARGIN - upper[b]))
            at += right[b] - left[b] + BAND_GAP
        else:
            shift.append((MARGIN - left[b], at - upper[b]))
            at += lower[b] - upper[b] + BAND_GAP
    for v, b in band.items():
        dx, dy = shift[b]
        lay.x[v] += dx
        lay.y[v] += dy
    straight = set(lay.straight)
    for k, (a, c) in enumerate(lay.edges):
        if band[a] == band[c]:
            dx, dy = shift[band[a]]
            lay.routes[k] = [(px + dx, py + dy) for px, py in lay.routes[k]]
        else:  # from one band to another: one straight curve
            lay.routes[k] = []
            straight.add(k)
    lay.straight = sorted(straight)
    lay.width = max((lay.x[v] + lay.size[v][0] / 2 for v in lay.x), default=0.0) + MARGIN
    lay.height = max((lay.y[v] + lay.size[v][1] / 2 for v in lay.y), default=0.0) + MARGIN
    return nb


def _cuts(key: dict[Hashable, float], edges: list[tuple[Hashable, Hashable]],
          length: float, n: int) -> list[float]:
    """``n - 1`` cut positions between distinct keys, each where the fewest edges cross
    within a quarter band of the even cut ``k * length / n`` (the nearest one on a tie)."""
    keys = sorted(set(key.values()))
    mids = [(a + b) / 2 for a, b in zip(keys, keys[1:])]
    if not mids:
        return []
    starts = sorted(min(key[a], key[b]) for a, b in edges)
    ends = sorted(max(key[a], key[b]) for a, b in edges)

    def crossing(m: float) -> int:  # edges with one end before m and the other after
        return bisect_left(starts, m) - bisect_left(ends, m)

    band = length / n
    cuts: list[float] = []
    for k in range(1, n):
        ideal = k * band
        lo, hi = bisect_left(mids, ideal - band / 4), bisect_right(mids, ideal + band / 4)
        near = mids[lo:hi] or [min(mids, key=lambda m: abs(m - ideal))]
        best = min(near, key=lambda m: (crossing(m), abs(m - ideal)))
        if not cuts or best > cuts[-1]:
            cuts.append(best)
    return cuts
