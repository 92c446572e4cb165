"""py-linker emitters for ``theon.scalar``: ScalarType values and ScalarOp nodes.

A ScalarType value is a NumPy scalar of the type's dtype, so the boxing of a
Python number is the dtype's scalar class (``np.float64(x)``).
"""

from __future__ import annotations

from typing import Any

from theon.graph.basic import Apply
from theon.link.pyfunc.dispatch import ValueInfo, py_globals, py_scalar_expr, value_info
from theon.scalar.basic import ScalarOp
from theon.scalar.pyimpl import py_namespace
from theon.scalar.type import ScalarType

py_globals.update(py_namespace())


@value_info.register(ScalarType)
def _scalar_type_info(t: ScalarType) -> ValueInfo:
    """0-d values boxed as NumPy scalars of the type's dtype."""
    return ValueInfo(0, t.dtype, t._scalar_class)


@py_scalar_expr.register(ScalarOp)
def _scalar_op_expr(op: ScalarOp, node: Apply, args: list[str]) -> Any:
    """The op's own ``py_expr``, where its contract (``py_expr_ok``) allows."""
    if not op.py_expr_ok(node):
        return None
    return op.py_expr(*args)
