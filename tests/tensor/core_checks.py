"""Helpers for the tensor-core tests: evaluate graphs on the reference VM, check infer_shape."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import theon
from theon.graph.basic import Variable
from theon.tensor.basic import as_tensor_variable

MODE = "REFERENCE"


def run(inputs: Sequence[Variable], outputs: Any, *values: Any, mode: str = MODE) -> Any:
    """Compile on the reference VM (no rewrites) and call once."""
    f = theon.function(list(inputs), outputs, mode=mode, on_unused_input="ignore")
    return f(*values)


def inferred_shapes(out: Variable, inputs: Sequence[Variable], values: Sequence[Any]) -> list[
        tuple[int, ...]]:
    """Evaluate ``out.owner.op.infer_shape`` for the given input values."""
    from theon.tensor.shape import shape_tuple

    node = out.owner
    assert node is not None
    in_shapes = [shape_tuple(i) for i in node.inputs]
    shapes = node.op.infer_shape(node, in_shapes)
    flat = [as_tensor_variable(s) for sh in shapes for s in sh]
    if not flat:
        return [() for _ in shapes]
    vals = run(inputs, flat, *values)
    res: list[tuple[int, ...]] = []
    k = 0
    for sh in shapes:
        res.append(tuple(int(v) for v in vals[k:k + len(sh)]))
        k += len(sh)
    return res


def check_infer_shape(out: Variable, inputs: Sequence[Variable], values: Sequence[Any]) -> None:
    """infer_shape of ``out``'s node equals the shapes it really computes."""
    node = out.owner
    assert node is not None
    real = run(inputs, list(node.outputs), *values)
    got = inferred_shapes(out, inputs, values)
    assert got == [np.shape(r) for r in real], (got, [np.shape(r) for r in real])
