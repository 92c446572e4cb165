"""Batching rules for the gradient layer's own Ops (see :mod:`theon.graph.vectorize`)."""

from __future__ import annotations

from typing import Any

from theon.graph.basic import Apply, Variable
from theon.graph.vectorize import register_vectorize

from .ops import GradModifier


@register_vectorize(GradModifier)
def _grad_modifier(op: Any, node: Apply, inputs: list[Variable], batched: list[bool]) -> Any:
    return [op(inputs[0])]
