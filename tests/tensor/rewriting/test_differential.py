"""Differential test: random graphs give the same values and dtypes with and without rewrites.

Each graph is compiled four ways: FAST_RUN (all rewrites, default linker), the
FAST_RUN rewrites on the reference VM, NO_REWRITES, and REFERENCE (reference VM,
no rewrites: the oracle).  Values must agree within float tolerance, dtypes
exactly.  Where the oracle gives inf or nan, a rewrite may give a finite value
(``x*y/y -> x`` where ``y`` is 0; stabilizations).  An entry that rounding
decides is not compared: one whose oracle value moves by more than the tolerance
when the inputs and every intermediate result move by a few ulps (``1 -
sigmoid(30)`` then ``log``, where a stabilization is more accurate than the
oracle), and one whose oracle value went through an inf (IEEE inf arithmetic
differs between equivalent forms).  A float32 result may also match the same
graph computed in float64.

The default run checks 500 graphs; ``pytest -m slow`` runs 10^4.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import theon
from tests.tensor.rewriting.graphgen import Graph, graphs
from theon.compile.mode import Mode
from theon.graph.traversal import io_toposort

FAST_RUN_VM = Mode(linker="vm", optimizer="fast_run")


def _tol(dtype: np.dtype) -> tuple[float, float]:
    if dtype.kind in "iub":
        return 0.0, 0.0
    if dtype in (np.float32, np.complex64):
        return 2e-4, 1e-5
    return 1e-8, 1e-10


def _compile(g: Graph, mode: Any) -> Any:
    return theon.function(g.inputs, g.outputs, mode=mode, on_unused_input="ignore")


def _call(f: Any, values: list[np.ndarray]) -> list[np.ndarray]:
    out = f(*[np.array(v) for v in values])
    return [np.asarray(o) for o in out]


def _perturbed(values: list[np.ndarray], rng: np.random.Generator) -> list[np.ndarray]:
    out = []
    for v in values:
        v = np.array(v)
        if v.dtype.kind == "f":
            eps = np.finfo(v.dtype).eps * 8
            v = v * (1 + eps * rng.uniform(-1, 1, size=v.shape)).astype(v.dtype)
        out.append(v)
    return out


def _close(a: np.ndarray, b: np.ndarray, dt: np.dtype, strict: bool = False) -> np.ndarray:
    """Entries of ``a`` close to ``b`` (NaN == NaN), or (unless ``strict``) where ``b`` is
    not finite."""
    rtol, atol = _tol(dt)
    with np.errstate(all="ignore"):
        b = b.astype(dt) if b.dtype != dt else b
        if dt.kind in "iub":
            return np.asarray(a == b)
        close = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
        return close if strict else close | ~np.isfinite(b)


def _eval(g: Graph, rng: np.random.Generator | None = None, ulps: float = 4.0,
          poison: bool = False) -> list[np.ndarray]:
    """The graph's outputs computed node by node with ``perform``.

    With ``rng``, every float input and intermediate result is multiplied by
    ``1 + d``, ``|d| <= ulps * eps`` (rounding noise).  With ``poison``, every
    inf in an intermediate result becomes nan, so nan marks what depended on inf.
    """

    def fix(x: Any) -> Any:
        x = np.asarray(x)
        if x.dtype.kind not in "fc":
            return x
        if rng is not None:
            eps = np.finfo(x.dtype).eps * ulps
            x = (x * (1 + eps * rng.uniform(-1, 1, size=x.shape))).astype(x.dtype)
        if poison and np.isinf(x).any():
            x = np.where(np.isinf(x), np.nan, x).astype(x.dtype)
        return x

    env: dict[Any, Any] = {v: fix(val) for v, val in zip(g.inputs, g.values)}
    for node in io_toposort(g.inputs, g.outputs):
        args = [env[i] if i in env else fix(i.data) for i in node.inputs]
        cells: list[list[Any]] = [[None] for _ in node.outputs]
        node.op.perform(node, args, cells)
        for o, c in zip(node.outputs, cells):
            env[o] = fix(c[0])
    return [np.asarray(env[o] if o in env else o.data) for o in g.outputs]


class _Oracle:
    """The reference values, and (lazily) what tells an unreliable reference entry."""

    def __init__(self, g: Graph) -> None:
        self.g = g
        self.fn = _compile(g, "REFERENCE")
        self.ref = _call(self.fn, g.values)
        self._spread: list[np.ndarray] | None = None
        self._shadow: list[np.ndarray] | None = None
        self._poisoned: list[np.ndarray] | None = None

    def ill_conditioned(self, k: int) -> np.ndarray:
        """Entries of output ``k`` that rounding decides: they move when the inputs and
        every intermediate result move by a few ulps (a Monte Carlo rounding check).
        A rewrite (a stabilization, a cancellation) may be more accurate there."""
        if self._spread is None:
            rng = np.random.default_rng(0)
            outs = [_eval(self.g, rng) for _ in range(4)]
            self._spread = [
                np.any([~_close(p[j], self.ref[j], self.ref[j].dtype, strict=True)
                        for p in outs], axis=0)
                for j in range(len(self.ref))
            ]
        return self._spread[k]

    def inf_dependent(self, k: int) -> np.ndarray:
        """Entries of output ``k`` whose oracle value went through an inf (IEEE inf
        arithmetic differs between equivalent forms: ``exp(x)/sum(exp(x))`` and
        ``softmax(x)`` at ``x = [inf, -inf]``)."""
        if self._poisoned is None:
            self._poisoned = _eval(self.g, poison=True)
        p, r = self._poisoned[k], self.ref[k]
        if p.dtype.kind not in "fc":
            return np.zeros(p.shape, dtype=bool)
        return np.isnan(p) & ~np.isnan(r)

    def shadow(self, k: int) -> np.ndarray | None:
        """Output ``k`` computed with the float32 input in float64 (a more precise oracle)."""
        if self.g.shadow is None:
            return None
        if self._shadow is None:
            sg = self.g.shadow
            self._shadow = _call(_compile(sg, "REFERENCE"), sg.values)
        return self._shadow[k]


def compare(got: list[np.ndarray], oracle: _Oracle, what: str) -> None:
    """Assert ``got`` matches the oracle (see the module docstring)."""
    g, ref = oracle.g, oracle.ref
    for k, (a, b, o) in enumerate(zip(got, ref, g.outputs)):
        dt = np.dtype(o.type.dtype)
        assert a.dtype == dt and b.dtype == dt, f"{what}: output {k}: {a.dtype}, {b.dtype} {g}"
        assert a.shape == b.shape, f"{what}: output {k} shape {a.shape} vs {b.shape} {g}"
        bad = ~_close(a, b, dt)
        if bad.any() and dt.kind in "fc":
            bad &= ~oracle.ill_conditioned(k)
        if bad.any() and dt.kind in "fc":
            bad &= ~oracle.inf_dependent(k)
        if bad.any() and dt.kind in "fc":
            precise = oracle.shadow(k)
            if precise is not None:
                bad &= ~_close(a, precise, dt)
        if bad.any():
            idx = np.argwhere(bad)[:3].tolist()
            raise AssertionError(
                f"{what}: output {k} differs at {idx}: {a[bad][:3]} vs oracle {b[bad][:3]}\n"
                f"graph: {g}\ninputs: {g.values}"
            )


def check_graph(g: Graph) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with np.errstate(all="ignore"):
            oracle = _Oracle(g)
            for mode, what in ((FAST_RUN_VM, "rewrites (vm linker)"),
                               ("NO_REWRITES", "no rewrites (default linker)"),
                               ("FAST_RUN", "FAST_RUN")):
                compare(_call(_compile(g, mode), g.values), oracle, what)


@settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck),
          derandomize=True)
@given(graphs())
def test_rewrites_keep_values_and_dtypes(g: Graph) -> None:
    check_graph(g)


@pytest.mark.slow
@settings(max_examples=10_000, deadline=None, suppress_health_check=list(HealthCheck))
@given(graphs(max_steps=10))
def test_rewrites_keep_values_and_dtypes_long(g: Graph) -> None:
    check_graph(g)
