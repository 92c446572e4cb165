"""JAX rules of the Ops around values: the identities of ``theon.compile.ops``
(``TypeCastingOp``, ``ViewOp``; ``DeepCopyOp``, since JAX arrays are never written in
place) and the checks of ``theon.tensor.raise_op``.

Under ``jax.jit`` a check's condition is a traced value unless it was computed from
shapes or constants (the linker evaluates those with NumPy while tracing): such a
condition is checked, and the exception raised, when the function is traced; a traced
one cannot be tested, and the check is skipped with a warning (PyTensor's JAX backend
skips every check).

Registered for the ``"jax"`` linker by ``theon.compile.ops`` and
``theon.tensor.raise_op``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from theon.compile.ops import DeepCopyOp, TypeCastingOp
from theon.graph.basic import Apply
from theon.link.jax.dispatch import jax_funcify
from theon.tensor.raise_op import CheckAndRaise

__all__: list[str] = []

Fn = Callable[..., Any]


def _identity(x: Any) -> Any:
    return x


@jax_funcify.register(TypeCastingOp)
def _type_casting(op: TypeCastingOp, node: Apply, **kw: Any) -> Fn:
    return _identity


@jax_funcify.register(DeepCopyOp)
def _deep_copy(op: DeepCopyOp, node: Apply, **kw: Any) -> Fn:
    return _identity


def _known(c: Any) -> bool:
    """Whether ``c`` is a value while tracing (not a JAX tracer)."""
    return isinstance(c, (np.ndarray, np.generic, bool, int))


@jax_funcify.register(CheckAndRaise)
def _check_and_raise(op: CheckAndRaise, node: Apply, **kw: Any) -> Fn:
    def check(value: Any, *conds: Any) -> Any:
        if all(_known(c) for c in conds):
            if not all(bool(c) for c in conds):
                raise op.exc_type(op.msg)
        else:
            warnings.warn(
                f"mode='JAX': the check {op} is skipped: its condition is only known when "
                "the function runs, and a jitted function cannot raise",
                UserWarning,
                stacklevel=2,
            )
        return value

    return check
