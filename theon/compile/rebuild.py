"""Preparing a function's graph: ``givens`` substitution, ``updates`` and shared inputs.

:func:`rebuild` checks and normalizes ``updates`` and ``givens``, substitutes the
givens into copies of the outputs and update expressions (the user's graph is left
alone), adds the shared variables' default updates, and finds the shared variables
the function uses (its implicit inputs).

>>> from theon.compile.sharedvalue import shared
>>> from theon.graph.type import Generic
>>> s = shared(1, name="s")
>>> r = rebuild([s], updates=[(s, s)])
>>> r.shared_inputs == [s], r.updates[s] is s
(True, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from theon.compile.sharedvalue import SharedVariable
from theon.graph.basic import Constant, Variable
from theon.graph.fg import describe
from theon.graph.replace import clone_replace
from theon.graph.traversal import graph_inputs

__all__ = ["Rebuilt", "normalize_givens", "normalize_updates", "rebuild"]


@dataclass
class Rebuilt:
    """The graph a function compiles, after givens and updates are resolved."""

    outputs: list[Variable]
    updates: dict[SharedVariable, Variable]
    extra: list[Variable | None]
    shared_inputs: list[SharedVariable] = field(default_factory=list)


def _pairs(x: Any, what: str) -> list[tuple[Any, Any]]:
    """``x`` (a mapping or an iterable of pairs) as a list of pairs."""
    if x is None:
        return []
    if isinstance(x, Mapping):
        return list(x.items())
    if isinstance(x, (str, bytes)) or not isinstance(x, Iterable):
        raise TypeError(f"{what} must be a dict or a list of (variable, value) pairs, got {x!r}")
    out = []
    for k, p in enumerate(x):
        if not isinstance(p, (tuple, list)) or len(p) != 2:
            raise TypeError(f"{what}: entry {k} must be a (variable, value) pair, got {p!r}")
        out.append((p[0], p[1]))
    return out


def _convert(target: Variable, value: Any, what: str) -> Variable:
    """``value`` as a Variable of ``target``'s type, or a TypeError naming both."""
    if not isinstance(value, Variable):
        try:
            return target.type.filter_variable(value)
        except (TypeError, ValueError) as e:
            raise TypeError(
                f"{what} for {describe(target)}: the value {value!r} does not fit its type "
                f"{target.type}: {e}"
            ) from None
    if value.type == target.type:
        return value
    try:
        return target.type.filter_variable(value)
    except (TypeError, ValueError):
        pass
    raise TypeError(
        f"{what} for {describe(target)}: the new value {describe(value)} has type "
        f"{value.type}, but {target} has type {target.type}; the types must match "
        "(cast the new value, or make the static shapes agree)"
    )


def normalize_updates(updates: Any) -> dict[SharedVariable, Variable]:
    """Check ``updates`` (dict or pairs) and convert each new value to its variable's type.

    >>> from theon.compile.sharedvalue import shared
    >>> s = shared("a", name="s")
    >>> normalize_updates([(s, "b")])[s].data
    'b'
    """
    out: dict[SharedVariable, Variable] = {}
    for var, new in _pairs(updates, "updates"):
        if not isinstance(var, SharedVariable):
            what = describe(var) if isinstance(var, Variable) else repr(var)
            raise TypeError(
                f"updates: {what} is not a shared variable; only shared variables can be "
                "updated (for an input that keeps state, use In(x, value=..., update=...))"
            )
        if var in out:
            raise ValueError(f"updates: shared variable {describe(var)} is updated twice")
        out[var] = _convert(var, new, "update")
    return out


def normalize_givens(givens: Any) -> dict[Variable, Variable]:
    """Check ``givens`` (dict or pairs) and convert each replacement to its key's type.

    >>> from theon.graph.type import Generic
    >>> x = Generic()("x")
    >>> normalize_givens({x: 3})[x].data
    3
    """
    out: dict[Variable, Variable] = {}
    for var, new in _pairs(givens, "givens"):
        if not isinstance(var, Variable):
            raise TypeError(f"givens: key {var!r} is not a Variable")
        if isinstance(var, Constant):
            raise TypeError(f"givens: key {describe(var)} is a constant and cannot be replaced")
        if var in out:
            raise ValueError(f"givens: {describe(var)} is replaced twice")
        out[var] = _convert(var, new, "givens replacement")
    return out


def _shared_in(
    graphs: Sequence[Variable | None], cuts: set[Variable] | None = None
) -> list[SharedVariable]:
    """The shared variables ``graphs`` depend on (not above ``cuts``), in Theano's order
    of a function's implicit inputs: the first graph's first."""
    roots = [g for g in graphs if g is not None]
    return [
        v for v in graph_inputs(roots, blockers=cuts, in_root_order=True)
        if isinstance(v, SharedVariable)
    ]


def rebuild(
    outputs: Sequence[Variable],
    updates: Any = None,
    givens: Any = None,
    no_default_updates: bool | Sequence[Variable] = False,
    extra: Sequence[Variable | None] = (),
    explicit_inputs: Sequence[Variable] = (),
) -> Rebuilt:
    """Substitute ``givens`` and collect updates and shared inputs.

    ``extra`` are further expressions (updates of stateful ``In``) that get the
    same substitution.  Default updates of shared variables are added unless
    ``no_default_updates`` is true (or lists the variable).  An explicit input
    that is computed (it has an owner) is a cut: the givens do not reach above
    it, and the shared variables only it depends on are not inputs.

    >>> from theon.compile.sharedvalue import shared
    >>> s = shared(0, name="s"); s.default_update = s
    >>> rebuild([s]).updates == {s: s}
    True
    """
    upd = normalize_updates(updates)
    giv = normalize_givens(givens)
    for v in (*explicit_inputs, *outputs):
        if not hasattr(v.type, "filter_variable"):  # an opaque type (theon.Variable("t"))
            raise TypeError(f"theon.function: {describe(v)} has the type {v.type!r}, which is "
                            "not a theon Type, so it cannot be computed")
    for v in explicit_inputs:
        if v in giv:
            raise ValueError(
                f"givens: {describe(v)} is an input of the function and also replaced by "
                "givens; remove it from one of them"
            )
    if no_default_updates is True:
        skip_default: set[Variable] | None = None
    else:
        skip_default = set(no_default_updates or ())

    # one copy of each node for outputs, updates and default updates alike; a
    # computed explicit input is kept as it is (the copy stops there)
    cuts = {v for v in explicit_inputs if v.owner is not None}
    memo: dict[Any, Any] = {v: v for v in cuts}

    def substitute(vs: list[Variable]) -> list[Variable]:
        if not giv or not vs:
            return vs
        return list(clone_replace(vs, giv, memo=memo))

    extra_vars = [e for e in extra if e is not None]
    upd_keys = list(upd)
    subst = substitute(list(outputs) + [upd[k] for k in upd_keys] + extra_vars)
    n_out = len(outputs)
    new_outputs = subst[:n_out]
    new_updates = dict(zip(upd_keys, subst[n_out:n_out + len(upd_keys)]))
    it = iter(subst[n_out + len(upd_keys):])
    new_extra = [None if e is None else next(it) for e in extra]

    # default updates, which may use further shared variables (with their own defaults)
    roots = new_outputs + list(new_updates.values()) + new_extra
    shared_inputs: list[SharedVariable] | None = None
    if skip_default is not None:
        done: set[SharedVariable] = set()
        pending = _shared_in(roots, cuts)
        shared_inputs = list(pending)  # unless a default update adds more
        n_updates = len(new_updates)
        while pending:
            found: list[Variable] = []
            for sv in pending:
                if sv in done:
                    continue
                done.add(sv)
                du = getattr(sv, "default_update", None)
                if du is None or sv in new_updates or sv in skip_default:
                    continue
                du_var = substitute([_convert(sv, du, "default_update")])[0]
                new_updates[sv] = du_var
                found.append(du_var)
            pending = [s for s in _shared_in(found, cuts) if s not in done]
        if len(new_updates) != n_updates:
            shared_inputs = None

    if shared_inputs is None:
        shared_inputs = _shared_in(new_outputs + list(new_updates.values()) + new_extra, cuts)
    seen = set(shared_inputs)
    for sv in new_updates:
        if sv not in seen:
            shared_inputs.append(sv)
            seen.add(sv)
    return Rebuilt(new_outputs, new_updates, new_extra, shared_inputs)
