"""The py linker's backend registry: how each Op becomes lines of Python.

Backends live outside Ops.  Two ``functools.singledispatch`` functions, keyed on
the Op's class, say how a node is spelled in the generated function:

- :func:`py_emit` gives NumPy-level source lines (arrays, NumPy scalars).
  Returning ``None`` means "call ``op.perform``", which always works.
- :func:`py_scalar_expr` gives one Python expression on Python numbers (the 0-d
  fast path, using ``math``), or ``None`` when the op has no such spelling.

:func:`value_info` tells, per Type class, whether values are 0-d numbers (so
they can live as Python floats) and how to box such a number back into what
``perform`` would have produced.

>>> from theon.graph.op import Op
>>> class Nop(Op):
...     __props__ = ()
>>> py_emit(Nop(), None, None) is None
True
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from theon.graph.op import Op
from theon.graph.type import Type

if TYPE_CHECKING:
    from theon.graph.basic import Apply
    from theon.link.pyfunc.codegen import NodeEmitter

__all__ = [
    "MAX_EXPR_ARGS",
    "PyBlockBuilder",
    "ValueInfo",
    "py_emit",
    "py_globals",
    "py_scalar_block",
    "py_scalar_expr",
    "value_info",
]

#: ``builder(arg_names, new_name) -> (lines, output_exprs)``: see :func:`py_scalar_block`.
PyBlockBuilder = Callable[[list[str], Callable[[], str]], tuple[list[str], list[str]]]

#: At most this many operands go into one generated expression.  An expression
#: nests deeper with its operands (``a + b + c`` is ``(a + b) + c``) and Python's
#: compiler recurses on nesting, so a node with more operands is spelled as
#: several statements (a :func:`py_scalar_block`) or at the NumPy level, one call
#: per line: generated code nests no deeper than a fixed bound, whatever the graph.
MAX_EXPR_ARGS = 32

#: Names that :func:`py_scalar_expr` expressions may use (``math``, helpers);
#: backends add to it when they are imported.
py_globals: dict[str, Any] = {}


@functools.singledispatch
def py_emit(op: Op, node: Apply, ctx: NodeEmitter) -> list[str] | None:
    """Source lines computing ``node`` (NumPy level), or ``None`` to call ``perform``.

    An emitter reads its inputs with ``ctx.arg(i)`` (a value exactly as
    ``perform`` would receive it) or ``ctx.arg(i, Rep.NPS)`` (a NumPy scalar is
    also fine), and assigns each output to ``ctx.out(j)`` (or
    ``ctx.out(j, Rep.NPS)`` when it assigns a NumPy scalar for a 0-d output);
    :class:`~theon.link.pyfunc.codegen.Rep` lists the representations.
    ``ctx.bind(obj)`` makes a global name for any object the code needs, and
    ``ctx.may_overwrite(i)`` says whether input ``i``'s buffer is dead after
    this node and owned by the function, so it can receive the output.

    >>> from theon.graph.op import Op
    >>> py_emit(Op(), None, None) is None
    True
    """
    return None


@functools.singledispatch
def py_scalar_expr(op: Op, node: Apply, args: list[str]) -> str | None:
    """A Python expression (on Python numbers named ``args``) for a 0-d node, or ``None``.

    Used only when every output of the node is a 0-d float64 or bool.  The
    expression may use ``math`` and must produce a Python ``float`` (or
    ``bool``).  It may raise ``ArithmeticError``, ``ValueError`` or
    ``TypeError`` at singular points: the linker then reruns the call at the
    NumPy level, so NumPy's inf/nan results are kept.

    >>> from theon.graph.op import Op
    >>> py_scalar_expr(Op(), None, ["a"]) is None
    True
    """
    return None


@functools.singledispatch
def py_scalar_block(op: Op, node: Apply) -> PyBlockBuilder | None:
    """A builder of Python statements for a 0-d node with several steps or outputs, or ``None``.

    Like :func:`py_scalar_expr`, for nodes better spelled as several
    assignments (a fused Composite).  The builder gets the input names and a
    ``new_name()`` for temporaries, and returns the statements and one
    expression per output (usually a temporary's name).

    >>> from theon.graph.op import Op
    >>> py_scalar_block(Op(), None) is None
    True
    """
    return None


@dataclass(frozen=True)
class ValueInfo:
    """What the linker knows about the values of a Type.

    Attributes
    ----------
    ndim
        Number of dimensions, or ``None`` when unknown (not an array type).
    dtype
        NumPy dtype name, or ``None``.
    box
        For 0-d numeric types: a callable turning a Python number or NumPy
        scalar into exactly the value ``perform`` produces (e.g. a 0-d array).
        ``None`` when such values cannot leave the NumPy level.
    box_args
        Extra positional arguments passed to ``box`` after the value (e.g. the
        dtype for ``np.asarray``).
    """

    ndim: int | None
    dtype: str | None
    box: Callable[..., Any] | None = None
    box_args: tuple[Any, ...] = ()

    @property
    def is_scalar(self) -> bool:
        """Whether values are 0-d numbers that may be carried as Python numbers."""
        return self.ndim == 0 and self.dtype is not None and self.box is not None


_UNKNOWN = ValueInfo(None, None, None)


@functools.singledispatch
def value_info(t: Type) -> ValueInfo:
    """The :class:`ValueInfo` of type ``t`` (unknown for types nobody registered).

    >>> from theon.graph.type import Generic
    >>> value_info(Generic()).ndim is None
    True
    """
    return _UNKNOWN
