"""Compile work grows linearly with the graph (issue 11, item 8).

No timings here: the work is counted.  ``cProfile`` counts every call of a Python
function or builtin made while compiling (``theon.function``) or while building a
gradient (``theon.grad``); at size ``2n`` the total, and the count of every single
function, must stay within ``RATIO`` times its count at size ``n``.  A quadratic
step (a function called once per pair of nodes) shows up as a count that
quadruples.  ``bench/compile_scaling.py`` measures the times.
"""

from __future__ import annotations

import cProfile
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

import theon
import theon.tensor as tt
from theon.backends.py import fused
from theon.backends.py import scalar as pyfunc_scalar
from theon.link import source
from theon.tensor.rewriting import fusion

RATIO = 2.3  # allowed growth of the work per doubling of the graph
# calls one function may add beyond RATIO times, as a share of all calls at 2n: a
# dict lookup calls __eq__ only on a hash match with another object, so a few
# counts depend on what earlier tests left in caches; a quadratic step adds
# far more (tens of percent at these sizes)
SLACK = 0.01


def call_counts(fn: Callable[[], Any]) -> Counter[str]:
    """Calls per function (``file:line(name)``) made while running ``fn``."""
    prof = cProfile.Profile()
    prof.enable()
    try:
        fn()
    finally:
        prof.disable()
    prof.create_stats()
    counts: Counter[str] = Counter()
    for (path, line, name), stat in prof.stats.items():  # type: ignore[attr-defined]
        counts[f"{path.rsplit('/', 1)[-1]}:{line}({name})"] += stat[1]
    return counts


def superlinear(small: Counter[str], large: Counter[str]) -> list[str]:
    """The functions whose count grew more than RATIO times (plus SLACK), worst first."""
    slack = 16 + SLACK * sum(large.values())
    grown = [
        (large[k] / max(small[k], 1), k, small[k], large[k])
        for k in large
        if large[k] > RATIO * small[k] + slack
    ]
    return [f"{k}: {a} -> {b} calls" for _, k, a, b in sorted(grown, reverse=True)]


def forget_compiled() -> None:
    """Empty the caches of compiled pieces, so their building is counted."""
    fusion._FUSED.clear()
    fused._cache.clear()
    pyfunc_scalar._blocks.clear()
    source.clear_code_cache()


def measure(work: Callable[[int], Counter[str]], n: int) -> Counter[str]:
    """The work at size ``n``: the second of two runs, so both sizes are measured alike.

    The first run fills the caches keyed by types (what earlier tests left there
    differs from size to size); the caches of compiled pieces are emptied.
    """
    work(n)
    forget_compiled()
    return work(n)


def assert_linear(work: Callable[[int], Counter[str]], n: int) -> None:
    small, large = measure(work, n), measure(work, 2 * n)
    ratio = sum(large.values()) / sum(small.values())
    assert not superlinear(small, large), superlinear(small, large)[:10]
    assert ratio <= RATIO, f"total calls grew {ratio:.2f}x from n={n} to {2 * n}"


# the graphs ---------------------------------------------------------------------
STEPS = [tt.sin, tt.exp, tt.tanh, lambda a: a * a, lambda a: a + 1, lambda a: a * 0.5]


def chain(n: int) -> tuple[Any, Any]:
    """An elementwise chain of ``n`` ops on a vector."""
    x = tt.dvector("x")
    y = x
    for k in range(n):
        y = STEPS[k % len(STEPS)](y)
    return x, y


def chain_with_second_input(n: int) -> tuple[list[Any], Any]:
    """A chain whose steps also read a second vector (its gradient sums n terms)."""
    x, w = tt.dvector("x"), tt.dvector("w")
    y = x
    for k in range(n):
        y = [tt.sin(y), y * w, tt.tanh(y), y + w][k % 4]
    return [x, w], y


def vector_sum(n: int) -> tuple[list[Any], Any]:
    """``n`` vector inputs summed with ``+`` in a loop."""
    xs = [tt.dvector(f"x{i}") for i in range(n)]
    acc = xs[0]
    for x in xs[1:]:
        acc = acc + x
    return xs, acc


def scalar_add(n: int) -> tuple[list[Any], Any]:
    """``tt.add`` of ``n`` 0-d inputs."""
    xs = [tt.dscalar(f"x{i}") for i in range(n)]
    return xs, tt.add(*xs)


def scalar_loop_sum(n: int) -> tuple[list[Any], Any]:
    """``n`` 0-d inputs summed with ``+`` in a loop."""
    xs = [tt.dscalar(f"x{i}") for i in range(n)]
    acc = xs[0]
    for x in xs[1:]:
        acc = acc + x
    return xs, acc


def matrix_chain(n: int) -> tuple[list[Any], Any]:
    """``y = tanh(dot(y, W))`` ``n`` times: the gradient of W sums ``n`` products."""
    x, w = tt.dmatrix("x"), tt.dmatrix("W")
    y = x
    for _ in range(n):
        y = tt.tanh(tt.dot(y, w))
    return [x, w], y


def view_chain(n: int) -> tuple[list[Any], Any]:
    """Transposes, slices, joins and products: views and inplace nodes all along."""
    x = tt.dmatrix("x")
    y = x
    steps = [lambda a: a.T, lambda a: a[1:], lambda a: tt.concatenate([a, a[:1]]),
             lambda a: a * 2]
    for k in range(n):
        y = steps[k % len(steps)](y)
    return [x], y


def compile_work(build: Callable[[int], tuple[Any, Any]]) -> Callable[[int], Counter[str]]:
    def work(n: int) -> Counter[str]:
        inputs, outputs = build(n)
        inputs = inputs if isinstance(inputs, list) else [inputs]
        return call_counts(lambda: theon.function(inputs, outputs))

    return work


def grad_compile_work(build: Callable[[int], tuple[Any, Any]]) -> Callable[[int], Counter[str]]:
    def work(n: int) -> Counter[str]:
        inputs, y = build(n)
        inputs = inputs if isinstance(inputs, list) else [inputs]
        g = theon.grad(y.sum(), inputs)
        return call_counts(lambda: theon.function(inputs, g))

    return work


def grad_work(build: Callable[[int], tuple[Any, Any]]) -> Callable[[int], Counter[str]]:
    def work(n: int) -> Counter[str]:
        inputs, y = build(n)
        inputs = inputs if isinstance(inputs, list) else [inputs]
        return call_counts(lambda: theon.grad(y.sum(), inputs))

    return work


# the tests ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "build, n",
    [(chain, 400), (chain_with_second_input, 400), (vector_sum, 400), (scalar_add, 800),
     (scalar_loop_sum, 400), (view_chain, 400)],
    ids=lambda v: getattr(v, "__name__", str(v)),
)
def test_compile_work_is_linear(build, n):
    assert_linear(compile_work(build), n)


@pytest.mark.parametrize(
    "build, n",
    [(chain, 300), (chain_with_second_input, 300), (vector_sum, 300)],
    ids=lambda v: getattr(v, "__name__", str(v)),
)
def test_gradient_compile_work_is_linear(build, n):
    assert_linear(grad_compile_work(build), n)


@pytest.mark.parametrize(
    "build, n",
    [(chain, 400), (chain_with_second_input, 400), (vector_sum, 400), (matrix_chain, 200)],
    ids=lambda v: getattr(v, "__name__", str(v)),
)
def test_grad_work_is_linear(build, n):
    assert_linear(grad_work(build), n)


def test_superlinear_names_the_function_that_grew():
    small = Counter({"a": 1000, "b": 10000, "c": 0})
    large = Counter({"a": 4000, "b": 20000, "c": 20})
    assert superlinear(small, large) == ["a: 1000 -> 4000 calls"]


def test_fused_chain_name_is_built_in_linear_time():
    # Elemwise names its Composite when it is made; writing each inner expression
    # inside its reader's made the text of a chain of n ops cost O(n**2)
    x = tt.dvector("x")
    y = x
    for k in range(3000):  # no value read twice: nothing is bound to a name for that
        y = tt.sin(y) if k % 2 else y + 1
    f = theon.function([x], y)
    (node,) = f.maker.fgraph.apply_nodes
    name = str(node.op.scalar_op)
    assert len(name) < 40 * 3000
    longest = max(len(part) for part in name.split("; "))
    assert longest < 1000, f"an inner expression of {longest} characters is written out whole"
