"""Differential test: FAST_RUN gives NumPy's values and dtypes on random graphs.

Each graph (:func:`~tests.tensor.rewriting.npgraphs.build_numpy_graph`) is built
in theon and, side by side, as a NumPy program; it is compiled once with
FAST_RUN (under the elementwise kernel flags the graph drew, often a tiny block
and no parallel threshold, so even 4-element arrays run through the threaded
block kernel) and its outputs are judged by
:mod:`~tests.tensor.rewriting.numpy_oracle`: dtypes and shapes equal to NumPy's,
values equal to NumPy's within the rounding the operations allow (bit for bit
where both compute one correctly rounded operation), nan and inf where NumPy
has them, unless theon is more accurate (extended precision agrees) or a
documented identity applies (README, "Numbers: what FAST_RUN computes").

The default run checks 500 graphs; ``pytest -m slow`` runs 10^4.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
from tests.tensor.rewriting.graphgen import Graph
from tests.tensor.rewriting.npgraphs import build_numpy_graph
from tests.tensor.rewriting.numpy_oracle import judge

pytestmark = pytest.mark.skipif(
    np.finfo(np.longdouble).eps >= np.finfo(np.float64).eps,
    reason="the precise world needs an extended-precision np.longdouble",
)


def compile_graph(inputs: list[Any], outputs: list[Any], flags: dict[str, Any]) -> Any:
    """``theon.function`` with FAST_RUN under the kernel ``flags``."""
    with theon.config.change_flags(**flags), warnings.catch_warnings(), \
            np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # constant folding of log(0)
        return theon.function(inputs, outputs, mode="FAST_RUN", on_unused_input="ignore")


def run_graph(g: Graph) -> list[np.ndarray]:
    """Compile ``g`` once with FAST_RUN (under its kernel flags) and call it."""
    f = compile_graph(g.inputs, g.outputs, g.flags)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return [np.asarray(o) for o in f(*[np.array(v) for v in g.values])]


def check_graph(g: Graph) -> None:
    got = run_graph(g)
    problems = judge(g, got)
    if problems:
        lines = [f"FAST_RUN differs from NumPy on {g}", f"flags: {g.flags}",
                 f"inputs: {[v.tolist() for v in g.values]}", *problems]
        raise AssertionError("\n".join(lines))


@st.composite
def numpy_graphs(draw: Any, max_steps: int = 12) -> Graph:
    return build_numpy_graph(draw(st.integers(0, 2**32 - 1)), max_steps)


@settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck),
          derandomize=True)
@given(numpy_graphs())
def test_fast_run_matches_numpy(g: Graph) -> None:
    check_graph(g)


@pytest.mark.slow
@settings(max_examples=10_000, deadline=None, suppress_health_check=list(HealthCheck),
          derandomize=True)
@given(numpy_graphs(max_steps=16))
def test_fast_run_matches_numpy_long(g: Graph) -> None:
    check_graph(g)


# theon's casting rules are NumPy 2's (NEP 50: Python numbers are weak); the oracle
# relies on that, so here are the rules as a table, checked on both sides
PROMOTIONS = [
    # (left dtype or Python number, right, result)
    ("int32", "float32", "float64"),
    ("int8", "float32", "float32"),
    ("int16", "float32", "float32"),
    ("int64", "float32", "float64"),
    ("uint8", "int8", "int16"),
    ("bool", "int8", "int8"),
    ("float32", "float64", "float64"),
    ("float32", 2.5, "float32"),
    ("int32", 2.5, "float64"),
    ("int8", 1000, None),  # a weak int that does not fit: an error, as in NumPy
    ("bool", 2, "int64"),
    ("int32", 2, "int32"),
]


@pytest.mark.parametrize(("left", "right", "result"), PROMOTIONS)
def test_promotion_table(left: str, right: Any, result: str | None) -> None:
    x = tt.vector("x", dtype=left)
    y = right if not isinstance(right, str) else tt.vector("y", dtype=right)
    a = np.zeros(2, dtype=left)
    b = right if not isinstance(right, str) else np.zeros(2, dtype=right)
    if result is None:
        with pytest.raises(OverflowError):
            np.add(a, b)
        with pytest.raises((OverflowError, TypeError, ValueError)):
            tt.add(x, y)
        return
    assert str(np.add(a, b).dtype) == result
    assert str(tt.add(x, y).type.dtype) == result


def test_unary_float_rule() -> None:
    """Float functions of integers: NumPy's ``exp`` rule, for ufuncs and SciPy's alike."""
    for dt, want in (("int8", "float16"), ("int16", "float32"), ("int32", "float64"),
                     ("uint8", "float16"), ("float32", "float32")):
        x = tt.vector("x", dtype=dt)
        assert str(np.exp(np.zeros(1, dt)).dtype) == want
        for f in (tt.exp, tt.sigmoid, tt.softplus, tt.erf):
            assert str(f(x).type.dtype) == want, (f, dt)
