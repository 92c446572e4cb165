"""Invariants of every tensor rewrite, checked on random graphs.

- a rewrite never changes a variable's dtype, number of dimensions or
  broadcastable pattern (each replacement is checked as the rewrite returns it);
- rewrites reach a fixed point (no rewrite cycle exhausts the equilibrium budget);
- compiling never touches the user's graph;
- each registered rewrite has a docstring stating its math.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import theon
import theon.tensor.rewriting
from tests.tensor.rewriting.graphgen import Graph, graphs
from tests.tensor.rewriting.helpers import NOFUSE
from theon.graph.traversal import io_toposort
from theon.rewriting import FromFunctionNodeRewriter, RewriteLoopWarning, rewrite_db
from theon.rewriting.basic import replacement_pairs

OURS = ("theon.tensor.rewriting.useless", "theon.tensor.rewriting.canonicalize",
        "theon.tensor.rewriting.stabilize", "theon.tensor.rewriting.specialize",
        "theon.tensor.rewriting.blas")

FIRED: Counter[str] = Counter()


def _our_rewriters() -> list[FromFunctionNodeRewriter]:
    out = []
    for e in rewrite_db:
        rw = e.rewriter
        if isinstance(rw, FromFunctionNodeRewriter) and getattr(rw, "__module__", "") in OURS:
            out.append(rw)
    return out


@pytest.fixture(scope="module")
def checked_rewrites() -> Iterator[None]:
    """Wrap each of our rewrites with a check of the types of what it returns."""
    saved = []
    for rw in _our_rewriters():
        inner = rw.fn

        def wrapped(fgraph: Any, node: Any, _inner: Any = inner, _name: str = rw.name) -> Any:
            result = _inner(fgraph, node)
            for old, new in replacement_pairs(_name, node, result):
                ot, nt = old.type, new.type
                assert nt.dtype == ot.dtype, f"{_name} changed dtype: {ot} -> {nt} at {node}"
                assert nt.ndim == ot.ndim, f"{_name} changed ndim: {ot} -> {nt} at {node}"
                assert nt.broadcastable == ot.broadcastable, (
                    f"{_name} changed the broadcastable pattern: {ot} -> {nt} at {node}"
                )
                FIRED[_name] += 1
            return result

        saved.append((rw, inner))
        rw.fn = wrapped
    yield
    for rw, inner in saved:
        rw.fn = inner


def _snapshot(g: Graph) -> list[tuple[Any, ...]]:
    return [
        (n, n.op, tuple(n.inputs), tuple(n.outputs), tuple(o.type for o in n.outputs))
        for n in io_toposort(g.inputs, g.outputs)
    ]


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck),
          derandomize=True)
@given(graphs())
def test_rewrites_keep_types_and_user_graph(checked_rewrites: None, g: Graph) -> None:
    before = _snapshot(g)
    out_types = [o.type for o in g.outputs]
    for mode in (NOFUSE, "FAST_RUN"):
        with warnings.catch_warnings():
            # a rewrite cycle (the equilibrium's budget running out) is a bug
            warnings.simplefilter("error", RewriteLoopWarning)
            f = theon.function(g.inputs, g.outputs, mode=mode, on_unused_input="ignore")
        assert [o.type for o in f.maker.fgraph.outputs] == out_types
        assert _snapshot(g) == before
        for o in g.outputs:
            assert o.owner is None or o.owner.outputs[o.index] is o


CORE = {"local_mul_canonizer", "local_add_canonizer", "local_dimshuffle_lift",
        "local_pow_specialize", "local_log1p", "local_exp_minus_one", "local_softmax_manual",
        "local_log_softmax", "local_log_sum_exp", "local_gemm"}


def test_random_graphs_exercise_the_rewrites(checked_rewrites: None) -> None:
    # runs after the property test (same module), which must have checked the main rewrites
    assert CORE <= {rw.name for rw in _our_rewriters()}
    assert not CORE - set(FIRED), sorted(CORE - set(FIRED))


def test_every_rewrite_states_its_math() -> None:
    for rw in _our_rewriters():
        doc = rw.__doc__ or ""
        assert "->" in doc, f"{rw.name} has no 'a -> b' in its docstring"
