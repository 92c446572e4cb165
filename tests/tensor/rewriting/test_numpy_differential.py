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

The default run checks 500 graphs; ``pytest -m slow`` runs 10^4, whose steps also
include the families of issue 29 (var/std over length-1 axes of inf and nan; logsumexp
of extreme and empty integer arrays), and, where jax is installed, integer division
in ``mode="JAX"`` on random chains of integer operations.
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
from tests.tensor.rewriting.npgraphs import NS_MIX, NUMPY_MIX, NUMPY_MIX_LONG, build_numpy_graph
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
def numpy_graphs(draw: Any, max_steps: int = 12, mix: list[str] = NUMPY_MIX) -> Graph:
    return build_numpy_graph(draw(st.integers(0, 2**32 - 1)), max_steps, mix)


@settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck),
          derandomize=True)
@given(numpy_graphs())
def test_fast_run_matches_numpy(g: Graph) -> None:
    check_graph(g)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck),
          derandomize=True)
@given(numpy_graphs(max_steps=10, mix=NS_MIX))
def test_fast_run_matches_numpy_on_the_namespace_functions(g: Graph) -> None:
    """Issue 35's functions (tests/tensor/rewriting/npgraphs_ns.py: tril, trace, pad,
    quantile, nan-statistics, the special functions against SciPy, ...) inside random
    graphs, against NumPy and SciPy."""
    check_graph(g)


@pytest.mark.slow
@settings(max_examples=10_000, deadline=None, suppress_health_check=list(HealthCheck),
          derandomize=True)
@given(numpy_graphs(max_steps=16, mix=NUMPY_MIX_LONG))
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


# mode="JAX" against NumPy on integer division (issue 29, item 11): random chains of
# integer operations whose divisors are often 0, and the signed zeros of a product
# with a boolean as a divisor
INT_DTYPES = ["int64", "int32", "int8", "uint8", "bool"]
INT_POOL = [0, 0, 0, 1, 2, 5, 7, -1, -3, -7]


def _int_values(draw: Any, dtype: str, n: int) -> np.ndarray:
    info = np.iinfo(dtype) if dtype != "bool" else None
    pool = [v for v in INT_POOL if info is None or info.min <= v <= info.max]
    if info is not None:
        pool += [int(info.min), int(info.max)]
    vals = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
    return np.array(vals).astype(dtype)


@st.composite
def int_division_chains(draw: Any, n: int = 6) -> tuple[list[Any], list[Any], list[Any],
                                                        list[np.ndarray]]:
    """(theon inputs, theon outputs, argument values, NumPy's outputs)."""
    dtypes = draw(st.lists(st.sampled_from(INT_DTYPES), min_size=2, max_size=3))
    ins = [tt.tensor(d, shape=(None,), name=f"i{k}") for k, d in enumerate(dtypes)]
    vals = [_int_values(draw, d, n) for d in dtypes]
    xf, b = tt.dvector("xf"), tt.tensor("bool", shape=(None,), name="b")
    xfv = np.array(draw(st.lists(st.sampled_from([-2.0, -0.5, 0.0, -0.0, 1.0, 3.0]),
                                 min_size=n, max_size=n)))
    bv = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    pool: list[tuple[Any, np.ndarray]] = list(zip(ins, vals))
    ops = {"//": (lambda p, q: p // q), "%": (lambda p, q: p % q),
           "+": (lambda p, q: p + q), "-": (lambda p, q: p - q), "*": (lambda p, q: p * q)}
    outs: list[tuple[Any, np.ndarray]] = []
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for _ in range(draw(st.integers(1, 6))):
            name = draw(st.sampled_from(["//", "//", "%", "%", "+", "-", "*", "zero"]))
            if name == "zero":  # c // (x * b), c % (x * b): the sign of a zero divisor
                c = draw(st.sampled_from([-1.5, 1.5, 3.0]))
                fn = ops[draw(st.sampled_from(["//", "%"]))]
                outs.append((fn(c, xf * b), fn(c, xfv * bv)))
                continue
            (p, pv), (q, qv) = (pool[draw(st.integers(0, len(pool) - 1))] for _ in range(2))
            if name in ("-", "+") and pv.dtype == qv.dtype == np.bool_:
                continue  # NumPy refuses a boolean subtract (and theon too)
            if draw(st.booleans()):  # a non-negative Python int: weak, fits every dtype
                q = qv = draw(st.sampled_from([0, 1, 2, 7]))
            entry = (ops[name](p, q), np.asarray(ops[name](pv, qv)))
            pool.append(entry)
            outs.append(entry)
    outs = outs[-4:]
    return [*ins, xf, b], [o for o, _ in outs], [*vals, xfv, bv], [w for _, w in outs]


def _same(got: np.ndarray, want: np.ndarray) -> bool:
    """Equal dtype, shape and values (nan == nan), and the same sign of each zero."""
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    if not np.array_equal(got, want, equal_nan=want.dtype.kind == "f"):
        return False
    if want.dtype.kind != "f":
        return True
    num = ~np.isnan(want)
    return bool(np.array_equal(np.signbit(got[num]), np.signbit(want[num])))


def check_int_division(case: tuple[list[Any], list[Any], list[Any], list[np.ndarray]],
                       mode: str) -> None:
    ins, outs, vals, want = case
    if not outs:
        return
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        f = theon.function(ins, outs, mode=mode, on_unused_input="ignore")
        got = [np.asarray(o) for o in f(*vals)]
    bad = [k for k, (g, w) in enumerate(zip(got, want)) if not _same(g, w)]
    assert not bad, (f"mode={mode} differs from NumPy on outputs {bad}: "
                     f"{[(got[k], want[k]) for k in bad]}\ninputs: {vals}\n"
                     f"graph: {[str(o.owner.op) for o in outs]}")


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck),
          derandomize=True)
@given(int_division_chains())
def test_integer_division_by_zero_matches_numpy(case: Any) -> None:
    check_int_division(case, "FAST_RUN")


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck),
          derandomize=True)
@given(int_division_chains())
def test_jax_integer_division_matches_numpy_long(case: Any) -> None:
    pytest.importorskip("jax", reason="mode='JAX' needs jax (pip install 'theon[jax]')")
    check_int_division(case, "JAX")
    check_int_division(case, "FAST_RUN")
