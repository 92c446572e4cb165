"""``DebugMode``: compile a function that checks every Op and every rewrite while it runs.

Each call of a function compiled with ``mode="DebugMode"`` (or ``mode=DebugMode()``)
computes the rewritten graph node by node with ``Op.perform`` (the reference VM's
way), and for every node:

* runs the node again through the default linker's generated code and compares
  the outputs with the type's ``values_eq_approx`` (:class:`BadThunkOutput`);
* checks that ``perform`` overwrote no input it does not list in its
  ``destroy_map`` (:class:`BadDestroyMap`) and returned no view of an input it does
  not list in its ``view_map`` (:class:`BadViewMap`);
* checks that each output is a valid value of its type, and finite
  (:class:`InvalidValueError`), and has the shape ``infer_shape`` predicts
  (:class:`BadInferShape`).

Then it checks the rewrites: every replacement a rewrite made while compiling is
recorded with the rewrite's name, and the replaced and the replacing variable are
computed on the call's inputs and compared (:class:`BadOptimization`, naming the
rewrite); the whole unrewritten graph runs too and must agree with the rewritten one.
A rewrite may only keep a variable's type or make it more specific (a static
length); a more specific type that the values do not have is a
:class:`BadOptimization` of the rewrite that declared it.

Every error names the Op, the node, the rewrite that produced the node (if one
did) and where the user built it.  Everything is computed several times, so a
DebugMode call is slow: use it to find a bug, not to train.

>>> import numpy as np, theon, theon.tensor as tt
>>> x = tt.dvector("x")
>>> f = theon.function([x], tt.exp(x).sum(), mode="DebugMode")
>>> float(f(np.zeros(3)))
3.0
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from theon.compile.mode import Mode, _make_linker
from theon.graph.basic import Apply, Constant, Variable, format_trace
from theon.graph.features import Feature
from theon.graph.fg import FunctionGraph, describe
from theon.graph.op import OpContractError, lazy_branches
from theon.link.basic import Linker, Runner, add_node_context

__all__ = [
    "BadDestroyMap",
    "BadInferShape",
    "BadOptimization",
    "BadThunkOutput",
    "BadViewMap",
    "DebugLinker",
    "DebugMode",
    "DebugModeError",
    "InvalidValueError",
    "RewriteRecorder",
    "StochasticOrder",
    "node_report",
]


# errors --------------------------------------------------------------------------------
class DebugModeError(Exception):
    """Base class of the errors DebugMode raises: an Op or a rewrite broke its contract."""


class BadThunkOutput(DebugModeError):
    """An Op's ``perform`` and the default linker's code for it disagree."""


class BadOptimization(DebugModeError):
    """A rewrite replaced a variable by one with other values, or a wrong type."""


class BadDestroyMap(DebugModeError):
    """An Op overwrote an input that its ``destroy_map`` does not list."""


class BadViewMap(DebugModeError):
    """An Op returned a view of an input that its ``view_map`` does not list."""


class BadInferShape(DebugModeError):
    """An Op's ``infer_shape`` predicted another shape than the one computed."""


class InvalidValueError(DebugModeError):
    """An Op produced a value that is not valid for its output type (or not finite)."""


class StochasticOrder(DebugModeError):
    """Theano's error for a graph compiled in a varying order.  theon's order is
    deterministic, so DebugMode never raises it; it exists for code that catches it."""


# where a node came from --------------------------------------------------------------
class RewriteRecorder(Feature):
    """Records what the rewrites do to a FunctionGraph, for DebugMode's checks and reports.

    Attributes
    ----------
    original
        A copy of the graph made before the rewrites ran (or ``None``).
    replacements
        ``(old, new, reason)`` for each replacement, in order; ``reason`` is the
        rewrite's name.
    produced_by
        The rewrite that brought each new node into the graph.
    replaced
        For each node a rewrite brought in, the variable its replacement replaced.
    refined
        Variables a rewrite put in place of one of a less specific type, with the
        replaced variable and the rewrite.

    Examples
    --------
    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> fg = FunctionGraph([x], [tt.exp(x)])
    >>> rec = RewriteRecorder()
    >>> fg.attach_feature(rec)
    >>> y = tt.exp(fg.inputs[0] * 1.0)
    >>> fg.replace(fg.outputs[0], y, reason="my_rewrite")
    >>> rec.produced_by[y.owner], len(rec.replacements)
    ('my_rewrite', 1)
    """

    def __init__(self, original: FunctionGraph | None = None) -> None:
        self.original = original
        self.replacements: list[tuple[Variable, Variable, str | None]] = []
        self.produced_by: dict[Apply, str] = {}
        self.replaced: dict[Apply, Variable] = {}
        self.refined: dict[Variable, tuple[Variable, str | None]] = {}
        self._pending: list[Apply] = []
        self._seen: set[tuple[int, int]] = set()

    def on_import(self, fgraph: FunctionGraph, node: Apply, reason: str | None) -> None:
        if reason is not None and node not in self.produced_by:
            self.produced_by[node] = reason
            self._pending.append(node)

    def on_change_input(self, fgraph: FunctionGraph, node: Apply, i: int,
                        old: Variable, new: Variable, reason: str | None) -> None:
        for n in self._pending:
            self.replaced.setdefault(n, old)
        self._pending.clear()
        key = (id(old), id(new))
        if key in self._seen:
            return
        self._seen.add(key)
        self.replacements.append((old, new, reason))
        if old.type is not new.type and old.type != new.type:
            if not old.type.in_same_class(new.type) and not old.type.is_super(new.type):
                raise BadOptimization(
                    f"rewrite {reason!r} replaced {describe(old)} by {new} of type "
                    f"{new.type}; a rewrite must keep each variable's type"
                )
            self.refined[new] = (old, reason)

    def clone(self) -> Feature:
        return Feature()  # a copy of the graph has no history


def node_report(node: Apply, recorder: RewriteRecorder | None = None) -> str:
    """Lines naming ``node``: its Op, the node, where the user built it and the rewrite
    that produced it.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> print(node_report(tt.exp(x).owner))  # doctest: +ELLIPSIS
    Op: Elemwise{exp,no_inplace} (class Elemwise)
    node: Elemwise{exp,no_inplace}(x)
    built at ...
    """
    lines = [f"Op: {node.op} (class {type(node.op).__name__})", f"node: {node}"]
    where = ""
    for o in node.outputs:
        where = format_trace(getattr(o.tag, "trace", None))
        if where:
            break
    reason = recorder.produced_by.get(node) if recorder is not None else None
    seen: set[Apply] = set()
    cur: Apply | None = node
    while reason is not None and recorder is not None and cur is not None and cur not in seen:
        seen.add(cur)
        lines.append(f"produced by rewrite {reason!r}")
        old = recorder.replaced.get(cur)
        if old is None:
            break
        lines.append(f"which replaced {describe(old)}")
        cur = old.owner
        reason = recorder.produced_by.get(cur) if cur is not None else None
        # a node a rewrite made was "built" by theon.function: the user built the
        # variable it replaced
        where = format_trace(getattr(old.tag, "trace", None)) or where
    if where:
        lines.append(f"built at {where}")
    return "\n".join(lines)


# evaluating graphs on values ------------------------------------------------------------
class _Unknown(Exception):
    """A variable with no owner and no value: the expression cannot be computed."""


def copy_value(x: Any) -> Any:
    """A copy of ``x`` that an Op may overwrite without touching ``x``."""
    if isinstance(x, np.ndarray):
        return x.copy()
    if x is None or isinstance(x, (np.generic, int, float, complex, bool, str, bytes)):
        return x
    try:
        return copy.deepcopy(x)
    except Exception:  # an uncopyable object: shared as it is
        return x


def _plain_perform(node: Apply, ins: list[Any]) -> list[Any]:
    """``perform`` on copies of ``ins`` (so no value the caller holds is overwritten)."""
    outs: list[list[Any]] = [[None] for _ in node.outputs]
    try:
        node.op.perform(node, [copy_value(x) for x in ins], outs)
    except Exception as e:
        add_node_context(e, node)
        raise
    return [c[0] for c in outs]


class Evaluator:
    """Computes variables on values, one node at a time, on demand (no recursion).

    ``memo`` maps variables to values; ``base`` holds values known beforehand
    (read, never written).  A lazy conditional computes only its taken branch.
    ``run_node(node, input_values)`` computes a node's outputs.

    >>> import numpy as np, theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> y = tt.exp(x) * 2
    >>> ev = Evaluator({x: np.zeros(2)})
    >>> ev.evaluate([y])[0].tolist()
    [2.0, 2.0]
    """

    def __init__(self, base: Mapping[Variable, Any],
                 run_node: Callable[[Apply, list[Any]], list[Any]] = _plain_perform) -> None:
        self.base = base
        self.memo: dict[Variable, Any] = {}
        self.run_node = run_node

    def _known(self, v: Variable) -> bool:
        return v in self.memo or v in self.base

    def get(self, v: Variable) -> Any:
        """The value of an evaluated (or given) variable."""
        return self.memo[v] if v in self.memo else self.base[v]

    def evaluate(self, roots: Sequence[Variable]) -> list[Any]:
        """The values of ``roots``; raises :class:`_Unknown` for an input without value."""
        stack: list[Variable] = list(reversed(roots))
        while stack:
            v = stack[-1]
            if self._known(v):
                stack.pop()
                continue
            if isinstance(v, Constant):
                self.memo[v] = v.data
                stack.pop()
                continue
            node = v.owner
            if node is None:
                raise _Unknown(v)
            parts = lazy_branches(node)
            if parts is not None:
                if not self._known(parts.condition):
                    stack.append(parts.condition)
                    continue
                taken = parts.then_values if self.get(parts.condition) else parts.else_values
                missing = [t for t in taken if not self._known(t)]
                if missing:
                    stack.extend(missing)
                    continue
                for o, t in zip(node.outputs, taken):
                    self.memo[o] = self.get(t)
                stack.pop()
                continue
            missing = [i for i in node.inputs if not self._known(i)]
            if missing:
                stack.extend(reversed(missing))
                continue
            outs = self.run_node(node, [self.get(i) for i in node.inputs])
            for o, val in zip(node.outputs, outs):
                self.memo[o] = val
            stack.pop()
        return [self.get(r) for r in roots]


def values_agree(var: Variable, expected: Any, got: Any) -> bool:
    """``var.type.values_eq_approx(expected, got)``, where a non-finite expected entry
    may be anything (a rewrite that turns an overflow into a number is a fix)."""
    t = var.type
    try:
        if t.values_eq_approx(expected, got):
            return True
    except Exception:
        return False
    if (isinstance(expected, np.ndarray) and isinstance(got, np.ndarray)
            and expected.shape == got.shape and expected.dtype.kind in "fc"):
        finite = np.isfinite(expected)
        if not finite.all():
            return bool(t.values_eq_approx(expected[finite], got[finite]))
    return False


def _summary(x: Any) -> str:
    if isinstance(x, np.ndarray):
        text = np.array2string(x, threshold=8, edgeitems=2, precision=6)
        return f"{x.dtype} array of shape {x.shape}: {text}"
    return f"{type(x).__name__} {x!r}"[:200]


def _shares(a: Any, b: Any) -> bool:
    return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and (
        a.size > 0 and b.size > 0 and bool(np.may_share_memory(a, b))
    )


# the linker ------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Checks:
    compiled: bool = True
    isfinite: bool = True
    shapes: bool = True
    rewrites: bool = True


class DebugLinker(Linker):
    """The linker of :class:`DebugMode`: runs every check on every call.

    Parameters
    ----------
    linker
        The linker whose generated code is checked against ``perform`` (default:
        the default linker).
    """

    name = "debug"

    def __init__(self, linker: Linker | str | None = None, check_compiled: bool = True,
                 check_isfinite: bool = True, check_shapes: bool = True,
                 check_rewrites: bool = True) -> None:
        self.linker = _make_linker(linker)
        self.checks = _Checks(check_compiled, check_isfinite, check_shapes, check_rewrites)

    def __repr__(self) -> str:
        return f"DebugLinker({self.linker!r})"

    def make_function(self, fgraph: FunctionGraph, profile: Any = None) -> Runner:
        run = _DebugRun(fgraph, self.linker, self.checks)
        return Runner(run, fgraph.toposort())


class _DebugRun:
    """One compiled DebugMode graph: ``run(*inputs)`` computes and checks everything."""

    def __init__(self, fgraph: FunctionGraph, linker: Linker, checks: _Checks) -> None:
        self.fgraph = fgraph
        self.linker = linker
        self.checks = checks
        self.recorder = fgraph.find_feature(RewriteRecorder)
        self.compiled = linker.make_function(fgraph) if checks.compiled else None
        self._node_runners: dict[Apply, Runner | None] = {}
        self._shape_graphs: dict[Apply, list[tuple[Any, ...] | None] | None] = {}

    def _fail(self, kind: type[DebugModeError], what: str, node: Apply) -> DebugModeError:
        return kind(f"{what}\n{node_report(node, self.recorder)}")

    # one node ---------------------------------------------------------------------------
    def check_node(self, node: Apply, ins: list[Any]) -> list[Any]:
        op = node.op
        work = [copy_value(x) for x in ins]
        cells: list[list[Any]] = [[None] for _ in node.outputs]
        try:
            op.perform(node, work, cells)
        except Exception as e:
            add_node_context(e, node)
            raise
        vals = [c[0] for c in cells]
        self._check_values(node, vals)
        self._check_destroy(node, ins, work, "perform")
        self._check_views(node, vals, work)
        if self.checks.compiled:
            self._check_compiled(node, ins, vals)
        if self.checks.shapes:
            self._check_shapes(node, vals)
        return vals

    def _check_values(self, node: Apply, vals: list[Any]) -> None:
        for o, v in zip(node.outputs, vals):
            if v is None:
                raise self._fail(InvalidValueError, f"{node.op}.perform did not fill output "
                                 f"{o.index} ({o.type})", node)
            if not o.type.is_valid_value(v):
                got = _summary(v)
                refined = self.recorder.refined.get(o) if self.recorder is not None else None
                if refined is not None and refined[0].type.is_valid_value(v):
                    old, reason = refined
                    raise self._fail(
                        BadOptimization,
                        f"rewrite {reason!r} changed the type of {describe(old)} to "
                        f"{o.type}, but at run time the value is a {got}", node)
                raise self._fail(InvalidValueError, f"output {o.index} of {node.op} should be "
                                 f"a value of type {o.type}, got a {got}", node)
            if (self.checks.isfinite and isinstance(v, np.ndarray) and v.dtype.kind in "fc"
                    and not np.isfinite(v).all()):
                raise self._fail(InvalidValueError, f"output {o.index} of {node.op} is not "
                                 f"finite (isfinite check): {_summary(v)}", node)

    def _check_destroy(self, node: Apply, before: list[Any], after: list[Any], how: str) -> None:
        destroyed = {i for ins in node.op.destroy_map.values() for i in ins}
        for i, (b, a) in enumerate(zip(before, after)):
            if i in destroyed:
                continue
            try:
                same = node.inputs[i].type.values_eq(b, a)
            except Exception:
                continue
            if not same:
                raise self._fail(
                    BadDestroyMap,
                    f"{how} of {node.op} overwrote its input {i} ({node.inputs[i]}) but the "
                    f"Op's destroy_map {dict(node.op.destroy_map)} does not say so; before: "
                    f"{_summary(b)}, after: {_summary(a)}", node)

    def _check_views(self, node: Apply, vals: list[Any], ins: list[Any]) -> None:
        op = node.op
        for j, v in enumerate(vals):
            allowed = set(op.view_map.get(j, ())) | set(op.destroy_map.get(j, ()))
            for i, x in enumerate(ins):
                if i not in allowed and _shares(v, x):
                    raise self._fail(
                        BadViewMap,
                        f"output {j} of {node.op} shares memory with its input {i} "
                        f"({node.inputs[i]}) but the Op's view_map {dict(op.view_map)} does "
                        "not say so", node)

    def _node_runner(self, node: Apply) -> Runner | None:
        if node in self._node_runners:
            return self._node_runners[node]
        runner: Runner | None = None
        if lazy_branches(node) is None:
            ins = list(dict.fromkeys(i for i in node.inputs if not isinstance(i, Constant)))
            fg = FunctionGraph(ins, list(node.outputs), clone=True)
            fg.mutable_inputs = set(fg.inputs)
            fg.protected_inputs = set()
            runner = self.linker.make_function(fg)
        self._node_runners[node] = runner
        return runner

    def _check_compiled(self, node: Apply, ins: list[Any], vals: list[Any]) -> None:
        runner = self._node_runner(node)
        if runner is None:
            return
        args = {}
        for v, x in zip(node.inputs, ins):
            if not isinstance(v, Constant) and v not in args:
                args[v] = copy_value(x)
        before = list(args.values())
        work = [copy_value(x) for x in before]
        try:
            got = runner(*work)
        except Exception as e:
            raise self._fail(BadThunkOutput, f"the {self.linker.name} linker's code for "
                             f"{node.op} raised {type(e).__name__}: {e} where perform "
                             "did not", node) from e
        for o, ref, val in zip(node.outputs, vals, got):
            if not values_agree(o, ref, val):
                raise self._fail(
                    BadThunkOutput,
                    f"output {o.index} of {node.op}: perform and the {self.linker.name} "
                    f"linker's code disagree\n  perform: {_summary(ref)}\n  "
                    f"{self.linker.name}: {_summary(val)}", node)

    def _shape_graph(self, node: Apply) -> list[tuple[Any, ...] | None] | None:
        if node in self._shape_graphs:
            return self._shape_graphs[node]
        got: list[tuple[Any, ...] | None] | None = None
        shapes: list[tuple[Any, ...]] = []
        try:
            for v in node.inputs:
                nd = getattr(v.type, "ndim", None)
                sym = getattr(v, "shape", None) if isinstance(nd, int) else None
                if sym is None or not isinstance(nd, int):
                    shapes.append(())
                else:
                    shapes.append(tuple(sym[k] for k in range(nd)))
            outs = node.op.infer_shape(node, shapes)
            got = [tuple(s) if s is not None else None for s in outs]
        except (OpContractError, NotImplementedError, AttributeError, TypeError, ValueError,
                IndexError):
            got = None  # no (usable) infer_shape: nothing to check
        self._shape_graphs[node] = got
        return got

    def _check_shapes(self, node: Apply, vals: list[Any]) -> None:
        graphs = self._shape_graph(node)
        if graphs is None or self._evaluator is None:
            return
        for o, val, shp in zip(node.outputs, vals, graphs):
            if shp is None or not isinstance(val, np.ndarray):
                continue
            sub = Evaluator(_Chain(self._evaluator))
            try:
                entries = [int(sub.evaluate([s])[0]) if isinstance(s, Variable) else int(s)
                           for s in shp]
            except _Unknown:
                continue
            if tuple(entries) != val.shape:
                raise self._fail(
                    BadInferShape,
                    f"{node.op}.infer_shape says output {o.index} has shape {tuple(entries)}, "
                    f"but perform computed shape {val.shape}", node)

    # one call ---------------------------------------------------------------------------
    _evaluator: Evaluator | None = None

    def __call__(self, *args: Any) -> list[Any]:
        fg = self.fgraph
        if len(args) != len(fg.inputs):
            raise TypeError(f"expected {len(fg.inputs)} inputs, got {len(args)}")
        kept = [copy_value(a) for a in args]
        ev = Evaluator(dict(zip(fg.inputs, kept)), self.check_node)
        self._evaluator = ev
        try:
            outs = ev.evaluate(fg.outputs)
            if self.checks.rewrites and self.recorder is not None:
                self._check_rewrites(ev, kept)
        finally:
            self._evaluator = None
        if self.compiled is not None:
            got = self.compiled(*[copy_value(a) for a in kept])
            for k, (o, ref, val) in enumerate(zip(fg.outputs, outs, got)):
                if not values_agree(o, ref, val):
                    raise BadThunkOutput(
                        f"output {k} ({describe(o)}) of the function compiled by the "
                        f"{self.linker.name} linker disagrees with the node-by-node "
                        f"reference\n  reference: {_summary(ref)}\n  {self.linker.name}: "
                        f"{_summary(val)}")
        return [copy_value(v) if isinstance(v, np.ndarray) else v for v in outs]

    def _check_rewrites(self, ev: Evaluator, kept: list[Any]) -> None:
        rec = self.recorder
        assert rec is not None
        hist = Evaluator(_Chain(ev))
        for old, new, reason in rec.replacements:
            try:
                a, b = hist.evaluate([old, new])
            except _Unknown:
                continue
            if not values_agree(old, a, b):
                where = new.owner if new.owner is not None else old.owner
                text = (f"rewrite {reason!r} replaced {describe(old)} by {new}, which "
                        f"computes other values on the same inputs\n  before: {_summary(a)}"
                        f"\n  after: {_summary(b)}")
                if where is not None:
                    raise self._fail(BadOptimization, text, where)
                raise BadOptimization(text)
        orig = rec.original
        if orig is None:
            return
        before = Evaluator(dict(zip(orig.inputs, kept)))
        try:
            ref = before.evaluate(orig.outputs)
        except _Unknown:
            return
        for k, (o, a) in enumerate(zip(orig.outputs, ref)):
            b = ev.get(self.fgraph.outputs[k])
            if not values_agree(o, a, b):
                raise BadOptimization(
                    f"output {k} ({describe(o)}) of the rewritten graph differs from the "
                    f"unrewritten graph on the same inputs\n  unrewritten: {_summary(a)}"
                    f"\n  rewritten: {_summary(b)}")


class _Chain(Mapping[Variable, Any]):
    """The values an evaluator knows, read-only (its memo, then its base)."""

    def __init__(self, ev: Evaluator) -> None:
        self.ev = ev

    def __getitem__(self, v: Variable) -> Any:
        return self.ev.get(v)

    def __contains__(self, v: object) -> bool:
        return v in self.ev.memo or v in self.ev.base

    def __iter__(self) -> Any:
        return iter(list(self.ev.memo) + list(self.ev.base))

    def __len__(self) -> int:
        return len(self.ev.memo) + len(self.ev.base)


# the mode --------------------------------------------------------------------------------
class RecordingRewriter:
    """Wraps a mode's rewriter: copies the graph and attaches a :class:`RewriteRecorder`
    before the rewrites run, so the linker can check (or explain) what they did."""

    def __init__(self, inner: Callable[[Any], Any] | None) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", "no rewrites")

    def __call__(self, fgraph: FunctionGraph) -> Any:
        if fgraph.find_feature(RewriteRecorder) is None:
            fgraph.attach_feature(RewriteRecorder(fgraph.clone()))
        return self.inner(fgraph) if self.inner is not None else None


class DebugMode(Mode):
    """A mode that checks every Op and rewrite of the compiled function on every call.

    Parameters
    ----------
    optimizer
        The rewrites, as for :class:`~theon.compile.mode.Mode` (``"fast_run"``).
    check_c_code
        Compare each node's ``perform`` with the code the default linker generates
        for it (theon's compiled code is generated Python; Theano's was C).
    check_py_code
        Accepted for Theano code: ``perform`` always runs, it is the reference.
    check_isfinite
        Raise :class:`InvalidValueError` for NaN or inf in a float output.
    linker
        The linker whose code is checked (default: the default linker).
    check_shapes
        Check each Op's ``infer_shape`` against the computed shapes.
    check_rewrites
        Check each replacement a rewrite made, and the whole unrewritten graph.
    stability_patience, check_preallocated_output, require_matching_strides
        Accepted for Theano code and ignored (theon's order is deterministic and its
        Ops allocate their outputs).

    Examples
    --------
    >>> import numpy as np, theon, theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> f = theon.function([x], 2 * x + 1, mode=DebugMode(check_isfinite=False))
    >>> f(np.array([1.0, np.inf])).tolist()
    [3.0, inf]
    """

    def __init__(
        self,
        optimizer: Any = "fast_run",
        stability_patience: int | None = None,
        check_c_code: bool | None = None,
        check_py_code: bool | None = None,
        check_isfinite: bool | None = None,
        check_preallocated_output: Iterable[str] | None = None,
        require_matching_strides: int | None = None,
        linker: Linker | str | None = None,
        check_shapes: bool = True,
        check_rewrites: bool = True,
    ) -> None:
        self.check_c_code = True if check_c_code is None else bool(check_c_code)
        self.check_isfinite = True if check_isfinite is None else bool(check_isfinite)
        self.check_shapes = check_shapes
        self.check_rewrites = check_rewrites
        inner = linker.linker if isinstance(linker, DebugLinker) else linker
        debug = DebugLinker(inner, self.check_c_code, self.check_isfinite, check_shapes,
                            check_rewrites)
        super().__init__(debug, optimizer, name="DebugMode")

    def __repr__(self) -> str:
        return f"DebugMode(optimizer={self.optimizer!r})"

    def get_rewriter(self) -> Callable[[Any], Any] | None:
        return RecordingRewriter(super().get_rewriter())

    def _with_query(self, how: str, tags: tuple[str, ...]) -> Mode:
        plain = super()._with_query(how, tags)
        return self.clone(optimizer=plain.optimizer)

    def clone(self, link_kwargs: dict[str, Any] | None = None, **kw: Any) -> Mode:
        assert isinstance(self.linker, DebugLinker)
        return DebugMode(kw.get("optimizer", self.optimizer), check_c_code=self.check_c_code,
                         check_isfinite=self.check_isfinite,
                         linker=kw.get("linker", self.linker.linker),
                         check_shapes=self.check_shapes, check_rewrites=self.check_rewrites)
