"""Vector-Jacobian (:func:`Lop`) and Jacobian-vector (:func:`Rop`) products.

``Rop`` walks the graph forwards through each Op's ``R_op(inputs, eval_points)``.
When an Op on the path has no ``R_op``, the whole product is built with the
transpose trick instead: for ``g(u) = Lop(f, x, u)`` (linear in ``u``),
``Rop(f, x, v) = d (g(u) . v) / du``, which needs only ``grad``.

>>> import numpy as np, theon.tensor as tt
>>> x, v = tt.dvector("x"), tt.dvector("v")
>>> Rop(x ** 2, x, v).eval({x: np.array([1.0, 2.0]), v: np.array([1.0, 1.0])})
array([2., 4.])
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from theon.graph.basic import Variable
from theon.graph.fg import describe
from theon.graph.null_type import disconnected_type, why_null
from theon.graph.op import OpContractError
from theon.graph.replace import clone_replace
from theon.graph.traversal import ancestors, io_toposort

from ._typeutil import (
    add_terms,
    as_like,
    fit_grad,
    is_disconnected,
    is_discrete,
    is_null,
    zeros_like,
)
from .core import NullTypeGradError, _as_var_list, grad

__all__ = ["Lop", "Rop", "pullback", "pushforward"]


def _paired(points: Any, n: int, what: str) -> list[Any]:
    items = [points] if isinstance(points, Variable) or not isinstance(points, (list, tuple)) \
        else list(points)
    if len(items) != n:
        raise ValueError(f"{what}: got {len(items)} eval_points for {n} variables")
    return items


def Lop(
    f: Variable | Sequence[Variable],
    wrt: Variable | Sequence[Variable],
    eval_points: Any,
    consider_constant: Sequence[Variable] | None = None,
    disconnected_inputs: str = "raise",
    return_disconnected: str = "zero",
) -> Any:
    """Vector-Jacobian product ``eval_points^T . d f / d wrt`` (reverse mode).

    Parameters
    ----------
    f
        A Variable or a list of them (any shapes).
    wrt
        A Variable or a list of them; the result has the same structure.
    eval_points
        One variable (or value) per element of ``f``, shaped like it.
    consider_constant, disconnected_inputs, return_disconnected
        As in :func:`theon.gradient.grad`.

    Examples
    --------
    >>> import numpy as np, theon, theon.tensor as tt
    >>> x, u = tt.dvector("x"), tt.dvector("u")
    >>> y = Lop(x ** 2, x, u)
    >>> y.eval({x: np.array([1.0, 2.0]), u: np.array([1.0, 1.0])})
    array([2., 4.])
    """
    f_list, _ = _as_var_list(f, "f")
    points = _paired(eval_points, len(f_list), "Lop")
    known: dict[Variable, Variable] = {}
    for fi, p in zip(f_list, points):
        p = as_like(p, fi)
        known[fi] = p if fi not in known else add_terms([known[fi], p])
    return grad(
        None,
        wrt,
        consider_constant=consider_constant,
        disconnected_inputs=disconnected_inputs,
        known_grads=known,
        return_disconnected=return_disconnected,
    )


class _NoROp(Exception):
    """An Op on the path has no R_op."""


def _rop_forward(
    f_list: list[Variable], wrt_list: list[Variable], points: list[Variable]
) -> list[Variable | None]:
    tangents: dict[Variable, Variable] = {}
    for x, v in zip(wrt_list, points):
        if not is_discrete(x):
            tangents[x] = v
    for node in io_toposort(wrt_list, f_list):
        evs = [tangents.get(i) for i in node.inputs]
        if all(e is None for e in evs):
            continue
        nulls = [e for e in evs if e is not None and is_null(e)]
        if nulls:
            for out in node.outputs:
                tangents[out] = nulls[0]
            continue
        try:
            res = node.op.R_op(list(node.inputs), evs)
        except OpContractError as exc:
            raise _NoROp(str(node.op)) from exc
        if res is None or isinstance(res, Variable) or len(res) != len(node.outputs):
            raise ValueError(
                f"theon.Rop: R_op of Op {node.op} must return one entry per output "
                f"({len(node.outputs)}), got {res!r}; node computing {describe(node.outputs[0])}"
            )
        for out, t in zip(node.outputs, res):
            if t is None or is_disconnected(t) or is_discrete(out):
                continue
            if not isinstance(t, Variable):
                raise TypeError(f"theon.Rop: R_op of Op {node.op} returned {t!r}")
            if not is_null(t):
                t = fit_grad(t, out, f"the R_op of Op {node.op}")
            tangents[out] = t
    return [tangents.get(fi) for fi in f_list]


def _rop_transpose(
    f_list: list[Variable], wrt_list: list[Variable], points: list[Variable]
) -> list[Variable | None]:
    known: dict[Variable, Variable] = {}
    for fi in f_list:
        if fi not in known:
            known[fi] = fi.type()
    gs = grad(
        None,
        wrt_list,
        known_grads=known,
        disconnected_inputs="ignore",
        return_disconnected="Disconnected",
        null_gradients="return",
    )
    seeds: dict[Variable, Variable] = {}
    for g, v in zip(gs, points):
        if g is None or is_disconnected(g):
            continue
        if is_null(g):
            raise NullTypeGradError(f"theon.Rop: {why_null(g)}")
        seeds[g] = v if g not in seeds else add_terms([seeds[g], v])
    if not seeds:
        return [None] * len(f_list)
    uniq = list(dict.fromkeys(known.values()))
    jv = grad(
        None,
        uniq,
        known_grads=seeds,
        disconnected_inputs="ignore",
        return_disconnected="None",
    )
    by_u = dict(zip(uniq, jv))
    res = [by_u[known[fi]] for fi in f_list]
    # the result is linear in u only through shapes, if at all: give u a value of f's shape
    live = [r for r in res if r is not None]
    anc = set(ancestors(live))
    repl = {u: zeros_like(fi) for fi, u in known.items() if u in anc}
    if repl:
        new = clone_replace(live, repl)
        it = iter(new)
        res = [None if r is None else next(it) for r in res]
    return res


def Rop(
    f: Variable | Sequence[Variable],
    wrt: Variable | Sequence[Variable],
    eval_points: Any,
    disconnected_outputs: str = "raise",
    return_disconnected: str = "zero",
    use_op_rop_implementation: bool = True,
) -> Any:
    """Jacobian-vector product ``d f / d wrt . eval_points`` (forward mode).

    Each Op's ``R_op`` is used; if an Op on the path lacks one, the product is
    built from gradients (the transpose trick), which is exact too but builds a
    second-order graph.

    Parameters
    ----------
    f
        A Variable or a list of them; the result has the same structure.
    wrt
        A Variable or a list of them.
    eval_points
        One variable (or value) per element of ``wrt``, shaped like it.
    disconnected_outputs
        ``'raise'``, ``'warn'`` or ``'ignore'`` when an element of ``f`` does not
        depend on ``wrt``.
    return_disconnected
        The result for such an element: ``'zero'`` (zeros like it) or ``'None'``.
    use_op_rop_implementation
        ``False`` always uses the transpose trick.

    Examples
    --------
    >>> import numpy as np, theon, theon.tensor as tt
    >>> x, v = tt.dvector("x"), tt.dvector("v")
    >>> y = Rop(tt.exp(x), x, v)
    >>> y.eval({x: np.zeros(2), v: np.array([1.0, 2.0])})
    array([1., 2.])
    """
    f_list, single = _as_var_list(f, "f")
    wrt_list, _ = _as_var_list(wrt, "wrt")
    points = [
        fit_grad(as_like(p, x), x, f"Rop eval_points[{k}]") if not is_discrete(x) else as_like(p, x)
        for k, (x, p) in enumerate(zip(wrt_list, _paired(eval_points, len(wrt_list), "Rop")))
    ]
    res: list[Variable | None]
    if use_op_rop_implementation:
        try:
            res = _rop_forward(f_list, wrt_list, points)
        except _NoROp:
            res = _rop_transpose(f_list, wrt_list, points)
    else:
        res = _rop_transpose(f_list, wrt_list, points)
    out: list[Any] = []
    for k, (fi, r) in enumerate(zip(f_list, res)):
        if r is not None and is_null(r):
            raise NullTypeGradError(
                f"theon.Rop: the product for f[{k}] {describe(fi)} is needed but "
                f"{why_null(r)}"
            )
        if r is None:
            msg = f"theon.Rop: f[{k}] {describe(fi)} does not depend on wrt"
            if disconnected_outputs == "raise":
                raise ValueError(msg + "; pass disconnected_outputs='ignore' to get zeros")
            if disconnected_outputs == "warn":
                warnings.warn(msg, stacklevel=2)
            elif disconnected_outputs != "ignore":
                raise ValueError(
                    "disconnected_outputs must be 'raise', 'warn' or 'ignore', "
                    f"not {disconnected_outputs!r}"
                )
            r = zeros_like(fi) if return_disconnected == "zero" else None
        out.append(r)
    if single:
        return out[0]
    return tuple(out) if isinstance(f, tuple) else out


#: PyTensor 3's spellings of ``return_disconnected`` and theon's (``grad``'s).
_DISCONNECTED = {"zero": "zero", "none": "None", "disconnected": "Disconnected"}


def _disconnected(how: str, where: str) -> str:
    if how not in _DISCONNECTED and how not in _DISCONNECTED.values():
        raise ValueError(f"{where}: return_disconnected must be 'zero', 'none' or "
                         f"'disconnected', not {how!r}")
    return _DISCONNECTED.get(how, how)


def pullback(
    f: Variable | Sequence[Variable],
    wrt: Variable | Sequence[Variable],
    cotangents: Any,
    consider_constant: Sequence[Variable] | None = None,
    disconnected_inputs: str = "raise",
    return_disconnected: str = "zero",
) -> Any:
    """The vector-Jacobian product ``sum_i cotangents[i] . d f[i] / d wrt[j]`` for each
    ``wrt[j]`` (PyTensor 3's name of :func:`Lop`, with its arguments).

    ``return_disconnected`` is ``'zero'``, ``'none'`` or ``'disconnected'`` (a
    ``DisconnectedType`` variable) for a ``wrt`` that ``f`` does not depend on (with
    ``disconnected_inputs`` other than ``'raise'``).

    >>> import numpy as np, theon.tensor as tt
    >>> x, u = tt.dvector("x"), tt.dvector("u")
    >>> pullback(tt.sin(x), x, u).eval({x: np.zeros(2), u: np.array([2.0, 3.0])})
    array([2., 3.])
    """
    how = _disconnected(return_disconnected, "pullback")
    return Lop(f, wrt, cotangents, consider_constant, disconnected_inputs, how)


def pushforward(
    f: Variable | Sequence[Variable],
    wrt: Variable | Sequence[Variable],
    tangents: Any,
    disconnected_outputs: str = "raise",
    return_disconnected: str = "zero",
    use_op_pushforward: bool = False,
) -> Any:
    """The Jacobian-vector product ``sum_j d f[i] / d wrt[j] . tangents[j]`` for each
    ``f[i]`` (PyTensor 3's name of :func:`Rop`, with its arguments).

    By default the product is built by applying the pullback twice (the transpose
    trick, as PyTensor 3 does); ``use_op_pushforward=True`` pushes the tangents through
    each Op's ``R_op``/``pushforward`` where every Op on the way has one.
    ``return_disconnected``: as :func:`pullback`'s, for an ``f[i]`` that does not depend
    on ``wrt`` (with ``disconnected_outputs`` other than ``'raise'``).

    >>> import numpy as np, theon.tensor as tt
    >>> x, v = tt.dvector("x"), tt.dvector("v")
    >>> pushforward(x ** 2, x, v).eval({x: np.array([1.0, 2.0]), v: np.array([1.0, 1.0])})
    array([2., 4.])
    """
    how = _disconnected(return_disconnected, "pushforward")
    res = Rop(f, wrt, tangents, disconnected_outputs, "zero" if how == "zero" else "None",
              use_op_rop_implementation=use_op_pushforward)
    if how != "Disconnected":
        return res
    if isinstance(res, Variable) or res is None:
        return disconnected_type() if res is None else res
    fixed = [disconnected_type() if r is None else r for r in res]
    return tuple(fixed) if isinstance(res, tuple) else fixed
