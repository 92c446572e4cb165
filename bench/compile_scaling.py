"""Compile time against graph size: does each doubling of the graph cost about 2x?

    python bench/compile_scaling.py [--sizes 1000,2000,4000,8000] [--cases a,b]
                                    [--repeat N] [--limit SECONDS]

Cases (``n`` is the size):

- ``chain``: an elementwise chain of ``n`` ops on a vector (sin, exp, tanh, square,
  +1, *0.5, cycled);
- ``chain_grad``: the gradient of that chain's sum;
- ``vector_sum``: ``n`` vector inputs summed with ``+`` in a loop;
- ``scalar_add``: ``tt.add(*xs)`` of ``n`` 0-d inputs.

For each case and size it prints the time spent inside ``theon.function``, and for
``chain_grad`` separately the time ``theon.grad`` took to build the gradient, with
the ratio to the previous size (a linear compiler gives about 2x per doubling),
as a markdown table.  The last line of each case gives the growth from its
smallest to its largest size.  The first result of every function is checked
against NumPy.  Every measurement runs in a fresh process (after a small warm-up
compile of the same case there), so it is the first compile of that graph, with
no cache filled by a larger one and no memory left over by it; each time is the
best of ``--repeat`` such runs.  Once one size of a case takes more than
``--limit`` seconds, its larger sizes are skipped.

Times are this process's CPU time by default (``--clock cpu``), which other
processes on a busy machine disturb much less than wall time (``--clock wall``;
compiling is single-threaded, so on an idle machine both agree).  The objects that
exist before the timed part (imports, the user's graph) are frozen out of the
garbage collector's passes (``gc.freeze``), so what is timed depends on the graph
being compiled, not on what else the process holds.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

if not __package__:  # run as a script: use this checkout
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import theon
import theon.tensor as tt

VEC = 8  # length of the vector inputs

# the chain's steps: (theon, NumPy, NumPy derivative at the step's input)
STEPS: list[tuple[Callable[[Any], Any], Callable[[Any], Any], Callable[[Any], Any]]] = [
    (tt.sin, np.sin, np.cos),
    (tt.exp, np.exp, np.exp),
    (tt.tanh, np.tanh, lambda a: 1 - np.tanh(a) ** 2),
    (lambda a: a * a, lambda a: a * a, lambda a: 2 * a),
    (lambda a: a + 1, lambda a: a + 1, np.ones_like),
    (lambda a: a * 0.5, lambda a: a * 0.5, lambda a: np.full_like(a, 0.5)),
]


@dataclass
class Case:
    """One graph at one size: inputs, outputs (or a thunk calling grad), values, reference."""

    inputs: list[Any]
    outputs: Any
    args: list[Any]
    reference: list[np.ndarray]


def chain(n: int) -> Case:
    x = tt.dvector("x")
    xv = np.linspace(-1, 1, VEC)
    y, ref = x, xv
    for k in range(n):
        sym, num, _ = STEPS[k % len(STEPS)]
        y, ref = sym(y), num(ref)
    return Case([x], [y], [xv], [ref])


def chain_grad(n: int) -> Case:
    x = tt.dvector("x")
    xv = np.linspace(-1, 1, VEC)
    y, vals = x, [xv]
    for k in range(n):
        y = STEPS[k % len(STEPS)][0](y)
        vals.append(STEPS[k % len(STEPS)][1](vals[-1]))
    g = np.ones(VEC)  # d sum(y) / dy, then back through the steps
    for k in reversed(range(n)):
        g = g * STEPS[k % len(STEPS)][2](vals[k])
    cost = y.sum()
    return Case([x], lambda: [theon.grad(cost, x)], [xv], [g])


def vector_sum(n: int) -> Case:
    xs = [tt.dvector(f"x{i}") for i in range(n)]
    acc = xs[0]
    for x in xs[1:]:
        acc = acc + x
    vals = [np.full(VEC, float(i % 7) - 3.0) for i in range(n)]
    return Case(xs, [acc], vals, [np.sum(vals, axis=0)])


def scalar_add(n: int) -> Case:
    xs = [tt.dscalar(f"x{i}") for i in range(n)]
    vals = [float(i % 7) - 3.0 for i in range(n)]
    return Case(xs, [tt.add(*xs)], vals, [np.asarray(sum(vals))])


CASES: dict[str, Callable[[int], Case]] = {
    "chain": chain,
    "chain_grad": chain_grad,
    "vector_sum": vector_sum,
    "scalar_add": scalar_add,
}


@dataclass
class Row:
    """The measurements of one case at one size (``error`` set when it failed)."""

    n: int
    compile_s: float = 0.0
    grad_s: float | None = None
    ok: bool = False
    error: str | None = None


CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}


def run_once(case: str, n: int, clock: Callable[[], float]) -> Row:
    """Build, time (grad and compile), call once and check against NumPy (this process)."""
    c = CASES[case](n)
    row = Row(n)
    outputs = c.outputs
    # the objects made so far (imports, the warm-up, the user's graph) are left out of
    # the collector's passes in the timed part: its cost is this graph's only
    gc.collect()
    gc.freeze()
    if callable(outputs):
        t0 = clock()
        outputs = outputs()
        row.grad_s = clock() - t0
    t0 = clock()
    f = theon.function(c.inputs, outputs)
    row.compile_s = clock() - t0
    got = f(*c.args)
    row.ok = all(
        np.allclose(g, r, rtol=1e-9, atol=1e-12) for g, r in zip(got, c.reference, strict=True)
    )
    return row


def one(case: str, n: int, clock_name: str) -> Row:
    """``run_once`` after a warm-up compile of the case at size 10 (imports, first use)."""
    clock = CLOCKS[clock_name]
    try:
        run_once(case, 10, clock)
        return run_once(case, n, clock)
    except Exception as exc:  # a crash is a result too
        return Row(n, error=f"{type(exc).__name__}: {str(exc)[:80]}")


def measure(case: str, n: int, repeat: int, clock_name: str) -> Row:
    """The run with the least compile time out of ``repeat``, each in a fresh process."""
    best: Row | None = None
    for _ in range(repeat):
        cmd = [sys.executable, os.path.abspath(__file__), "--one", case, str(n),
               "--clock", clock_name]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        try:
            row = Row(**json.loads(proc.stdout.strip().splitlines()[-1]))
        except (IndexError, ValueError):
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            return Row(n, error=f"exit {proc.returncode}: {tail[:80]}")
        if row.error is not None:
            return row
        if best is None or row.compile_s < best.compile_s:
            best = row
    assert best is not None
    return best


def fmt_ms(s: float) -> str:
    return f"{s * 1e3:.0f}" if s >= 0.1 else f"{s * 1e3:.1f}"


def ratio(now: float | None, before: float | None) -> str:
    return "" if now is None or not before else f"{now / before:.2f}×"


def table(results: dict[str, list[Row]]) -> list[str]:
    """The markdown table: a row per case and size, then the first-to-last growth."""
    lines = [
        "| case | size | compile ms | ratio | grad ms | ratio | ok |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for case, rows in results.items():
        prev: Row | None = None
        done = [r for r in rows if r.error is None and r.compile_s > 0]
        for row in rows:
            if row.error is not None:
                lines.append(f"| {case} | {row.n} | {row.error} | | | | |")
                prev = None
                continue
            grad = "" if row.grad_s is None else fmt_ms(row.grad_s)
            lines.append(
                f"| {case} | {row.n} | {fmt_ms(row.compile_s)} | "
                f"{ratio(row.compile_s, prev.compile_s if prev else None)} | {grad} | "
                f"{ratio(row.grad_s, prev.grad_s if prev else None)} | "
                f"{'yes' if row.ok else 'NO'} |"
            )
            prev = row
        if len(done) > 1:
            a, b = done[0], done[-1]
            lines.append(
                f"| {case} | {b.n}/{a.n} = {b.n / a.n:g}× | | {ratio(b.compile_s, a.compile_s)} "
                f"| | {ratio(b.grad_s, a.grad_s)} | |"
            )
    return lines


def main(argv: Sequence[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--sizes", default="1000,2000,4000,8000", help="comma separated sizes")
    p.add_argument("--cases", default=",".join(CASES), help=f"any of {', '.join(CASES)}")
    p.add_argument("--repeat", type=int, default=3, help="runs per size; the best is kept")
    p.add_argument(
        "--limit", type=float, default=120.0, help="skip larger sizes after a slower one (s)"
    )
    p.add_argument("--clock", choices=sorted(CLOCKS), default="cpu", help="what time is measured")
    p.add_argument("--one", nargs=2, metavar=("CASE", "N"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.one:  # one measurement, in this (fresh) process: a JSON line
        print(json.dumps(dataclasses.asdict(one(args.one[0], int(args.one[1]), args.clock))))
        return 0
    sizes = [int(s) for s in args.sizes.split(",") if s]
    cases = [c for c in args.cases.split(",") if c]
    unknown = set(cases) - set(CASES)
    if unknown:
        p.error(f"unknown cases {sorted(unknown)}; known: {', '.join(CASES)}")
    results: dict[str, list[Row]] = {}
    for case in cases:
        rows = results.setdefault(case, [])
        too_slow: Row | None = None
        for n in sizes:
            if too_slow is not None:
                rows.append(Row(n, error=f"skipped ({too_slow.n} took over {args.limit:g} s)"))
                continue
            row = measure(case, n, args.repeat, args.clock)
            rows.append(row)
            print(f"{case} n={n}: {row}", file=sys.stderr, flush=True)
            if row.error is None and row.compile_s + (row.grad_s or 0.0) > args.limit:
                too_slow = row
    print(f"{args.clock} time, best of {args.repeat}\n")
    print("\n".join(table(results)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
