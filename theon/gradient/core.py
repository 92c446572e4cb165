"""Reverse-mode differentiation: :func:`grad`, the backward walk over Apply nodes.

The walk visits the nodes between the variables to differentiate (``wrt``) and
the seeds (``cost`` and the keys of ``known_grads``) in reverse topological
order.  Each node's Op gives, through ``L_op(inputs, outputs, output_grads)``
(by default its seed-004 ``grad(inputs, output_grads)``), the gradient of the
cost with respect to its inputs.  A variable used by several nodes receives one
term from each; the terms are summed once.

>>> import theon.tensor as tt
>>> x = tt.dscalar("x")
>>> float(grad(x ** 3, x).eval({x: 2.0}))
12.0
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

import theon.tensor as tt
from theon.config import config
from theon.graph.basic import Apply, Constant, Variable
from theon.graph.collector import gc_paused
from theon.graph.fg import describe
from theon.graph.null_type import disconnected_type, why_null
from theon.graph.op import GRADIENT_OF, OpContractError, making_nodes_once
from theon.graph.traversal import ancestors, graph_inputs, io_toposort
from theon.progress import phase as progress_phase
from theon.progress import task as progress_task

from ._typeutil import (
    add_terms,
    as_like,
    fit_grad,
    is_disconnected,
    is_discrete,
    is_null,
    is_tensor,
    ones_like,
    zeros_like,
)
from .stable import stable_seeds

__all__ = [
    "DisconnectedInputError",
    "GradNotImplementedError",
    "NullTypeGradError",
    "connection_pattern",
    "grad",
]


class DisconnectedInputError(ValueError):
    """A variable to differentiate with respect to does not influence the cost.

    >>> import theon.tensor as tt
    >>> x, y = tt.dscalar("x"), tt.dscalar("y")
    >>> try:
    ...     grad(x ** 2, y)
    ... except DisconnectedInputError:
    ...     print("y does not influence the cost")
    y does not influence the cost
    """


class NullTypeGradError(TypeError):
    """A needed gradient is undefined or not implemented (a NullType gradient).

    >>> issubclass(NullTypeGradError, TypeError)
    True
    """


class GradNotImplementedError(OpContractError):
    """An Op on the differentiated path defines neither ``grad`` nor ``L_op``.

    >>> issubclass(GradNotImplementedError, NotImplementedError)
    True
    """


def connection_pattern(node: Apply) -> list[list[bool]]:
    """``pattern[i][j]``: whether output ``j`` of ``node`` depends on input ``i``.

    Ops may define ``connection_pattern(node)``; the default is all ``True``.

    >>> import theon.tensor as tt
    >>> x, y = tt.dscalar("x"), tt.dscalar("y")
    >>> connection_pattern((x * y).owner)
    [[True], [True]]
    """
    nin, nout = len(node.inputs), len(node.outputs)
    fn = getattr(node.op, "connection_pattern", None)
    if fn is None:
        return [[True] * nout for _ in range(nin)]
    pattern = fn(node)
    if len(pattern) != nin or any(len(row) != nout for row in pattern):
        raise ValueError(
            f"connection_pattern of {node.op} must be a list of {nin} lists of {nout} bools, "
            f"got {pattern!r}"
        )
    return [[bool(c) for c in row] for row in pattern]


def _node_where(node: Apply) -> str:
    return describe(node.outputs[0]) if node.outputs else str(node)


def _check_cost(cost: Variable) -> None:
    ndim = getattr(cost.type, "ndim", None)
    if ndim is not None and ndim != 0:
        shape = getattr(cost.type, "shape", None)
        shape_text = f", static shape {tuple(shape)}" if shape is not None else ""
        raise TypeError(
            f"theon.grad: the cost must be a scalar (ndim 0), but {describe(cost)} has "
            f"ndim {ndim}{shape_text}; reduce it first (e.g. cost.sum()) or seed the walk "
            "with known_grads"
        )


def _as_var_list(wrt: Any, name: str) -> tuple[list[Variable], bool]:
    """``wrt`` (argument ``name``: a Variable or a list or tuple of them) as a list, and
    whether it was a single Variable."""
    single = isinstance(wrt, Variable)
    if not single and (isinstance(wrt, (str, bytes)) or not isinstance(wrt, Iterable)):
        raise TypeError(
            f"theon.grad: {name} must be a Variable or a list or tuple of Variables, got "
            f"{type(wrt).__name__} {wrt!r}"
        )
    items = [wrt] if single else list(wrt)
    for k, v in enumerate(items):
        if not isinstance(v, Variable):
            raise TypeError(
                f"theon.grad: the {name} elements must be Variables, but element {k} is "
                f"{type(v).__name__} {v!r}"
            )
    return items, single


def _call_l_op(node: Apply, output_grads: list[Variable]) -> list[Any]:
    op = node.op
    try:
        res = op.L_op(list(node.inputs), list(node.outputs), output_grads)
    except OpContractError as exc:
        if isinstance(exc, GradNotImplementedError):
            raise
        raise GradNotImplementedError(
            f"theon.grad: Op {op} ({type(op).__name__}) defines neither grad nor L_op, but "
            f"the gradient flows through its node computing {_node_where(node)}. Define "
            f"{type(op).__name__}.grad(inputs, output_grads), or block the path with "
            "consider_constant / disconnected_grad"
        ) from exc
    if res is None or isinstance(res, Variable) or len(res) != len(node.inputs):
        got = "None" if res is None else (
            "a Variable" if isinstance(res, Variable) else f"{len(res)} entries"
        )
        raise ValueError(
            f"theon.grad: the grad of Op {op} must return one entry per input "
            f"({len(node.inputs)}), got {got}; node computing {_node_where(node)}"
        )
    return list(res)


_ALL_CONNECTED: dict[tuple[int, int], list[list[bool]]] = {}


def _pattern(node: Apply) -> list[list[bool]]:
    """:func:`connection_pattern`, sharing the all-True default (read only)."""
    if getattr(node.op, "connection_pattern", None) is not None:
        return connection_pattern(node)
    key = (len(node.inputs), len(node.outputs))
    pat = _ALL_CONNECTED.get(key)
    if pat is None:
        pat = _ALL_CONNECTED[key] = [[True] * key[1] for _ in range(key[0])]
    return pat


class _Backprop:
    """State of one backward walk."""

    def __init__(
        self,
        seeds: dict[Variable, Variable],
        wrt: Sequence[Variable],
        consider_constant: Iterable[Variable],
    ) -> None:
        self.blockers = blockers = set(consider_constant)
        self.wrt = set(wrt)
        self.order = io_toposort(self.blockers, list(seeds))
        # variables that depend (differentiably) on some wrt
        fwd: set[Variable] = {v for v in wrt if not is_discrete(v)}
        self.patterns: dict[Apply, list[list[bool]]] = {}
        for node in self.order:
            ins = [i in fwd and i not in blockers for i in node.inputs]
            if True not in ins:
                continue
            pat = _pattern(node)
            self.patterns[node] = pat
            for j, out in enumerate(node.outputs):
                if not is_discrete(out) and any(
                    flag and row[j] for flag, row in zip(ins, pat)
                ):
                    fwd.add(out)
        self.fwd = fwd
        self.terms: dict[Variable, list[Variable]] = {}
        self.reached: set[Variable] = set()
        self.totals: dict[Variable, Variable | None] = {}
        self.null_origin: dict[Variable, Apply] = {}
        for v, g in seeds.items():
            self.reached.add(v)
            self.terms.setdefault(v, []).append(g)

    def total(self, v: Variable) -> Variable | None:
        """The summed gradient of ``v`` (None when nothing reached it)."""
        if v in self.totals:
            return self.totals[v]
        terms = [t for t in self.terms.get(v, ()) if not is_disconnected(t)]
        nulls = [t for t in terms if is_null(t)]
        if nulls:
            res: Variable | None = nulls[0]
        elif terms:
            res = add_terms(terms)
        elif v in self.reached:
            res = zeros_like(v)
        else:
            res = None
        self.totals[v] = res
        return res

    def run(self, memo: dict[tuple[Any, ...], Apply] | None = None) -> None:
        """Walk the nodes backwards, filling ``terms``.

        Every node made for a forward node (the sums of its outputs' gradients, and
        its own gradient) records that node, for ``theon.explain`` and error messages
        (``GRADIENT_OF``, read by ``Op.__call__``).  Equal nodes are made once
        (``memo``, shared with an earlier walk of the same cost: see
        ``theon.graph.op.NODE_MEMO``).
        """
        outer = GRADIENT_OF[0]  # (a grad inside an Op's gradient: restored after)
        try:
            with making_nodes_once({} if memo is None else memo):
                self._run()
        finally:
            GRADIENT_OF[0] = outer

    def _run(self) -> None:
        reached, fwd, blockers, patterns = self.reached, self.fwd, self.blockers, self.patterns
        progress = progress_phase("backprop", len(self.order))
        for node in reversed(self.order):
            if progress is not None:
                progress.advance()
            pat = patterns.get(node)
            if pat is None:
                continue
            GRADIENT_OF[0] = node
            outs = node.outputs
            ograds = [self.total(o) if o in reached else None for o in outs]
            # no gradient flows through integer/boolean outputs
            live = {
                j: g
                for j, (o, g) in enumerate(zip(outs, ograds))
                if g is not None and not is_disconnected(g) and not is_discrete(o)
            }
            live_js = list(live)
            if not live_js:
                continue
            if len(live_js) == 1:
                j0 = live_js[0]
                need = [
                    k
                    for k, inp in enumerate(node.inputs)
                    if inp in fwd and inp not in blockers and pat[k][j0]
                ]
            else:
                need = [
                    k
                    for k, inp in enumerate(node.inputs)
                    if inp in fwd and inp not in blockers and any(pat[k][j] for j in live_js)
                ]
            if not need:
                continue
            nulls = [j for j in live_js if is_null(live[j])]
            if nulls:
                for k in need:
                    for j in nulls:
                        if pat[k][j]:
                            self._add(node.inputs[k], live[j])
                            break
                continue
            full: list[Variable] = []
            for j, o in enumerate(outs):
                if j in live:
                    full.append(live[j])
                elif is_discrete(o):
                    full.append(disconnected_type())
                else:
                    full.append(zeros_like(o))
            res = _call_l_op(node, full)
            for k in need:
                inp = node.inputs[k]
                reached.add(inp)
                g = res[k]
                if g is None or is_disconnected(g):
                    continue
                if not isinstance(g, Variable):
                    raise TypeError(
                        f"theon.grad: the grad of Op {node.op} returned {type(g).__name__} "
                        f"{g!r} for input {k}; expected a Variable, None or a marker from "
                        "theon.graph.null_type"
                    )
                if is_null(g):
                    self.null_origin.setdefault(g, node)
                elif g.type != inp.type:
                    g = fit_grad(g, inp, f"the grad of Op {node.op} (input {k})")
                self._add(inp, g)

    def _add(self, v: Variable, g: Variable) -> None:
        self.reached.add(v)
        terms = self.terms.get(v)
        if terms is None:
            self.terms[v] = [g]
        else:
            terms.append(g)


def _handle_disconnected(
    v: Variable, k: int, mode: str, return_disconnected: str, cost_text: str
) -> Variable | None:
    why = (
        "it has an integer/boolean dtype, so no gradient flows into it"
        if is_discrete(v)
        else "the cost does not depend on it (through differentiable paths)"
    )
    msg = (
        f"theon.grad: wrt[{k}] {describe(v)} is disconnected from {cost_text}: {why}. "
        "Pass disconnected_inputs='ignore' (or 'warn') to get "
        f"{'zeros' if return_disconnected == 'zero' else return_disconnected} for it"
    )
    if mode == "raise":
        raise DisconnectedInputError(msg)
    if mode == "warn":
        warnings.warn(msg, stacklevel=4)
    elif mode != "ignore":
        raise ValueError(f"disconnected_inputs must be 'raise', 'warn' or 'ignore', not {mode!r}")
    if return_disconnected == "zero":
        return zeros_like(v)
    if return_disconnected == "None":
        return None
    if return_disconnected == "Disconnected":
        return disconnected_type()
    raise ValueError(
        "return_disconnected must be 'zero', 'None' or 'Disconnected', "
        f"not {return_disconnected!r}"
    )


def grad(
    cost: Variable | None,
    wrt: Variable | Sequence[Variable],
    consider_constant: Iterable[Variable] | None = None,
    disconnected_inputs: str = "raise",
    known_grads: Mapping[Variable, Any] | None = None,
    return_disconnected: str = "zero",
    null_gradients: str = "raise",
) -> Any:
    """Symbolic gradient of ``cost`` with respect to ``wrt``.

    Parameters
    ----------
    cost
        A scalar (ndim 0) variable, or ``None`` when ``known_grads`` seeds the walk.
    wrt
        A Variable or a list/tuple of them; the result has the same structure.
    consider_constant
        Variables treated as constants: no gradient flows through them to their inputs.
    disconnected_inputs
        What to do when an element of ``wrt`` does not influence the cost:
        ``'raise'``, ``'warn'`` or ``'ignore'``.  An integer/boolean tensor ``wrt``
        that the cost depends on gets zeros of dtype ``config.floatX`` (no gradient
        flows into integers), as in Theano and PyTensor.
    known_grads
        ``{variable: gradient}``: extra seeds of the walk (added to the cost's).
    return_disconnected
        The result for a disconnected ``wrt``: ``'zero'`` (zeros like it), ``'None'``,
        or ``'Disconnected'`` (a DisconnectedType variable).
    null_gradients
        ``'raise'`` (default) when a needed gradient is undefined or not implemented;
        ``'return'`` to return the NullType variable instead.

    Returns
    -------
    Variable or list of Variable
        ``d cost / d wrt``, each with the type of its ``wrt``.

    Notes
    -----
    The cost is differentiated in its *stabilized* form: the stabilize rewrites
    (``log(1 + exp(x)) -> softplus(x)``, ``log(softmax(x)) -> log_softmax(x)``, ...)
    run on a private copy of the graph first, so the gradient of an expression
    that overflows or cancels when written naively is finite and accurate
    wherever the stable form's is.  The ``wrt`` and ``consider_constant``
    variables are kept as they are: a stabilization never looks through them.

    Examples
    --------
    >>> import theon, theon.tensor as tt
    >>> x = tt.dscalar("x")
    >>> g = theon.grad(x ** 3, x)
    >>> float(g.eval({x: 2.0}))
    12.0
    """
    if null_gradients not in ("raise", "return"):
        raise ValueError(f"null_gradients must be 'raise' or 'return', not {null_gradients!r}")
    what = f"grad of {cost.name}" if isinstance(cost, Variable) and cost.name else "grad"
    with gc_paused(), progress_task(what):
        return _grad(
            cost, wrt, consider_constant, disconnected_inputs, known_grads,
            return_disconnected, null_gradients,
        )


def _grad(
    cost: Variable | None,
    wrt: Variable | Sequence[Variable],
    consider_constant: Iterable[Variable] | None,
    disconnected_inputs: str,
    known_grads: Mapping[Variable, Any] | None,
    return_disconnected: str,
    null_gradients: str,
) -> Any:
    """The body of :func:`grad` (``null_gradients`` checked, collector held back)."""
    wrt_list, single = _as_var_list(wrt, "wrt")
    seeds: dict[Variable, Variable] = {}
    if cost is not None:
        if not isinstance(cost, Variable):
            raise TypeError(f"theon.grad: cost must be a Variable or None, got {cost!r}")
        if known_grads is None:
            _check_cost(cost)
        seeds[cost] = ones_like(cost)
    elif not known_grads:
        raise ValueError("theon.grad: cost is None, so known_grads must give the seeds")
    for v, g in (known_grads or {}).items():
        if not isinstance(v, Variable):
            raise TypeError(f"theon.grad: known_grads keys must be Variables, got {v!r}")
        g = as_like(g, v)
        if not (is_null(g) or is_disconnected(g)):
            g = fit_grad(g, v, f"known_grads[{v}]")
        if v in seeds:
            seeds[v] = add_terms([seeds[v], g])
        else:
            seeds[v] = g
    blockers = list(consider_constant or ())
    bp = _shared_walk(cost, wrt_list) if not known_grads and not blockers else None
    if bp is None:
        memo = _first_memo(cost) if not known_grads and not blockers else None
        if memo is not None and cost is not None:  # (the seed too: the shared walk's is equal)
            seeds = {cost: _seed(cost, memo)}
        # differentiate the stable form of the cost (see theon.gradient.stable)
        seeds = stable_seeds(seeds, [*wrt_list, *blockers])
        progress_phase("order")
        bp = _Backprop(seeds, wrt_list, blockers)
        bp.run(memo)
    cost_text = describe(cost) if cost is not None else "the known_grads seeds"
    out: list[Any] = []
    depends: set[Variable] | None = None
    for k, v in enumerate(wrt_list):
        if is_discrete(v) and is_tensor(v) and not getattr(v.type, "never_differentiable", False):
            # an integer input the cost depends on: float zeros, as Theano and PyTensor give
            if depends is None:
                depends = set(ancestors(list(seeds), blockers))
            if v in depends:
                out.append(tt.zeros_like(v, dtype=config.floatX))
                continue
        g = bp.total(v) if (v in bp.reached and not is_discrete(v)) else None
        if g is None or (is_disconnected(g)):
            out.append(
                _handle_disconnected(v, k, disconnected_inputs, return_disconnected, cost_text)
            )
            continue
        if is_null(g) and null_gradients == "raise":
            origin = bp.null_origin.get(g)
            where = f" (returned for the node computing {_node_where(origin)})" if origin else ""
            raise NullTypeGradError(
                f"theon.grad: the gradient with respect to wrt[{k}] {describe(v)} is needed "
                f"but {why_null(g)}{where}"
            )
        out.append(g)
    if cost is not None and cost.name:
        keep = {id(v) for v in (cost, *wrt_list, *(known_grads or {}).values())}
        _name_results(cost.name, wrt_list, out, keep)
    if single:
        return out[0]
    return tuple(out) if isinstance(wrt, tuple) else out


#: ``cost.tag`` keys (private: never pickled; never copied with the tag: see
#: ``theon.graph.basic.OWN_TAG_KEYS``) of the shared walk of a cost (see _shared_walk),
#: and of the nodes its first ``grad`` made (the shared walk, made the second time,
#: makes each of them once more otherwise).  Each entry is ``(cost, ...)``: a tag
#: copied otherwise (``copy.copy``) must not make the entry another variable's.
#: Kept on the cost, not in a weak-keyed table: an entry reads the cost, and would keep
#: it alive forever there.
_WALK_KEY = "_grad_walk"
_ASKED_KEY = "_grad_asked"


def _entry(cost: Variable, key: str) -> tuple[bool, Any]:
    """Whether ``cost`` has its own entry under ``key`` in its tag, and its value (a
    copied entry, a copy's, is dropped)."""
    d = cost.tag.__dict__
    got = d.get(key)
    if got is None:
        return False, None
    if got[0] is not cost:
        del d[key]
        return False, None
    return True, got[1]


def _first_memo(cost: Variable | None) -> dict[tuple[Any, ...], Apply] | None:
    """The node memo of the first ``grad`` of ``cost``, kept for its shared walk."""
    if cost is None:
        return None
    found, memo = _entry(cost, _ASKED_KEY)
    return cast("dict[tuple[Any, ...], Apply] | None", memo) if found else None


def _seed(cost: Variable, memo: dict[tuple[Any, ...], Apply]) -> Variable:
    """``ones_like(cost)``, made once per ``memo``."""
    with making_nodes_once(memo):
        return ones_like(cost)


def _shared_walk(cost: Variable | None, wrt: Sequence[Variable]) -> _Backprop | None:
    """The backward walk of ``cost`` to all its float graph inputs, made the second
    time ``cost`` is differentiated and kept, when every ``wrt`` is such an input;
    else None (the first time: one ``grad`` call walks to its own ``wrt`` only).

    Reverse mode gives the gradient of every input in one walk, and a walk costs the
    whole graph: PyMC's ``gradient`` calls ``grad(cost, v)`` once per variable ``v``,
    which walked the whole graph each time (quadratic in the model's size). A walk
    that fails (an Op without a gradient on some input's path) is not kept: each call
    then walks to its own ``wrt`` only, and reports errors for those.
    """
    if cost is None or cost.owner is None or not wrt or not all(
            v.owner is None and is_tensor(v) and not is_discrete(v) for v in wrt):
        return None
    found, bp = _entry(cost, _WALK_KEY)
    if found:
        if bp is None or not all(v in bp.wrt for v in wrt):
            return None
        return cast(_Backprop, bp)
    asked, memo = _entry(cost, _ASKED_KEY)
    if not asked:  # a cost differentiated once walks to its own wrt only
        cost.tag.__dict__[_ASKED_KEY] = (cost, {})
        return None
    roots = [v for v in graph_inputs([cost])
             if v.owner is None and not isinstance(v, Constant) and is_tensor(v)
             and not is_discrete(v)]
    if not all(v in roots for v in wrt):
        return None
    del cost.tag.__dict__[_ASKED_KEY]  # (its memo serves this walk, then goes)
    try:
        seeds = stable_seeds({cost: _seed(cost, memo)}, roots)
        progress_phase("order")
        bp = _Backprop(seeds, roots, [])
        bp.run(memo)
    except Exception:
        # the per-call walk reports the error, if its own wrt meets it
        cost.tag.__dict__[_WALK_KEY] = (cost, None)
        return None
    cost.tag.__dict__[_WALK_KEY] = (cost, bp)
    return bp


def _name_results(cost_name: str, wrt: Sequence[Variable], out: Sequence[Any],
                  keep: set[int]) -> None:
    """Name each gradient ``(dcost/dW)`` after the cost and its variable, as Theano did,
    where both are named; a result that already has a name, a constant, or a variable
    the caller passed in (a ``wrt``, the cost, a ``known_grads`` value) keeps its name."""
    for v, g in zip(wrt, out):
        if (v.name and isinstance(g, Variable) and g.owner is not None and g.name is None
                and id(g) not in keep):
            g.name = f"(d{cost_name}/d{v.name})"
