"""JAX rules of the Ops around values: the identities of ``theon.compile.ops``
(``TypeCastingOp``, ``ViewOp``; ``DeepCopyOp``, since JAX arrays are never written in
place), ``as_op``'s Python functions (``FromFunctionOp``, called on the host by
``jax.pure_callback``) and the checks of ``theon.tensor.raise_op``.

A Python function's output shapes must be known when the function is traced: from
the output types' static shapes, or from the op's ``infer_shape`` on the (static)
input shapes; otherwise the rule raises ``DynamicShapeError`` naming the op.

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

from theon.backends.jax.host import host_call
from theon.compile.ops import DeepCopyOp, FromFunctionOp, TypeCastingOp
from theon.graph.basic import Apply
from theon.link.jax.dispatch import DynamicShapeError, jax_funcify
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


def _static_shapes(op: FromFunctionOp, node: Apply, args: tuple[Any, ...]) -> list[tuple[int, ...]]:
    """The output shapes of ``node`` for inputs of the (traced) shapes of ``args``."""
    shapes = [getattr(o.type, "shape", ()) for o in node.outputs]
    if all(None not in s for s in shapes):
        return [tuple(int(d) for d in s) for s in shapes]
    if op.infer_shape_fn is not None:
        got = op._infer_shape(node, [tuple(np.shape(a)) for a in args])
        try:
            return [tuple(int(d) for d in s) for s in got]
        except TypeError:
            pass  # a symbolic shape: not known while tracing
    raise DynamicShapeError(
        f"mode='JAX' cannot compile {op}: the shapes of its outputs "
        f"({', '.join(str(o.type) for o in node.outputs)}) are not known when the function "
        "is traced; give as_op output types of static shape, or an infer_shape that "
        "computes them from the input shapes"
    )


@jax_funcify.register(FromFunctionOp)
def _from_function(op: FromFunctionOp, node: Apply, **kw: Any) -> Fn:
    """``op.fn`` on the host: the same values as the other linkers, checked by the output
    types (``Type.filter``) as ``perform`` checks them."""
    def call(*args: Any) -> Any:
        outs = [(s, o.type.dtype)  # type: ignore[attr-defined]
                for s, o in zip(_static_shapes(op, node, args), node.outputs)]

        def host(*values: Any) -> tuple[Any, ...]:
            cells: list[list[Any]] = [[None] for _ in node.outputs]
            op.perform(node, list(values), cells)
            return tuple(c[0] for c in cells)

        res = host_call(host, outs, *args)
        return res[0] if len(res) == 1 else tuple(res)

    return call


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
