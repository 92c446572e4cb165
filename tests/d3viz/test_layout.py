"""The layered layout: every node placed, edges pointing down, no two boxes overlapping.

Checked on random DAGs (fixed seeds, and hypothesis) against brute-force references:
the crossing count against an all-pairs count, the gap solver against its constraints.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theon.d3viz.layout import DUMMY_BUDGET, H_GAP, V_GAP, _pav, count_crossings, layout


def random_dag(seed: int, n: int, p: float) -> tuple[list[int], dict, list[tuple[int, int]]]:
    rng = np.random.default_rng(seed)
    nodes = list(range(n))
    sizes = {i: (float(rng.integers(20, 200)), float(rng.integers(20, 60))) for i in nodes}
    perm = rng.permutation(n)  # a hidden topological order, not the nodes' order
    edges = [(int(perm[i]), int(perm[j])) for i in range(n) for j in range(i + 1, n)
             if rng.random() < p]
    return nodes, sizes, edges


def check_layout(nodes, sizes, edges, lay) -> None:
    # every node placed, with its own size
    assert set(lay.x) == set(lay.y) == set(lay.layer) == set(nodes)
    for n in nodes:
        assert lay.size[n] == sizes[n]
        assert np.isfinite(lay.x[n]) and np.isfinite(lay.y[n])
    # layers respect the edges: strictly down, in layer and in y
    for a, b in edges:
        assert lay.layer[a] < lay.layer[b], (a, b)
        assert lay.y[a] + sizes[a][1] / 2 + V_GAP <= lay.y[b] - sizes[b][1] / 2 + 1e-6
    # no two boxes overlap (same layer: at least the gap apart)
    boxes = [(lay.x[n] - sizes[n][0] / 2, lay.y[n] - sizes[n][1] / 2,
              lay.x[n] + sizes[n][0] / 2, lay.y[n] + sizes[n][1] / 2, n) for n in nodes]
    for (l1, t1, r1, b1, n1), (l2, t2, r2, b2, n2) in itertools.combinations(boxes, 2):
        overlap = min(r1, r2) > max(l1, l2) and min(b1, b2) > max(t1, t2)
        assert not overlap, (n1, n2)
        if lay.layer[n1] == lay.layer[n2]:
            assert max(l1, l2) - min(r1, r2) >= H_GAP - 1e-6
    # inside the declared bounds
    for left, top, right, bottom, _ in boxes:
        assert left >= 0 and top >= 0 and right <= lay.width + 1e-6
        assert bottom <= lay.height + 1e-6
    # each long edge bends once per layer it crosses, between its ends
    for k, ((a, b), route) in enumerate(zip(lay.edges, lay.routes)):
        if k in lay.straight:
            assert route == [] and lay.layer[b] - lay.layer[a] > 1
            continue
        assert len(route) == lay.layer[b] - lay.layer[a] - 1
        ys = [lay.y[a]] + [y for _, y in route] + [lay.y[b]]
        assert ys == sorted(ys)


@pytest.mark.parametrize("seed,n,p", [(0, 1, 0.0), (1, 8, 0.3), (2, 30, 0.1), (3, 60, 0.05),
                                      (4, 25, 0.0), (5, 12, 0.6)])
def test_random_dags(seed: int, n: int, p: float) -> None:
    nodes, sizes, edges = random_dag(seed, n, p)
    check_layout(nodes, sizes, edges, layout(nodes, sizes, edges))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 25), st.floats(0.0, 0.5))
def test_random_dags_hypothesis(seed: int, n: int, p: float) -> None:
    nodes, sizes, edges = random_dag(seed, n, p)
    check_layout(nodes, sizes, edges, layout(nodes, sizes, edges))


def test_empty_graph() -> None:
    lay = layout([], {}, [])
    assert lay.x == {} and lay.width > 0 and lay.height > 0


def test_cycle_is_refused() -> None:
    with pytest.raises(ValueError, match="cycle"):
        layout(["a", "b"], {"a": (1, 1), "b": (1, 1)}, [("a", "b"), ("b", "a")])


def test_sources_sit_just_above_their_consumer() -> None:
    # a -> b -> c -> d, and a constant k used only by d: k goes to d's layer - 1
    nodes = ["k", "a", "b", "c", "d"]
    sizes = {n: (30.0, 20.0) for n in nodes}
    lay = layout(nodes, sizes, [("a", "b"), ("b", "c"), ("c", "d"), ("k", "d")])
    assert lay.layer["k"] == lay.layer["c"] == 2


def brute_crossings(upper, lower, down) -> int:
    pu = {n: i for i, n in enumerate(upper)}
    pl = {n: i for i, n in enumerate(lower)}
    segs = [(pu[u], pl[v]) for u in upper for v in down.get(u, ()) if v in pl]
    return sum(1 for (a, b), (c, d) in itertools.combinations(segs, 2)
               if (a - c) * (b - d) < 0)


@pytest.mark.parametrize("seed", range(20))
def test_count_crossings_matches_all_pairs(seed: int) -> None:
    rng = np.random.default_rng(seed)
    upper = [f"u{i}" for i in range(int(rng.integers(1, 9)))]
    lower = [f"l{i}" for i in range(int(rng.integers(1, 9)))]
    down = {u: [v for v in lower if rng.random() < 0.4] for u in upper}
    assert count_crossings(upper, lower, down) == brute_crossings(upper, lower, down)


def test_a_tree_given_in_a_bad_order_is_drawn_without_crossings() -> None:
    # two subtrees whose leaves are listed interleaved: the sweeps untangle them
    nodes = ["r", "a", "b", "a1", "b1", "a2", "b2"]
    edges = [("r", "a"), ("r", "b"), ("a", "a1"), ("a", "a2"), ("b", "b1"), ("b", "b2")]
    sizes = {n: (40.0, 20.0) for n in nodes}
    lay = layout(nodes, sizes, edges)
    down: dict[str, list[str]] = {}
    for a, b in edges:
        down.setdefault(a, []).append(b)
    crossings = sum(count_crossings(lay.order[i], lay.order[i + 1], down)
                    for i in range(len(lay.order) - 1))
    assert crossings == 0
    assert count_crossings(["a", "b"], ["a1", "b1", "a2", "b2"], down) > 0  # it was tangled


@pytest.mark.parametrize("seed", range(10))
def test_gap_solver(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 12))
    gaps = rng.uniform(10, 50, size=n - 1)
    offset = [0.0, *np.cumsum(gaps).tolist()]
    desired = rng.uniform(0, 200, size=n).tolist()
    x = _pav(desired, offset)
    assert all(x[i + 1] - x[i] >= gaps[i] - 1e-9 for i in range(n - 1))
    # optimal: no feasible small move of one block of equal-shift nodes lowers the cost
    cost = sum((a - b) ** 2 for a, b in zip(x, desired))
    for i, j in itertools.combinations_with_replacement(range(n), 2):
        for eps in (-1e-3, 1e-3):
            y = [v + (eps if i <= k <= j else 0.0) for k, v in enumerate(x)]
            if all(y[k + 1] - y[k] >= gaps[k] - 1e-9 for k in range(n - 1)):
                assert sum((a - b) ** 2 for a, b in zip(y, desired)) >= cost - 1e-9
    # already feasible: kept as it is
    assert _pav(offset, offset) == pytest.approx(offset)


def test_a_long_skip_edge_bends_in_every_layer() -> None:
    """A long chain with a skip edge from the first to the last node: one dummy per layer."""
    n = 300
    nodes = list(range(n))
    edges = [(i, i + 1) for i in range(n - 1)] + [(0, n - 1)]
    lay = layout(nodes, {i: (40.0, 20.0) for i in nodes}, edges)
    assert len(lay.routes[-1]) == n - 2
    check_layout(nodes, {i: (40.0, 20.0) for i in nodes}, edges[:5], lay)


def test_dummies_stay_within_the_budget() -> None:
    """Sources read again at the bottom of a long chain: the far edges of the sources
    that would cost the most dummies are drawn straight; all the others are routed."""
    n = 100
    nodes = [f"c{i}" for i in range(n)] + [f"s{i}" for i in range(n)]
    edges = [(f"c{i}", f"c{i + 1}") for i in range(n - 1)]
    edges += [(f"s{i}", f"c{i}") for i in range(n)] + [(f"s{i}", f"c{n - 1}") for i in range(n)]
    sizes = {v: (30.0, 20.0) for v in nodes}
    lay = layout(nodes, sizes, edges)
    check_layout(nodes, sizes, edges, lay)
    dummies = {p for r in lay.routes for p in r}
    assert 0 < len(dummies) <= DUMMY_BUDGET * (len(nodes) + len(edges))
    assert lay.straight
    straight_sources = {lay.edges[k][0] for k in lay.straight}
    # the straight ones are the sources highest up (the longest trunks)
    assert straight_sources == {f"s{i}" for i in range(len(straight_sources))}
    # with a budget large enough, nothing is straight
    assert layout(nodes[:10], sizes, [e for e in edges if set(e) <= set(nodes[:10])]).straight == []
