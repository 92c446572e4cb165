"""JAX rules for the gradient markers of ``theon.gradient.ops`` (``zero_grad``,
``disconnected_grad``, ``undefined_grad``, ...): identities when computed.  They
reach a compiled graph when the user compiles such a marked variable.

Registered by ``theon.gradient`` for the ``"jax"`` linker (this module sits
above the gradient layer).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from theon.gradient.ops import GradModifier
from theon.graph.basic import Apply
from theon.link.jax.dispatch import jax_funcify

__all__: list[str] = []


@jax_funcify.register(GradModifier)
def _identity(op: GradModifier, node: Apply, **kw: Any) -> Callable[..., Any]:
    return lambda x: x
