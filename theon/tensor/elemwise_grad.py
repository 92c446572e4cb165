"""Elemwise gradients: a scalar op's gradient graph, recorded once and replayed on tensors.

``Elemwise.L_op`` asks the scalar op for its gradient on fresh scalar variables
and rebuilds that small graph with Elemwise nodes over the tensors.  The scalar
graph depends only on the scalar op and the dtypes involved, so it is recorded
once per (scalar op, input dtypes, output-gradient dtypes) as a :class:`GradTemplate`
and replayed with no graph walk.

>>> from theon import scalar as ts
>>> t = grad_template(ts.mul, ("float64", "float64"), ("float64",))
>>> [str(op) for op, _ in t.steps]
['Elemwise{mul,no_inplace}', 'Elemwise{mul,no_inplace}']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from theon.graph.basic import Constant, Variable
from theon.graph.null_type import DisconnectedType, NullType
from theon.scalar.type import get_scalar_type
from theon.tensor.type import TensorType, tensor_type
from theon.tensor.variable import TensorConstant

if TYPE_CHECKING:
    from theon.tensor.elemwise import Elemwise

__all__ = ["GradTemplate", "grad_template", "plain_elemwise"]

# id(scalar op) -> (scalar op, its Elemwise); keyed by identity so that the Elemwise holds
# exactly the scalar op it was asked for
_PLAIN_ELEMWISE: dict[int, tuple[Any, Elemwise]] = {}


def plain_elemwise(scalar_op: Any) -> Elemwise:
    """The (shared) ``Elemwise`` of ``scalar_op`` without inplace outputs.

    >>> from theon import scalar as ts
    >>> plain_elemwise(ts.mul) is plain_elemwise(ts.mul)
    True
    """
    entry = _PLAIN_ELEMWISE.get(id(scalar_op))
    if entry is not None and entry[0] is scalar_op:
        return entry[1]
    from theon.tensor.elemwise import Elemwise

    op = Elemwise(scalar_op)
    if len(_PLAIN_ELEMWISE) < 4096:
        _PLAIN_ELEMWISE[id(scalar_op)] = (scalar_op, op)
    return op


# (scalar op, input dtypes, output-gradient dtypes) -> template; the scalar op's L_op only
# sees fresh scalar variables of those dtypes, so its graph depends on nothing else
_GRAD_TEMPLATES: dict[tuple[Any, tuple[str, ...], tuple[str, ...]], GradTemplate] = {}
_GRAD_TEMPLATES_LIMIT = 4096

# a template result: nothing (None), a gradient marker to copy, a slot, or a fresh constant
_R_NONE, _R_MARKER, _R_SLOT, _R_CONST = 0, 1, 2, 3


class GradTemplate:
    """A scalar op's gradient graph as a program over slots, replayed with Elemwise ops.

    Slots ``0..n-1`` hold the tensors of the node's inputs, outputs and output
    gradients (in that order); each step appends slots: a fresh 0-d constant, or the
    outputs of an Elemwise applied to earlier slots.

    >>> import theon.scalar as ts
    >>> t = GradTemplate(ts.mul, ["float64", "float64"], ["float64"])
    >>> len(t.results)
    2
    """

    __slots__ = ("results", "steps")

    def __init__(
        self, sop: Any, in_dtypes: Sequence[str], og_dtypes: Sequence[str]
    ) -> None:
        from theon.graph.traversal import io_toposort

        s_in = [get_scalar_type(d)() for d in in_dtypes]
        s_out = sop.make_node(*s_in).outputs
        s_og = [get_scalar_type(d)() for d in og_dtypes]
        s_grads = sop.L_op(s_in, s_out, s_og)
        slot: dict[Variable, int] = {v: k for k, v in enumerate([*s_in, *s_out, *s_og])}
        n = len(slot)
        steps: list[tuple[Any, Any]] = []
        results: list[tuple[int, Any]] = []

        def const_step(c: Constant) -> tuple[Any, Any]:
            # a private read-only array, shared by the constants of every replay
            data = np.array(c.data, dtype=tensor_type(c).dtype)
            data.setflags(write=False)
            return (None, (TensorType(data.dtype, data.shape), data))

        for sg in s_grads:
            if sg is None:
                results.append((_R_NONE, None))
                continue
            if isinstance(sg.type, (DisconnectedType, NullType)):
                results.append((_R_MARKER, sg))
                continue
            if sg in slot:
                results.append((_R_SLOT, slot[sg]))
                continue
            for node in io_toposort(list(slot), [sg]):
                args: list[int] = []
                for v in node.inputs:
                    if v in slot:
                        args.append(slot[v])
                    elif isinstance(v, Constant):
                        steps.append(const_step(v))
                        slot[v] = n
                        n += 1
                        args.append(slot[v])
                    else:
                        raise ValueError(
                            f"the gradient of scalar op {node.op} uses {v}, which is neither an "
                            "input, an output, an output gradient nor a constant"
                        )
                steps.append((plain_elemwise(node.op), tuple(args)))
                for out in node.outputs:
                    slot[out] = n
                    n += 1
            if sg in slot:
                results.append((_R_SLOT, slot[sg]))
            elif isinstance(sg, Constant):
                results.append((_R_CONST, const_step(sg)[1]))
            else:
                raise ValueError(f"cannot translate scalar gradient {sg} to tensors")
        self.steps = steps
        self.results = results

    def instantiate(self, vals: list[Variable]) -> list[Any]:
        """The gradient graph built on the tensors ``vals`` (inputs, outputs, output grads)."""
        for op, args in self.steps:
            if op is None:
                vals.append(TensorConstant(*args))
            else:
                vals.extend(op(*[vals[a] for a in args], return_list=True))
        out: list[Any] = []
        markers: dict[Variable, Variable] = {}
        for kind, val in self.results:
            if kind == _R_SLOT:
                out.append(vals[val])
            elif kind == _R_MARKER:
                # a fresh marker per call, as the scalar op's L_op would give
                if val not in markers:
                    markers[val] = val.clone()
                out.append(markers[val])
            elif kind == _R_CONST:
                out.append(TensorConstant(*val))
            else:
                out.append(None)
        return out


def grad_template(
    scalar_op: Any, in_dtypes: tuple[str, ...], og_dtypes: tuple[str, ...]
) -> GradTemplate:
    """The (cached) gradient template of ``scalar_op`` for these input / output-grad dtypes.

    >>> from theon import scalar as ts
    >>> grad_template(ts.exp, ("float64",), ("float64",)) is grad_template(
    ...     ts.exp, ("float64",), ("float64",))
    True
    """
    key = (scalar_op, in_dtypes, og_dtypes)
    template = _GRAD_TEMPLATES.get(key)
    if template is None:
        template = GradTemplate(scalar_op, in_dtypes, og_dtypes)
        if len(_GRAD_TEMPLATES) < _GRAD_TEMPLATES_LIMIT:
            _GRAD_TEMPLATES[key] = template
    return template


def constant_zero_factor(scalar_op: Any, inputs: Sequence[Variable]) -> int | None:
    """The position of a constant all-zeros input of a product (``mul``), or None.

    A product with a constant zero factor ``c`` is ``c * u`` for every ``u``, so its
    derivative in ``u`` is the constant 0, and a gradient through it is 0 even where
    the incoming gradient is infinite (``log(0 * lam)``'s chain rule would give
    ``inf * 0 = nan``).

    >>> import theon.tensor as tt
    >>> from theon.scalar import add, mul
    >>> x, zeros = tt.dvector("x"), tt.constant([0.0, 0.0])
    >>> constant_zero_factor(mul, [x, zeros]), constant_zero_factor(add, [x, zeros])
    (1, None)
    """
    if getattr(scalar_op, "name", None) != "mul":
        return None
    for k, v in enumerate(inputs):
        if isinstance(v, TensorConstant) and v.data.size and not np.any(v.data):
            return k
    return None
