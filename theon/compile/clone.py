"""Theano's ``theano.clone``: a copy of a graph with some of its variables replaced.

>>> import theon, theon.tensor as tt
>>> x, y = tt.dscalar("x"), tt.dscalar("y")
>>> z = theon.clone(x ** 2 + 1, replace={x: y})
>>> float(z.eval({y: 3.0}))
10.0
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from theon.compile.rebuild import _pairs
from theon.compile.sharedvalue import SharedVariable, shared
from theon.graph.basic import Constant, Variable
from theon.graph.fg import describe
from theon.graph.replace import clone_get_equiv
from theon.graph.traversal import graph_inputs

__all__ = ["clone"]

#: the default of ``copy_inputs``: not given
_NOT_GIVEN: Any = object()


def _replacements(replace: Any, strict: bool) -> dict[Variable, Variable]:
    """``replace`` (a dict, a list of pairs or ``None``) as ``{old: new}``; a value that is
    not a Variable becomes a shared variable (as Theano's); with ``strict`` each new
    value is converted to its key's type (a ``TypeError`` naming both if it cannot be)."""
    if replace is not None and not isinstance(replace, (Mapping, list, tuple)):
        raise TypeError(
            f"clone: replace must be a dict or a list of (variable, new value) pairs, "
            f"got {type(replace).__name__}")
    out: dict[Variable, Variable] = {}
    for old, new in _pairs(replace, "clone: replace"):
        if not isinstance(old, Variable):
            raise TypeError(f"clone: the key {old!r} of replace is not a Variable")
        if old in out:
            raise ValueError(f"clone: {describe(old)} is replaced twice")
        if not isinstance(new, Variable):
            new = shared(new)
        if strict and new.type != old.type:
            try:
                new = old.type.filter_variable(new)
            except (TypeError, ValueError):
                raise TypeError(
                    f"clone: {describe(old)} is replaced by a variable of type {new.type}, "
                    f"not {old.type}; pass strict=False to rebuild the graph on the new "
                    "type") from None
        out[old] = new
    return out


def _copy_roots(roots: Sequence[Variable], memo: dict[Any, Any]) -> None:
    """Put a copy of each free input of ``roots`` in ``memo`` (a shared variable's copy
    shares its storage; constants stay)."""
    for r in graph_inputs(roots, blockers=set(memo)):
        if r not in memo:
            memo[r] = r if isinstance(r, Constant) and not isinstance(r, SharedVariable) \
                else r.clone()


def clone(
    output: Any,
    replace: Any = None,
    strict: bool = True,
    share_inputs: bool = True,
    copy_inputs: Any = _NOT_GIVEN,
) -> Any:
    """A copy of ``output``'s graph, with each key of ``replace`` substituted by its value.

    Parameters
    ----------
    output
        A Variable, or a list or tuple of them; the result has the same form.
    replace
        A dict or a list of ``(old, new)`` pairs.  The new values are used as they are:
        a new value that contains its own key is not substituted again.
    strict
        ``True``: each new value must have its key's type.  ``False``: the nodes above a
        new value of another type are rebuilt by their Op (so a vector may replace a
        matrix where the Ops allow it).
    share_inputs
        ``True``: the copy reads the same free inputs and shared variables as the
        original.  ``False``: they are copied too (a shared variable's copy shares its
        storage, so it always has the same value).
    copy_inputs
        Theano's old name for ``share_inputs`` (deprecated there as well).

    The user's graph is left untouched.

    >>> import theon, theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> y = theon.clone(x.sum(), share_inputs=False)
    >>> y.owner.inputs[0] is x, y.owner.inputs[0].name
    (False, 'x')
    """
    if copy_inputs is not _NOT_GIVEN:
        warnings.warn("clone: copy_inputs is share_inputs's old name; use share_inputs",
                      DeprecationWarning, stacklevel=2)
        share_inputs = bool(copy_inputs)
    single = isinstance(output, Variable)
    outputs: list[Any] = [output] if single else list(output)
    for k, o in enumerate(outputs):
        if not isinstance(o, Variable):
            raise TypeError(f"clone: output {k} is {o!r}, not a Variable")
    repl = _replacements(replace, strict)
    memo: dict[Any, Any] = {}
    if not share_inputs:  # the new values' graphs are copied too, as Theano's were
        new_values = list(repl.values())
        _copy_roots(new_values, memo)
        equiv = clone_get_equiv(list(graph_inputs(new_values)), new_values,
                                copy_inputs=False, copy_orphans=False, memo=memo)
        repl = {old: equiv.get(new, new) for old, new in repl.items()}
        memo = {}
    memo.update(repl)
    if not share_inputs:
        _copy_roots(outputs, memo)
    ins = list(graph_inputs(outputs, blockers=set(memo)))
    for i in ins:
        memo.setdefault(i, i)
    equiv = clone_get_equiv(ins, outputs, copy_inputs=False, copy_orphans=False, memo=memo)
    res = [equiv.get(o, o) for o in outputs]
    if single:
        return res[0]
    return tuple(res) if isinstance(output, tuple) else res
