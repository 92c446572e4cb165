"""Small helpers of :mod:`theon.scan`: :class:`until` and the parsing of a step's result.

>>> import theon.tensor as tt
>>> x = tt.dscalar("x")
>>> u = until(x > 3)
>>> u.condition.type
TensorType(bool, shape=())
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from theon.graph.basic import Constant, Variable
from theon.graph.fg import describe
from theon.graph.traversal import toposort
from theon.tensor.basic import as_tensor_variable
from theon.tensor.math import neq
from theon.tensor.type import TensorType

__all__ = ["ScanUpdates", "carried_draws", "until", "split_step_result"]


class until:
    """Stop a scan after the step in which ``condition`` is true (a while loop).

    Return it from the step function, alone or with the outputs and updates:
    ``return y, until(y > 10)``.  The step where the condition first holds is
    the last one, and its outputs are kept.

    Parameters
    ----------
    condition
        A boolean (or numeric, nonzero meaning true) scalar.

    Examples
    --------
    >>> import theon, theon.tensor as tt
    >>> x = tt.dscalar("x")
    >>> out, _ = theon.scan(lambda p: (2 * p, until(2 * p > 100)), outputs_info=x, n_steps=50)
    >>> theon.function([x], out)(1.0)
    array([  2.,   4.,   8.,  16.,  32.,  64., 128.])
    """

    def __init__(self, condition: Any) -> None:
        c = as_tensor_variable(condition)
        if c.type.ndim != 0:
            raise TypeError(
                f"until: the condition must be a scalar, but {describe(c)} has ndim {c.type.ndim}"
            )
        if c.type.dtype != "bool":
            # (a Variable's ``!=`` is Python's identity test, not an Op)
            c = neq(c, 0)
        self.condition: Variable = c


class ScanUpdates(OrderedDict[Variable, Variable]):
    """The updates returned by ``scan``: shared variable -> its value after the loop.

    Pass it to ``theon.function(..., updates=...)``.  Adding another ``ScanUpdates``
    (``u1 + u2``) merges them; a shared variable updated by both is an error.

    >>> ScanUpdates() + ScanUpdates()
    ScanUpdates()
    """

    def __add__(self, other: Mapping[Any, Any]) -> ScanUpdates:
        new = ScanUpdates(self)
        for k, v in other.items():
            if k in new and new[k] is not v:
                raise KeyError(f"shared variable {describe(k)} is updated twice")
            new[k] = v
        return new


def _is_updates(x: Any) -> bool:
    if isinstance(x, Mapping):
        return True
    return (
        isinstance(x, (list, tuple))
        and len(x) > 0
        and all(isinstance(p, tuple) and len(p) == 2 and not isinstance(p[0], until)
                and hasattr(p[0], "get_value") for p in x)
    )


def split_step_result(res: Any) -> tuple[list[Any], list[tuple[Any, Any]], until | None]:
    """A step function's result as ``(outputs, updates, until-or-None)``.

    The step may return outputs (one or a list), updates (a dict or list of pairs),
    an :class:`until`, or a tuple of two or three of these in any order.

    >>> import theon.tensor as tt
    >>> x = tt.dscalar("x")
    >>> outs, upd, cond = split_step_result((x, until(x > 1)))
    >>> len(outs), upd, cond is not None
    (1, [], True)
    """
    if isinstance(res, until):
        return [], [], res
    if isinstance(res, Mapping):
        return [], list(res.items()), None
    parts: list[Any]
    if isinstance(res, (tuple, list)) and 2 <= len(res) <= 3 and any(
        isinstance(p, until) or _is_updates(p) for p in res
    ):
        parts = list(res)
    else:
        parts = [res]
    outs: list[Any] = []
    upd: list[tuple[Any, Any]] = []
    cond: until | None = None
    for p in parts:
        if isinstance(p, until):
            if cond is not None:
                raise ValueError("scan: the step function returned two until conditions")
            cond = p
        elif _is_updates(p):
            upd.extend(p.items() if isinstance(p, Mapping) else p)
        elif p is None:
            continue
        elif isinstance(p, (list, tuple)):
            outs.extend(p)
        else:
            outs.append(p)
    return outs, upd, cond


def carried_draws(outputs: list[Variable], carried: list[Variable]) -> list[Variable]:
    """The tensors a step computes from a carried (non-tensor) state: its random draws.

    These are the tensor outputs of every node of the step that reads a non-tensor,
    non-constant variable (a generator), in graph order.  Drawing again from the
    same generator state gives the same numbers, but a backward pass does not
    have that state, so the loop stacks these values for it.
    """
    found: list[Variable] = []
    for node in toposort([*outputs, *carried]):
        if any(not isinstance(v.type, TensorType) and not isinstance(v, Constant)
               for v in node.inputs):
            found.extend(o for o in node.outputs if isinstance(o.type, TensorType))
    return found
