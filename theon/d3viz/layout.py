"""A layered (Sugiyama-style) layout of a directed acyclic graph, in pure Python.

The graph flows from top to bottom.  Four steps, each iterative and close to
linear in the size of the graph:

1. **Layering** by longest path from the sources; a source (an input, a
   constant) is then moved down to sit just above its highest consumer, and so is
   a node computed only from sources for one consumer (a broadcast constant), with
   what it is computed from.
2. **Long edges** are cut into one segment per layer with small *dummy* nodes,
   so that every edge joins adjacent layers; the dummies become the edges' bends.
3. **Ordering** within each layer: a few sweeps down and up that sort each
   layer by the barycenter (mean position) of its neighbours in the layer just
   swept; the ordering with the fewest edge crossings is kept.
4. **Coordinates**: each layer's y follows the tallest node of the layers above;
   x is pulled towards the mean of the neighbours' centres, then placed as close
   to that as the order and the minimal gaps allow (an isotonic regression,
   solved exactly by pooling adjacent violators).

>>> lay = layout(["a", "b", "c"], {"a": (40, 20), "b": (40, 20), "c": (40, 20)},
...              [("a", "c"), ("b", "c")])
>>> lay.layer["c"], lay.layer["a"], lay.layer["b"]
(1, 0, 0)
>>> lay.x["a"] < lay.x["b"]  # 'a' first: the input order is kept when it costs nothing
True
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

__all__ = ["Layout", "count_crossings", "layout"]

#: horizontal gap between neighbouring boxes, vertical gap between layers, margin
H_GAP = 24.0
V_GAP = 46.0
MARGIN = 20.0
#: width and height of the dummy nodes that carry long edges
DUMMY_SIZE = (8.0, 8.0)
#: at most this many dummies per node and edge of the graph (keeps the layout linear)
DUMMY_BUDGET = 3


@dataclass
class Layout:
    """The placed graph: centres ``x``/``y``, sizes ``size``, the layer of each node.

    ``routes[k]`` is the list of bend points (dummy centres) of ``edges[k]``; the
    edges listed in ``straight`` (only in very large graphs) have none: they
    span many layers and are drawn as one curve.
    ``width`` and ``height`` bound every box, margins included.
    """

    x: dict[Hashable, float] = field(default_factory=dict)
    y: dict[Hashable, float] = field(default_factory=dict)
    size: dict[Hashable, tuple[float, float]] = field(default_factory=dict)
    layer: dict[Hashable, int] = field(default_factory=dict)
    order: list[list[Hashable]] = field(default_factory=list)
    edges: list[tuple[Hashable, Hashable]] = field(default_factory=list)
    routes: list[list[tuple[float, float]]] = field(default_factory=list)
    straight: list[int] = field(default_factory=list)
    width: float = 0.0
    height: float = 0.0


def _topological(nodes: Sequence[Hashable], succ: Mapping[Hashable, list[Hashable]]
                 ) -> list[Hashable]:
    indeg = {n: 0 for n in nodes}
    for n in nodes:
        for m in succ[n]:
            indeg[m] += 1
    ready = [n for n in reversed(nodes) if indeg[n] == 0]
    out: list[Hashable] = []
    while ready:
        n = ready.pop()
        out.append(n)
        for m in reversed(succ[n]):
            indeg[m] -= 1
            if indeg[m] == 0:
                ready.append(m)
    if len(out) != len(nodes):
        raise ValueError("layout: the graph has a cycle")
    return out


def _layers(nodes: Sequence[Hashable], succ: Mapping[Hashable, list[Hashable]],
            pred: Mapping[Hashable, list[Hashable]]) -> dict[Hashable, int]:
    topo = _topological(nodes, succ)
    layer: dict[Hashable, int] = {}
    hanging: dict[Hashable, bool] = {}
    for n in topo:  # longest path from the sources
        layer[n] = max((layer[p] + 1 for p in pred[n]), default=0)
        hanging[n] = len(succ[n]) == 1 and all(hanging[p] for p in pred[n])
    for n in reversed(topo):
        # a node computed from sources alone for one consumer (``DimShuffle`` of a
        # constant), and all it is computed from, hang just above that consumer
        if hanging[n]:
            layer[n] = layer[succ[n][0]] - 1
    for n in topo:  # sources sit just above their first consumer
        if not pred[n] and succ[n]:
            layer[n] = min(layer[m] for m in succ[n]) - 1
    return layer


def count_crossings(upper: Sequence[Hashable], lower: Sequence[Hashable],
                    down: Mapping[Hashable, list[Hashable]]) -> int:
    """Crossings between two adjacent layers whose edges go from ``upper`` to ``lower``.

    Edges sorted by their upper end; each lower end counts the earlier edges whose
    lower end lies to its right (an insertion count, ``O(E log E)``-ish).

    >>> count_crossings(["a", "b"], ["c", "d"], {"a": ["d"], "b": ["c"]})
    1
    """
    pos = {n: i for i, n in enumerate(lower)}
    seen: list[int] = []
    crossings = 0
    for u in upper:
        ends = sorted(pos[v] for v in down.get(u, ()) if v in pos)
        for e in ends:  # edges of one upper node never cross each other
            crossings += len(seen) - bisect_left(seen, e + 1)
        for e in ends:
            seen.insert(bisect_left(seen, e), e)
    return crossings


def _total_crossings(order: list[list[Hashable]], down: Mapping[Hashable, list[Hashable]]
                     ) -> int:
    return sum(count_crossings(order[i], order[i + 1], down) for i in range(len(order) - 1))


def _sweep(order: list[list[Hashable]], nbrs: Mapping[Hashable, list[Hashable]],
           layers: range, ref: int) -> None:
    """Sort each layer in ``layers`` by the barycenter of its neighbours in layer i+ref."""
    for i in layers:
        pos = {n: k for k, n in enumerate(order[i + ref])}
        keyed = []
        for k, n in enumerate(order[i]):
            ps = [pos[m] for m in nbrs[n] if m in pos]
            keyed.append((sum(ps) / len(ps) if ps else float(k), k, n))
        keyed.sort(key=lambda t: (t[0], t[1]))
        order[i] = [n for _, _, n in keyed]


def _pav(desired: list[float], offset: list[float]) -> list[float]:
    """The x closest (least squares) to ``desired`` with x[i+1] - x[i] >= gaps.

    ``offset[i]`` is the sum of the gaps before ``i``: with ``z = x - offset`` the
    constraint is ``z`` non-decreasing, an isotonic regression.
    """
    blocks: list[list[float]] = []  # [mean, weight, count]
    for d, o in zip(desired, offset):
        blocks.append([d - o, 1.0, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, w2, c2 = blocks.pop()
            m1, w1, c1 = blocks[-1]
            blocks[-1] = [(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, int(c1) + int(c2)]
    z: list[float] = []
    for m, _, c in blocks:
        z.extend([m] * int(c))
    return [zi + o for zi, o in zip(z, offset)]


def layout(nodes: Sequence[Hashable], sizes: Mapping[Hashable, tuple[float, float]],
           edges: Sequence[tuple[Hashable, Hashable]], *, sweeps: int = 6,
           passes: int = 4) -> Layout:
    """Place ``nodes`` (with ``sizes[n] = (width, height)``) so that ``edges`` point down.

    Parameters
    ----------
    nodes
        The nodes, in a preferred left-to-right order (kept where it costs no crossing).
    sizes
        Each node's box.
    edges
        ``(source, target)`` pairs of a directed acyclic graph; repeated pairs are drawn once.
    sweeps, passes
        Rounds of crossing reduction and of coordinate smoothing.

    Returns
    -------
    Layout
        Centres, layers and the bends of each edge.

    >>> lay = layout(["x", "y"], {"x": (30, 10), "y": (30, 10)}, [("x", "y")])
    >>> lay.y["x"] < lay.y["y"], lay.x["x"] == lay.x["y"]
    (True, True)
    """
    nodes = list(dict.fromkeys(nodes))
    edges = list(dict.fromkeys(edges))
    succ: dict[Hashable, list[Hashable]] = {n: [] for n in nodes}
    pred: dict[Hashable, list[Hashable]] = {n: [] for n in nodes}
    for a, b in edges:
        succ[a].append(b)
        pred[b].append(a)
    layer = _layers(nodes, succ, pred)
    shift = -min(layer.values(), default=0)
    layer = {n: v + shift for n, v in layer.items()}
    nlayers = max(layer.values(), default=-1) + 1
    size = {n: (float(sizes[n][0]), float(sizes[n][1])) for n in nodes}
    r = _route_long_edges(nodes, edges, succ, layer, size)
    order = _order_layers(nodes, r, layer, nlayers, sweeps)
    y, top = _y_coords(order, size)
    x = _x_coords(order, size, r, nlayers, passes)
    left = min((x[n] - size[n][0] / 2 for n in x), default=0.0)
    for n in x:
        x[n] += MARGIN - left
    width = max((x[n] + size[n][0] / 2 for n in x), default=0.0) + MARGIN
    height = max(top - V_GAP + MARGIN, 2 * MARGIN)

    out = Layout(width=width, height=height, edges=edges, straight=r.straight)
    for n in nodes:
        out.x[n], out.y[n], out.size[n], out.layer[n] = x[n], y[n], size[n], layer[n]
    out.order = [[n for n in row if n in succ] for row in order]
    out.routes = [[(x[d], y[d]) for d in chain] for chain in r.chains]
    return out


@dataclass
class _Routes:
    """The edges between adjacent layers (``down``/``up``, through dummies), each node's
    trunk of dummies, each edge's chain of them, and the edges drawn straight."""

    down: dict[Hashable, list[Hashable]]
    up: dict[Hashable, list[Hashable]]
    trunk: dict[Hashable, list[Hashable]]
    chains: list[list[Hashable]]
    straight: list[int]


def _route_long_edges(nodes: list[Hashable], edges: list[tuple[Hashable, Hashable]],
                      succ: dict[Hashable, list[Hashable]], layer: dict[Hashable, int],
                      size: dict[Hashable, tuple[float, float]]) -> _Routes:
    """Long edges become chains of dummies (added to ``layer`` and ``size``), one per
    layer crossed.

    The long edges leaving one node share one chain (a trunk that its far consumers
    branch off), so a variable used all over a graph costs one dummy per layer, not
    per use.
    """
    down: dict[Hashable, list[Hashable]] = {n: [] for n in nodes}
    up: dict[Hashable, list[Hashable]] = {n: [] for n in nodes}
    trunk: dict[Hashable, list[Hashable]] = {}
    reach = {a: max((layer[b] for b in succ[a]), default=0) for a in nodes}
    # at most ``budget`` dummies, the shortest trunks first: beyond it (a gradient's
    # forward values read again far below) an edge is drawn straight, outside the sweeps
    budget = DUMMY_BUDGET * (len(nodes) + len(edges))
    routed: set[Hashable] = set()
    for a in sorted(nodes, key=lambda a: reach[a] - layer[a]):
        budget -= max(reach[a] - layer[a] - 1, 0)
        if budget < 0:
            break
        routed.add(a)
    for a in nodes:
        chain: list[Hashable] = []
        prev = a
        for lv in range(layer[a] + 1, reach[a] if a in routed else 0):
            d: Hashable = ("__dummy__", a, lv)
            layer[d] = lv
            size[d] = DUMMY_SIZE
            down[d], up[d] = [], []
            down[prev].append(d)
            up[d].append(prev)
            chain.append(d)
            prev = d
        trunk[a] = chain
    chains: list[list[Hashable]] = []
    straight: list[int] = []
    for k, (a, b) in enumerate(edges):
        chain = trunk[a][: layer[b] - layer[a] - 1]
        chains.append(chain)
        if len(chain) < layer[b] - layer[a] - 1:
            straight.append(k)
            continue
        last = chain[-1] if chain else a
        down[last].append(b)
        up[b].append(last)
    return _Routes(down, up, trunk, chains, straight)


def _order_layers(nodes: list[Hashable], r: _Routes, layer: dict[Hashable, int],
                  nlayers: int, sweeps: int) -> list[list[Hashable]]:
    """Each layer's left-to-right order: the given order, then the dummies, improved by
    ``sweeps`` rounds of crossing reduction (the order with the fewest crossings)."""
    order: list[list[Hashable]] = [[] for _ in range(nlayers)]
    for n in nodes:
        order[layer[n]].append(n)
    for a in nodes:
        for d in r.trunk[a]:
            order[layer[d]].append(d)
    best = [list(o) for o in order]
    best_cross = _total_crossings(order, r.down)
    for s in range(sweeps):
        if best_cross == 0:
            break
        if s % 2 == 0:
            _sweep(order, r.up, range(1, nlayers), -1)
        else:
            _sweep(order, r.down, range(nlayers - 2, -1, -1), 1)
        c = _total_crossings(order, r.down)
        if c < best_cross:
            best, best_cross = [list(o) for o in order], c
    return best


def _y_coords(order: list[list[Hashable]], size: dict[Hashable, tuple[float, float]]
              ) -> tuple[dict[Hashable, float], float]:
    """y: layer by layer, each layer as tall as its tallest box; and the bottom."""
    y: dict[Hashable, float] = {}
    top = MARGIN
    for row in order:
        h = max((size[n][1] for n in row), default=0.0)
        for n in row:
            y[n] = top + h / 2
        top += h + V_GAP
    return y, top


def _x_coords(order: list[list[Hashable]], size: dict[Hashable, tuple[float, float]],
              r: _Routes, nlayers: int, passes: int) -> dict[Hashable, float]:
    """x: packed, then pulled towards the neighbours' centres in ``passes`` rounds."""
    up, down = r.up, r.down
    x: dict[Hashable, float] = {}
    offsets: list[list[float]] = []
    for row in order:
        off, acc = [], 0.0
        for i, n in enumerate(row):
            if i:
                acc += (size[row[i - 1]][0] + size[n][0]) / 2 + H_GAP
            off.append(acc)
        offsets.append(off)
        for n, o in zip(row, off):
            x[n] = o
    for p in range(passes):
        rows = range(1, nlayers) if p % 2 == 0 else range(nlayers - 2, -1, -1)
        for i in rows:
            row = order[i]
            desired = []
            for n in row:
                ns = up[n] + down[n] if p >= passes - 1 else (up[n] if p % 2 == 0 else down[n])
                desired.append(sum(x[m] for m in ns) / len(ns) if ns else x[n])
            for n, v in zip(row, _pav(desired, offsets[i])):
                x[n] = v
    return x
