"""Profiling compiled functions: time and call counts per Op and per node.

``function(..., profile=True)`` attaches a :class:`ProfileStats` as ``f.profile``;
the linker reports each node's run time through :meth:`ProfileStats.record`, and
the function adds each call's total time.  ``f.profile.summary()`` prints tables
sorted by time, with each entry's share of the total; each hot node is followed by
the lines of the user's code that built it (the nodes a rewrite fused into it
included), as error messages name them.  Under ``mode="JAX"`` the graph runs as one
XLA computation: the summary gives each call's steps instead (compile, run on the
device, transfers; :meth:`ProfileStats.record_step`).

>>> p = ProfileStats("demo")
>>> p.record_call(0.5)
>>> p.call_count, p.call_time
(1, 0.5)
"""

from __future__ import annotations

import io
import os
import sys
from typing import Any, TextIO

from theon.graph.basic import Apply, format_trace
from theon.rewriting.provenance import op_name, user_lines

__all__ = ["ProfileStats", "built_at"]


class ProfileStats:
    """Timings of one compiled function (or of several sharing this object).

    Attributes
    ----------
    name
        The function's name, shown in the summary.
    call_count, call_time
        Number of calls and their total wall time (seconds).
    node_time, node_calls
        Per Apply node: total seconds spent in it and how many times it ran.
    rewrite_time, link_time
        Seconds spent rewriting and linking when the function was compiled.
    notes
        Lines the linkers add about how the function runs (each once), such as
        whether tier-1 kernels are on (:func:`theon.link.tier1.describe`).
    step_time, step_calls
        Per step of a call, for a linker that cannot time nodes (``mode="JAX"``:
        compile, run on the device, transfers): total seconds and how many times.
    """

    def __init__(self, name: str | None = None) -> None:
        self.name = name
        self.call_count = 0
        self.call_time = 0.0
        self.node_time: dict[Apply, float] = {}
        self.node_calls: dict[Apply, int] = {}
        self.rewrite_time = 0.0
        self.link_time = 0.0
        self.n_nodes = 0
        self.notes: list[str] = []
        self.step_time: dict[str, float] = {}
        self.step_calls: dict[str, int] = {}

    def add_note(self, text: str) -> None:
        """Add a line to the summary, unless it is there already.

        >>> p = ProfileStats()
        >>> p.add_note("tier 1: off"); p.add_note("tier 1: off")
        >>> p.notes
        ['tier 1: off']
        """
        if text not in self.notes:
            self.notes.append(text)

    def record(self, node: Apply, seconds: float) -> None:
        """Add one run of ``node`` that took ``seconds`` (called by linkers)."""
        t = self.node_time
        t[node] = t.get(node, 0.0) + seconds
        c = self.node_calls
        c[node] = c.get(node, 0) + 1

    def record_step(self, step: str, seconds: float) -> None:
        """Add one run of a call's ``step`` that took ``seconds`` (called by a linker
        that times the steps of a call rather than nodes: ``mode="JAX"``).

        >>> p = ProfileStats()
        >>> p.record_step("run on the device", 0.25); p.record_step("run on the device", 0.5)
        >>> p.step_time, p.step_calls
        ({'run on the device': 0.75}, {'run on the device': 2})
        """
        self.step_time[step] = self.step_time.get(step, 0.0) + seconds
        self.step_calls[step] = self.step_calls.get(step, 0) + 1

    def record_call(self, seconds: float) -> None:
        """Add one call of the function that took ``seconds``."""
        self.call_count += 1
        self.call_time += seconds

    def reset(self) -> None:
        """Forget the run-time measurements (compile times are kept)."""
        self.call_count = 0
        self.call_time = 0.0
        self.node_time.clear()
        self.node_calls.clear()
        self.step_time.clear()
        self.step_calls.clear()

    @property
    def node_total(self) -> float:
        """Seconds spent inside nodes, summed."""
        return sum(self.node_time.values())

    def op_stats(self) -> list[tuple[str, float, int, int]]:
        """``(op, seconds, runs, nodes)`` per distinct Op, slowest first."""
        agg: dict[Any, list[Any]] = {}
        for node, t in self.node_time.items():
            key: Any = node.op
            try:
                hash(key)
            except TypeError:
                key = id(node.op)
            row = agg.get(key)
            if row is None:
                row = agg[key] = [str(node.op), 0.0, 0, 0]
            row[1] += t
            row[2] += self.node_calls.get(node, 0)
            row[3] += 1
        rows = [(r[0], r[1], r[2], r[3]) for r in agg.values()]
        rows.sort(key=lambda r: -r[1])
        return rows

    def node_stats(self) -> list[tuple[Apply, float, int]]:
        """``(node, seconds, runs)`` per node, slowest first."""
        rows = [(n, t, self.node_calls.get(n, 0)) for n, t in self.node_time.items()]
        rows.sort(key=lambda r: -r[1])
        return rows

    def summary_text(self, n_ops: int = 20, n_nodes: int = 20) -> str:
        """The text printed by :meth:`summary`."""
        out = io.StringIO()
        total = self.node_total
        calls = self.call_count
        w = out.write
        w(f"Function profile: {self.name or '<unnamed>'}\n")
        w(f"  calls: {calls}   total call time: {self.call_time:.6f} s")
        if calls:
            w(f"   per call: {1e6 * self.call_time / calls:.2f} us")
        w("\n")
        if self.node_time or not self.step_time:
            w(f"  time in nodes: {total:.6f} s")
            if self.call_time > 0:
                share = 100.0 * total / self.call_time
                w(f" ({share:.1f}% of call time; the rest is call overhead)")
            w("\n")
        w(f"  compile: rewrite {self.rewrite_time:.4f} s, link {self.link_time:.4f} s, "
          f"{self.n_nodes} nodes\n")
        for note in self.notes:
            w(f"  {note}\n")
        if any(n.startswith("tier 1: on") for n in self.notes):
            from theon.link.tier1 import stats

            st = stats()
            w(f"  tier 1 in this process: {st['submitted']} compiles asked, "
              f"{st['compiled']} done ({st['disk_hits']} from the disk cache), "
              f"{st['verified']} checked and in use, {st['dropped']} dropped, "
              f"{st['slower']} slower than tier 0, {st['failed']} not compilable\n")
        if self.step_time:
            self._steps_text(w)
            if not self.node_time:
                return out.getvalue()
        denom = total if total > 0 else 1.0
        ops = self.op_stats()
        w(f"\n  Ops, by time (top {min(n_ops, len(ops))} of {len(ops)}):\n")
        w(f"  {'share':>7} {'cumul':>7} {'seconds':>11} {'per run':>11} {'runs':>7} "
          f"{'nodes':>5}  op\n")
        cum = 0.0
        for name, t, runs, nn in ops[:n_ops]:
            cum += t
            per = t / runs if runs else 0.0
            w(f"  {100 * t / denom:6.1f}% {100 * cum / denom:6.1f}% {t:11.6f} "
              f"{1e6 * per:9.2f}us {runs:7d} {nn:5d}  {name}\n")
        nodes = self.node_stats()
        w(f"\n  Nodes, by time (top {min(n_nodes, len(nodes))} of {len(nodes)}):\n")
        w(f"  {'share':>7} {'cumul':>7} {'seconds':>11} {'per run':>11} {'runs':>7}  node\n")
        cum = 0.0
        for node, t, runs in nodes[:n_nodes]:
            cum += t
            per = t / runs if runs else 0.0
            text = str(node)
            if len(text) > 90:
                text = text[:87] + "..."
            w(f"  {100 * t / denom:6.1f}% {100 * cum / denom:6.1f}% {t:11.6f} "
              f"{1e6 * per:9.2f}us {runs:7d}  {text}\n")
            for line in built_at(node):
                w(f"  {'':>47}  {line}\n")
        return out.getvalue()

    def _steps_text(self, w: Any) -> None:
        """The table of a call's steps (``mode="JAX"``), slowest first."""
        steps = sorted(self.step_time.items(), key=lambda kv: -kv[1])
        whole = sum(self.step_time.values()) or 1.0
        w("\n  Steps of the calls, by time:\n")
        w(f"  {'share':>7} {'seconds':>11} {'per run':>11} {'runs':>7}  step\n")
        for step, t in steps:
            runs = self.step_calls.get(step, 0)
            per = t / runs if runs else 0.0
            w(f"  {100 * t / whole:6.1f}% {t:11.6f} {1e6 * per:9.2f}us {runs:7d}  {step}\n")
        if not self.node_time:
            w(f"\n  (no per-node times: the {self.n_nodes} nodes run as one computation)\n")

    def summary(self, file: TextIO | None = None, n_ops: int = 20, n_nodes: int = 20) -> None:
        """Print the profile: totals, then Ops and nodes sorted by time with their shares.

        >>> ProfileStats("f").summary()  # doctest: +ELLIPSIS
        Function profile: f
        ...
        """
        (file or sys.stdout).write(self.summary_text(n_ops, n_nodes))

    def __repr__(self) -> str:
        return f"ProfileStats({self.name!r}, calls={self.call_count})"


def built_at(node: Apply, limit: int = 3) -> list[str]:
    """Where the user's code built ``node`` (every node a rewrite merged into it), one
    line per source line, for the profile's hot nodes; a file under the working
    directory is named relative to it.

    >>> import theon.tensor as tt
    >>> y = tt.exp(tt.dvector("x"))
    >>> built_at(y.owner)[0].startswith("built at ") and built_at(y.owner)[0].endswith(": exp")
    True
    """
    out = []
    places = [(f, ops) for f, ops in user_lines(node) if f is not None]
    here = os.getcwd() + os.sep
    for (fn, line, fun), ops in places[:limit]:
        if fn.startswith(here):
            fn = fn[len(here):]
        out.append(f"built at {format_trace([(fn, line, fun)])}: "
                   f"{', '.join(op_name(o) for o in ops)}")
    if len(places) > limit:
        out.append(f"... and {len(places) - limit} more lines (theon.explain(f) lists them)")
    return out
