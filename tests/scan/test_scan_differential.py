"""Differential test: random scans whose states pass through, against NumPy loops.

Each random loop (:func:`build_loop`, from a seed) has 1 to 3 recurrent states, 0 to
2 sequences, 0 or 1 non-sequence and 0 to 2 outputs that are not fed back, all
float64 scalars or vectors of one length.  A state's next value is drawn from:

* the state itself, returned unchanged (the case of issue 29 item 4);
* another state's previous value (a copy or a swap);
* a sequence's row or the non-sequence, returned as they are;
* ``tanh`` or ``sin`` of a small random expression of the step's arguments.

One state may read two steps back (taps ``[-2, -1]``, or ``[-2]`` alone, so that it
can be returned from two steps back unchanged), and the loop may run backwards.

The step is one Python function of a math namespace: called on ``theon.tensor``
it builds the scan's body, called on ``numpy`` it is the reference loop's body
(a plain Python loop over the steps, independent of theon).  Checked:

* the outputs, compiled with the reference VM (no rewrites) and with FAST_RUN
  (whose scalar loops run as one generated loop), against the NumPy loop to
  ``1e-12`` relative;
* ``theon.grad`` of ``cost = sum_k sum(r_k * out_k)`` (fixed random ``r_k``) with
  respect to every input, against central finite differences of the NumPy loop's
  cost along a random direction (two Richardson steps from ``h = 2e-4``: error
  ``O(h**6)`` plus rounding of about ``1e-16 / h``, below 1e-9 relative even for
  the steepest of these loops, ``sin`` of a square iterated 4 times), to ``1e-7``
  of ``sum |grad * u| + |fd|``.

The default run checks 25 loops; ``pytest -m slow`` runs 1,500.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt

VM = theon.Mode(linker="vm", optimizer=None)
H = 2e-4
GRAD_RTOL = 1e-7
VALUE_RTOL = 1e-12

Expr = tuple[Any, ...]  # ("arg", k) | ("const", c) | ("un", name, e) | ("bin", op, a, b)


@dataclass
class Loop:
    """A random loop: its shapes, taps, and the expression of each step output."""

    seed: int
    row: tuple[int, ...]  # () or (d,)
    n_steps: int
    n_seqs: int
    n_nonseqs: int
    state_taps: list[list[int]]
    state_exprs: list[Expr]
    nit_exprs: list[Expr]
    go_backwards: bool
    seq_len: int
    values: list[np.ndarray] = field(default_factory=list)

    def __str__(self) -> str:
        return (f"Loop(seed={self.seed}, row={self.row}, n_steps={self.n_steps}, "
                f"seqs={self.n_seqs}, nonseqs={self.n_nonseqs}, taps={self.state_taps}, "
                f"states={self.state_exprs}, nits={self.nit_exprs}, "
                f"go_backwards={self.go_backwards})")


def _evaluate(e: Expr, m: Any, args: list[Any]) -> Any:
    """The expression ``e`` of the step's ``args`` with math namespace ``m``."""
    kind = e[0]
    if kind == "arg":
        return args[e[1]]
    if kind == "const":
        return e[1]
    if kind == "un":
        x = _evaluate(e[2], m, args)
        return m.tanh(x) if e[1] == "tanh" else m.sin(x) if e[1] == "sin" else x * 0.5
    a, b = _evaluate(e[2], m, args), _evaluate(e[3], m, args)
    return a + b if e[1] == "+" else a - b if e[1] == "-" else a * b


def _random_expr(rng: np.random.Generator, n_args: int, depth: int) -> Expr:
    if depth == 0 or rng.random() < 0.3:
        if rng.random() < 0.15:
            return ("const", float(np.round(rng.uniform(-1.5, 1.5), 2)))
        return ("arg", int(rng.integers(n_args)))
    if rng.random() < 0.4:
        return ("un", str(rng.choice(["tanh", "sin", "half"])),
                _random_expr(rng, n_args, depth - 1))
    return ("bin", str(rng.choice(["+", "-", "*"])), _random_expr(rng, n_args, depth - 1),
            _random_expr(rng, n_args, depth - 1))


def _bounded_expr(rng: np.random.Generator, n_args: int) -> Expr:
    """``tanh``/``sin`` of an expression that reads at least one argument (so that its
    type is the row's, never a constant's)."""
    inner = ("bin", str(rng.choice(["+", "*"])), _random_expr(rng, n_args, 2),
             ("arg", int(rng.integers(n_args))))
    return ("un", str(rng.choice(["tanh", "sin"])), inner)


def build_loop(seed: int) -> Loop:
    """A random loop with pass-through states (see the module docstring)."""
    rng = np.random.default_rng([seed, 29])
    row: tuple[int, ...] = () if rng.random() < 0.4 else (int(rng.integers(1, 4)),)
    n_states = int(rng.integers(1, 4))
    n_seqs = int(rng.integers(0, 3))
    n_nonseqs = int(rng.integers(0, 2))
    state_taps = [[-1] for _ in range(n_states)]
    r = rng.random()
    if r < 0.2:
        state_taps[0] = [-2, -1]
    elif r < 0.3:
        state_taps[0] = [-2]
    # the step's arguments: sequence rows, each state's taps, non-sequences
    seq_args = list(range(n_seqs))
    tap_args: list[list[int]] = []
    k = n_seqs
    for taps in state_taps:
        tap_args.append(list(range(k, k + len(taps))))
        k += len(taps)
    ns_args = list(range(k, k + n_nonseqs))
    n_args = k + n_nonseqs

    def pick_output(j: int | None) -> Expr:
        u = rng.random()
        if j is not None and u < 0.35:
            return ("arg", tap_args[j][0] if state_taps[j] == [-2] else tap_args[j][-1])
        if u < 0.5 and n_states > 1:
            other = int(rng.integers(n_states))
            return ("arg", tap_args[other][-1])
        if u < 0.6 and seq_args:
            return ("arg", int(rng.choice(seq_args)))
        if u < 0.65 and ns_args:
            return ("arg", ns_args[0])
        return _bounded_expr(rng, n_args)

    state_exprs = [pick_output(j) for j in range(n_states)]
    nit_exprs = [pick_output(None) for _ in range(int(rng.integers(0, 3)))]
    n_steps = int(rng.integers(1, 6))
    seq_len = n_steps + int(rng.integers(0, 2))
    loop = Loop(seed, row, n_steps, n_seqs, n_nonseqs, state_taps, state_exprs, nit_exprs,
                go_backwards=bool(rng.random() < 0.25) and n_seqs > 0, seq_len=seq_len)
    shapes = [(seq_len, *row)] * n_seqs
    shapes += [row if taps == [-1] else (2, *row) for taps in state_taps]
    shapes += [row] * n_nonseqs
    loop.values = [np.asarray(rng.uniform(-1.0, 1.0, size=sh), dtype=np.float64)
                   for sh in shapes]
    return loop


def _variables(loop: Loop) -> list[Any]:
    """Symbolic inputs: the sequences, the states' initial values, the non-sequences."""
    nd = len(loop.row)
    out = [tt.tensor("float64", shape=(None,) * (nd + 1), name=f"u{s}")
           for s in range(loop.n_seqs)]
    for j, taps in enumerate(loop.state_taps):
        extra = 0 if taps == [-1] else 1
        out.append(tt.tensor("float64", shape=(None,) * (nd + extra), name=f"s{j}"))
    out += [tt.tensor("float64", shape=(None,) * nd, name=f"w{w}")
            for w in range(loop.n_nonseqs)]
    return out


def theon_outputs(loop: Loop, inputs: list[Any]) -> list[Any]:
    """The loop as a ``theon.scan``: each output stacked over the steps."""
    seqs = inputs[: loop.n_seqs]
    inits = inputs[loop.n_seqs: loop.n_seqs + len(loop.state_taps)]
    nonseqs = inputs[loop.n_seqs + len(loop.state_taps):]
    info: list[Any] = []
    for x0, taps in zip(inits, loop.state_taps):
        info.append(x0 if taps == [-1] else dict(initial=x0, taps=taps))
    info += [None] * len(loop.nit_exprs)
    exprs = loop.state_exprs + loop.nit_exprs

    def step(*args: Any) -> list[Any]:
        return [_evaluate(e, tt, list(args)) for e in exprs]

    outs, _ = theon.scan(step, sequences=seqs or None, outputs_info=info,
                         non_sequences=nonseqs or None,
                         n_steps=loop.n_steps, go_backwards=loop.go_backwards,
                         return_list=True)
    return list(outs)


def numpy_outputs(loop: Loop, values: list[np.ndarray]) -> list[np.ndarray]:
    """The same loop, run by a Python loop over NumPy arrays."""
    seqs = values[: loop.n_seqs]
    if loop.go_backwards:
        seqs = [s[::-1] for s in seqs]
    n_st = len(loop.state_taps)
    hist: list[list[np.ndarray]] = []
    for x0, taps in zip(values[loop.n_seqs: loop.n_seqs + n_st], loop.state_taps):
        hist.append([x0] if taps == [-1] else [x0[0], x0[1]])
    nonseqs = values[loop.n_seqs + n_st:]
    stacks: list[list[np.ndarray]] = [[] for _ in range(n_st + len(loop.nit_exprs))]
    for t in range(loop.n_steps):
        args: list[Any] = [s[t] for s in seqs]
        for h, taps in zip(hist, loop.state_taps):
            args += [h[k] for k in taps]
        args += list(nonseqs)
        res = [np.asarray(_evaluate(e, np, args), dtype=np.float64) * np.ones(loop.row)
               for e in loop.state_exprs + loop.nit_exprs]
        for j in range(n_st):
            hist[j].append(res[j])
        for k, r in enumerate(res):
            stacks[k].append(r)
    return [np.array(s).reshape((loop.n_steps, *loop.row)) for s in stacks]


def _cost(outs: list[np.ndarray], weights: list[np.ndarray]) -> float:
    return float(sum(np.sum(o * w) for o, w in zip(outs, weights)))


def check_loop(loop: Loop) -> None:
    rng = np.random.default_rng([loop.seed, 4])
    want = numpy_outputs(loop, loop.values)
    weights = [rng.uniform(0.5, 1.5, size=w.shape) for w in want]
    inputs = _variables(loop)
    outs = theon_outputs(loop, inputs)
    cost = sum(((o * tt.constant(w)).sum() for o, w in zip(outs, weights)),
               start=tt.constant(0.0))
    grads = theon.grad(cost, inputs, disconnected_inputs="ignore")
    problems: list[str] = []
    # finite differences of the NumPy loop along a random direction of each input
    fds, dirs = [], []
    for i, x in enumerate(loop.values):
        u = rng.uniform(-1.0, 1.0, size=x.shape)

        def c(h: float, i: int = i, u: np.ndarray = u) -> float:
            vals = list(loop.values)
            vals[i] = vals[i] + h * u
            return _cost(numpy_outputs(loop, vals), weights)

        def d(h: float) -> float:
            return (c(h) - c(-h)) / (2 * h)

        def d1(h: float) -> float:
            return (4 * d(h / 2) - d(h)) / 3

        fds.append((16 * d1(H / 2) - d1(H)) / 15)
        dirs.append(u)
    for mode_name, mode in (("VM", VM), ("FAST_RUN", "FAST_RUN")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            f = theon.function(inputs, [*outs, *grads], mode=mode, on_unused_input="ignore")
        got = f(*loop.values)
        for k, (g, w) in enumerate(zip(got[: len(outs)], want)):
            if g.shape != w.shape or not np.allclose(g, w, rtol=VALUE_RTOL, atol=VALUE_RTOL):
                problems.append(f"{mode_name} output {k}: theon {g.tolist()}, NumPy {w.tolist()}")
        for i, (g, fd, u) in enumerate(zip(got[len(outs):], fds, dirs)):
            g = np.asarray(g)
            if g.shape != loop.values[i].shape:
                problems.append(f"{mode_name} input {i}: gradient of shape {g.shape}")
                continue
            an = float(np.sum(g * u))
            tol = GRAD_RTOL * (float(np.sum(np.abs(g * u))) + abs(fd)) + 1e-10
            if not abs(an - fd) <= tol:
                problems.append(f"{mode_name} input {i} ({inputs[i]}): <grad, u> = {an!r}, "
                                f"finite differences {fd!r} (tol {tol:.3g})")
    if problems:
        raise AssertionError("\n".join([f"scan differs from NumPy on {loop}",
                                        f"values: {[v.tolist() for v in loop.values]}",
                                        *problems]))


def test_the_generator_makes_pass_through_states():
    """The family covers what it is for: states returned unchanged, copies of another
    state, two-steps-back pass-through, sequence rows and non-sequences as outputs."""
    loops = [build_loop(s) for s in range(200)]

    def passes_self(lp: Loop) -> bool:
        k = lp.n_seqs
        for j, taps in enumerate(lp.state_taps):
            mine = list(range(k, k + len(taps)))
            if lp.state_exprs[j][0] == "arg" and lp.state_exprs[j][1] in mine:
                return True
            k += len(taps)
        return False

    assert sum(passes_self(lp) for lp in loops) >= 40
    assert any(lp.state_taps[0] == [-2] and passes_self(lp) for lp in loops)
    assert any(lp.go_backwards for lp in loops)
    assert any(lp.row == () for lp in loops) and any(lp.row != () for lp in loops)
    assert any(e[0] == "arg" and e[1] < lp.n_seqs for lp in loops for e in lp.nit_exprs)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_issue29_passthrough_known_loops(seed):
    """The issue's loop and its variants, through the same checks."""
    loop = build_loop(seed)
    loop.row, loop.n_seqs, loop.n_nonseqs = (), 0, 0
    loop.state_taps = [[-1], [-1]]
    loop.state_exprs = [("bin", "*", ("arg", 0), ("const", 2.0)), ("arg", 1)]
    if seed == 1:
        loop.state_exprs = [("arg", 1), ("arg", 0)]  # a swap
    if seed == 2:
        loop.state_exprs = [("un", "tanh", ("bin", "*", ("arg", 0), ("arg", 1))), ("arg", 1)]
    loop.nit_exprs, loop.go_backwards, loop.n_steps = [], False, 3
    loop.values = [np.array(1.0), np.array(1.0)]
    check_loop(loop)


@st.composite
def loops(draw: Any) -> Loop:
    return build_loop(draw(st.integers(0, 2**32 - 1)))


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck),
          derandomize=True)
@given(loops())
def test_scan_passthrough_matches_numpy_and_finite_differences(loop: Loop) -> None:
    check_loop(loop)


@pytest.mark.slow
@settings(max_examples=1_500, deadline=None, suppress_health_check=list(HealthCheck),
          derandomize=True)
@given(loops())
def test_scan_passthrough_matches_numpy_and_finite_differences_long(loop: Loop) -> None:
    check_loop(loop)
