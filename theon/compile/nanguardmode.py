"""``NanGuardMode``: stop at the first node that produces a NaN, an inf or a huge value.

A function compiled with ``mode=NanGuardMode(nan_is_error=True, inf_is_error=True,
big_is_error=True)`` checks its float inputs, then computes the rewritten graph node
by node (``Op.perform``, as the reference VM does) and checks every float output.
At the first bad value it raises :class:`NanGuardError` (an ``AssertionError``, as
Theano raised), whose message names the node, summarizes each of its inputs
(shape, dtype, min, max, mean, number of NaN and inf) and says where the user built
it.  Rewrites merge nodes (fusion turns ``log(x - y) * 2`` into one node), so the
error then also runs the graph as the user wrote it, on the same inputs, and names
its first bad node: usually the line to fix.

"Huge" means a finite absolute value above ``1e10`` (Theano's bound).  Integer and
non-tensor values are not checked, nor are constants.  An Op with an inner graph
(``scan``) compiles it in the same mode, so the error names the node inside the
loop, with a note naming the loop.

>>> import numpy as np, theon, theon.tensor as tt
>>> x = tt.dvector("x")
>>> f = theon.function([x], tt.log(x), mode=NanGuardMode(True, True, True))
>>> f(np.array([1.0, 2.0])).tolist()
[0.0, 0.6931471805599453]
>>> f(np.array([1.0, -2.0]))  # doctest: +ELLIPSIS
Traceback (most recent call last):
    ...
theon.compile.nanguardmode.NanGuardError: NanGuardMode: NaN (1 of 2 values) in output 0 of node ...
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from theon.compile.debugmode import (
    Evaluator,
    RecordingRewriter,
    RewriteRecorder,
    copy_value,
    node_report,
)
from theon.compile.mode import Mode
from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import FunctionGraph, describe
from theon.link.basic import Linker, Runner, add_node_context
from theon.link.lazy import has_lazy_nodes
from theon.rewriting.db import RewriteQuery

__all__ = ["BIG", "NanGuardError", "NanGuardLinker", "NanGuardMode", "bad_values", "value_stats"]

#: A finite value whose absolute value exceeds this is "huge" (``big_is_error``).
BIG = 1e10


class NanGuardError(AssertionError):
    """A NaN, inf or huge value appeared where :class:`NanGuardMode` forbids it."""


def bad_values(x: Any, nan: bool = True, inf: bool = True, big: bool = True) -> str | None:
    """What is wrong with ``x`` (``"NaN (2 of 5 values)"``), or ``None`` when nothing is.

    Only float (and complex) arrays and NumPy scalars are checked.

    >>> bad_values(np.array([1.0, np.nan, np.inf]))
    'NaN (1 of 3 values)'
    >>> bad_values(np.array([1.0, np.nan, np.inf]), nan=False)
    'inf (1 of 3 values)'
    >>> bad_values(np.array([3e10]), big=False) is None
    True
    """
    if not isinstance(x, (np.ndarray, np.generic)) or x.dtype.kind not in "fc" or x.size == 0:
        return None
    a = np.abs(x)
    top = a.max()
    if top <= BIG:  # (False for NaN) the common, healthy case: one pass over the data
        return None
    n = a.size
    if nan:
        k = int(np.isnan(a).sum())
        if k:
            return f"NaN ({k} of {n} values)"
    if inf:
        k = int(np.isinf(a).sum())
        if k:
            return f"inf ({k} of {n} values)"
    if big:
        k = int((np.isfinite(a) & (a > BIG)).sum())
        if k:
            return f"huge values, |x| > {BIG:g} ({k} of {n} values)"
    return None


def value_stats(x: Any) -> str:
    """Summary statistics of a value: shape, dtype, min, max, mean, NaN and inf counts.

    >>> value_stats(np.array([1.0, 3.0, np.nan]))
    'float64 shape (3,): min 1, max 3, mean 2, 1 NaN, 0 inf'
    """
    if isinstance(x, (np.ndarray, np.generic)):
        head = f"{x.dtype} shape {np.shape(x)}"
        if x.size == 0 or x.dtype.kind not in "biufc":
            return head
        if x.dtype.kind in "fc":
            finite = np.asarray(x)[np.isfinite(x)]
            n_nan = int(np.isnan(x).sum())
            n_inf = int(np.isinf(x).sum())
            if finite.size == 0:
                return f"{head}: no finite value, {n_nan} NaN, {n_inf} inf"
            return (f"{head}: min {finite.min():.6g}, max {finite.max():.6g}, mean "
                    f"{finite.mean():.6g}, {n_nan} NaN, {n_inf} inf")
        return f"{head}: min {x.min()}, max {x.max()}, mean {x.mean():.6g}"
    return type(x).__name__


class NanGuardLinker(Linker):
    """The linker of :class:`NanGuardMode`: ``perform`` node by node, checking outputs."""

    name = "nanguard"

    def __init__(self, nan_is_error: bool = True, inf_is_error: bool = True,
                 big_is_error: bool = True) -> None:
        self.nan_is_error = nan_is_error
        self.inf_is_error = inf_is_error
        self.big_is_error = big_is_error

    def make_function(self, fgraph: FunctionGraph, profile: Any = None) -> Runner:
        return Runner(_GuardedRun(fgraph, self), fgraph.toposort())


class _GuardedRun:
    def __init__(self, fgraph: FunctionGraph, linker: NanGuardLinker) -> None:
        self.fgraph = fgraph
        self.flags = (linker.nan_is_error, linker.inf_is_error, linker.big_is_error)
        self.recorder = fgraph.find_feature(RewriteRecorder)
        order = fgraph.toposort()
        # without lazy conditionals every node runs: a fixed plan, no search per call
        self.plan = None if has_lazy_nodes(order) else [
            (node, node.inputs, node.outputs) for node in order]

    def _bad(self, x: Any) -> str | None:
        return bad_values(x, *self.flags)

    def _guarded(self, node: Apply, ins: list[Any]) -> list[Any]:
        cells: list[list[Any]] = [[None] for _ in node.outputs]
        # an inplace Op works on copies: the values others read (and the report) stay
        work = [copy_value(x) for x in ins] if node.op.destroy_map else ins
        try:
            with np.errstate(all="ignore"):  # the guard reports them, better than warnings
                node.op.perform(node, work, cells)
        except Exception as e:
            add_node_context(e, node)
            raise
        outs = [c[0] for c in cells]
        for o, v in zip(node.outputs, outs):
            what = self._bad(v)
            if what is not None:
                raise _Found(node, o, what, ins)
        return outs

    def __call__(self, *args: Any) -> list[Any]:
        fg = self.fgraph
        if len(args) != len(fg.inputs):
            raise TypeError(f"expected {len(fg.inputs)} inputs, got {len(args)}")
        for v, a in zip(fg.inputs, args):
            what = self._bad(a)
            if what is not None:
                raise NanGuardError(
                    f"NanGuardMode: {what} in the input {describe(v)}\n  value: "
                    f"{value_stats(a)}")
        try:
            if self.plan is None:
                return Evaluator(dict(zip(fg.inputs, args)), self._guarded).evaluate(fg.outputs)
            values: dict[Variable, Any] = dict(zip(fg.inputs, args))
            for node, ins, outs in self.plan:
                vals = self._guarded(node, [v.data if isinstance(v, Constant) else values[v]
                                            for v in ins])
                values.update(zip(outs, vals))
            return [v.data if isinstance(v, Constant) else values[v] for v in fg.outputs]
        except _Found as found:
            raise NanGuardError(self._report(found, args)) from None

    def _report(self, found: _Found, args: tuple[Any, ...]) -> str:
        node = found.node
        text = _describe_bad(node, found.var, found.what, found.inputs, self.recorder)
        orig = self.recorder.original if self.recorder is not None else None
        if orig is None:
            return text
        # the graph as the user built it, on the same inputs: its first bad node
        try:
            Evaluator(dict(zip(orig.inputs, args)), self._guarded).evaluate(orig.outputs)
        except _Found as first:
            if str(first.node) != str(node):
                return (_describe_bad(first.node, first.var, first.what, first.inputs, None)
                        + "\n\nin the compiled (rewritten) graph, this is:\n" + text)
        except Exception:  # the report must not hide the finding
            pass
        return text


class _Found(Exception):
    def __init__(self, node: Apply, var: Variable, what: str, inputs: list[Any]) -> None:
        super().__init__(what)
        self.node = node
        self.var = var
        self.what = what
        self.inputs = inputs


def _describe_bad(node: Apply, var: Variable, what: str, inputs: list[Any],
                  recorder: RewriteRecorder | None) -> str:
    lines = [f"NanGuardMode: {what} in output {var.index} of node {node}",
             node_report(node, recorder), "inputs:"]
    for i, (v, x) in enumerate(zip(node.inputs, inputs)):
        lines.append(f"  {i}: {v}: {value_stats(x)}")
    return "\n".join(lines)


class NanGuardMode(Mode):
    """A mode that raises :class:`NanGuardError` at the first NaN, inf or huge value.

    Parameters
    ----------
    nan_is_error, inf_is_error, big_is_error
        Which values are errors (``None``: yes).  "Big" is a finite ``|x| > 1e10``.
    optimizer
        The rewrites: by default ``"fast_run"`` without fusion, so that each
        intermediate value the user wrote is a node's output, and checked.
    linker
        Accepted for Theano code and ignored: values come from each Op's ``perform``.

    Examples
    --------
    >>> import numpy as np, theon, theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> f = theon.function([x], x * 1e6, mode=NanGuardMode(big_is_error=False))
    >>> f(np.array([1e5])).tolist()
    [100000000000.0]
    """

    def __init__(self, nan_is_error: bool | None = None, inf_is_error: bool | None = None,
                 big_is_error: bool | None = None, optimizer: Any = "default",
                 linker: Any = None) -> None:
        if optimizer == "default":  # every intermediate the user wrote stays a node
            optimizer = RewriteQuery.named("fast_run").excluding("fusion")
        self.nan_is_error = nan_is_error is not False
        self.inf_is_error = inf_is_error is not False
        self.big_is_error = big_is_error is not False
        guard = NanGuardLinker(self.nan_is_error, self.inf_is_error, self.big_is_error)
        super().__init__(guard, optimizer, name="NanGuardMode")

    def __repr__(self) -> str:
        return (f"NanGuardMode(nan_is_error={self.nan_is_error}, inf_is_error="
                f"{self.inf_is_error}, big_is_error={self.big_is_error})")

    def get_rewriter(self) -> Callable[[Any], Any] | None:
        return RecordingRewriter(super().get_rewriter())

    def _with_query(self, how: str, tags: tuple[str, ...]) -> Mode:
        return self.clone(optimizer=super()._with_query(how, tags).optimizer)

    def clone(self, link_kwargs: dict[str, Any] | None = None, **kw: Any) -> Mode:
        return NanGuardMode(self.nan_is_error, self.inf_is_error, self.big_is_error,
                            kw.get("optimizer", self.optimizer))
