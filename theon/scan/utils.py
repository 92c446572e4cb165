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
from theon.scan.args import FieldInfo, ScanArgs
from theon.tensor.basic import as_tensor_variable, constant
from theon.tensor.creation import AllocEmpty
from theon.tensor.math import neq
from theon.tensor.subtensor import SYM, IncSubtensor
from theon.tensor.type import TensorType, tensor_type
from theon.tensor.variable import TensorVariable

# (PyTensor's ScanArgs lives here: theon.scan.args, re-exported)
__all__ = ["FieldInfo", "ScanArgs", "ScanBuffer", "ScanUpdates", "carried_draws", "expand_empty",
           "initial_rows", "split_step_result", "until"]


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


class ScanBuffer(AllocEmpty):
    """The uninitialised rows :func:`expand_empty` puts after a state's initial rows: an
    :class:`~theon.tensor.creation.AllocEmpty` whose trailing dimensions are, by
    construction, those of the initial rows it follows.

    That is what lets the rewrite ``scan_initial_rows`` hand a Scan, which reads only a
    state's first ``L`` rows, those initial rows directly.
    """


def expand_empty(tensor_var: Any, size: Any, rows: int | None = None) -> TensorVariable:
    """``tensor_var`` followed by ``size`` uninitialised rows (PyTensor's helper): the
    buffer ``scan`` gives a Scan for a state, ``set_subtensor(empty[:k], tensor_var)``
    with ``empty`` of ``k + size`` rows, ``k`` the rows of ``tensor_var`` (``rows``
    when given: ``scan`` gives a state's lag).

    PyTensor's programs (PyMC) read a state's initial value back from that form; theon's
    Scan reads only a state's first ``L`` rows, and the rewrite ``scan_initial_rows``
    gives it ``tensor_var`` itself.

    >>> import numpy as np, theon.tensor as tt
    >>> x = tt.dmatrix("x")
    >>> b = expand_empty(x, 2)
    >>> b.eval({x: np.ones((1, 3))})[:1]
    array([[1., 1., 1.]])
    >>> b.eval({x: np.ones((1, 3))}).shape
    (3, 3)
    """
    v = as_tensor_variable(tensor_var)
    vt = tensor_type(v)
    if vt.ndim < 1:
        raise TypeError(f"expand_empty: {describe(v)} has no rows to add to (ndim 0)")
    shape = [v.shape[d] for d in range(vt.ndim)]
    k: Any = rows if rows is not None else vt.shape[0] if vt.shape[0] is not None else shape[0]
    empty = ScanBuffer(vt.dtype)((k if isinstance(k, int) else shape[0]) + size, *shape[1:])
    # the stop of ``[:k]`` is an index input, a constant one when known, as PyTensor's
    # (PyMC reads the initial value back from the node's three inputs)
    stop = constant(k, dtype="int64") if isinstance(k, int) else k
    out: TensorVariable = IncSubtensor((slice(None, SYM),), set_instead_of_inc=True)(
        empty, v, stop)
    return out


def initial_rows(buffer: Variable, lag: int) -> Variable | None:
    """The initial rows ``y`` when ``buffer`` is ``set_subtensor(ScanBuffer(...)[:lag], y)``
    (what :func:`expand_empty` made for a state reading ``lag`` steps back), else None.

    >>> import theon.tensor as tt
    >>> y = tt.dmatrix("y")
    >>> initial_rows(expand_empty(y[:2], 5, rows=2), 2) is not None, initial_rows(y, 2)
    (True, None)
    """
    node = buffer.owner
    if node is None or not isinstance(node.op, IncSubtensor) or not node.op.set_instead_of_inc:
        return None
    idx = node.op.idx_list
    if idx == (slice(None, SYM),):
        stop = node.inputs[2]
        if not isinstance(stop, Constant) or int(stop.data) != lag:
            return None
    elif idx != (slice(None, lag),):
        return None
    empty, y = node.inputs[0], node.inputs[1]
    if empty.owner is None or not isinstance(empty.owner.op, ScanBuffer):
        return None
    bt, yt = tensor_type(buffer), tensor_type(y)
    if yt.ndim != bt.ndim or yt.dtype != bt.dtype:
        return None
    return y
