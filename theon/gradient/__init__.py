"""Automatic differentiation: ``grad``, ``Lop``/``Rop``, ``jacobian``, ``hessian``, ``verify_grad``.

``theon.grad`` walks the graph backwards from the cost (seed 002): each Apply
node's Op gives, through ``L_op(inputs, outputs, output_grads)`` (by default its
seed-004 ``grad(inputs, output_grads)``), the gradient of the cost with respect to
its inputs.  Gradients are ordinary graphs, so they can be differentiated again.

Contract for Op authors
-----------------------
* ``grad`` / ``L_op`` return one entry per input: a Variable of the input's type
  (a float gradient of another float dtype is cast), ``None`` (no contribution),
  ``disconnected_type()`` (no dependence), or ``grad_undefined`` /
  ``grad_not_implemented`` (a NullType: an error only if that gradient is needed).
* ``connection_pattern(node)`` (optional): ``[input][output]`` booleans.
* Output gradients an Op receives are never missing: an output the cost does not
  reach gets zeros (for float outputs) or ``disconnected_type()`` (for integer or
  boolean outputs).  No gradient flows through integer or boolean variables, and
  integer/boolean inputs are disconnected, whatever the Op returns for them.
* ``R_op(inputs, eval_points)`` (optional) returns one Jacobian-vector product
  per output; entries of ``eval_points`` are ``None`` for inputs that do not
  depend on ``wrt``.

Which Ops are exact in forward mode
-----------------------------------
:func:`Rop` uses each Op's ``R_op`` when every Op on the path defines one; the
tensor Ops that do are the elementwise Ops (``Elemwise``, through their scalar
Ops' gradients), ``DimShuffle``, reductions (``CAReduce`` sum/prod/max/min),
reshape/shape Ops, subtensor and inc/set_subtensor, ``dot``/matmul,
``alloc``, ``join``/``stack`` and the gradient modifiers of this package.  Any
other Op (e.g. sort, cumulative ops, linear algebra) makes ``Rop`` use the
transpose trick on the whole graph, ``Rop(f, x, v) = d(Lop(f, x, u) . v)/du``,
which is equally exact but builds a second-order graph.  ``Lop`` is always
exact (it is reverse mode).

>>> import theon, theon.tensor as tt
>>> x = tt.dscalar("x")
>>> y = tt.exp(tt.sin(x) ** 2)
>>> g = theon.grad(y, x)
>>> round(float(g.eval({x: 1.0})), 6)
1.845943
"""

from theon.gradient.core import (
    DisconnectedInputError,
    GradNotImplementedError,
    NullTypeGradError,
    grad,
)
from theon.gradient.forward import Lop, Rop
from theon.gradient.jacobian import hessian, hessian_vector_product, jacobian
from theon.gradient.ops import disconnected_grad, undefined_grad, zero_grad
from theon.gradient.vectorize import register_vectorize, vectorize_graph
from theon.gradient.verify import GradientError, verify_grad
from theon.graph.null_type import (
    DisconnectedType,
    NullType,
    disconnected_type,
    grad_not_implemented,
    grad_undefined,
)

__all__ = [
    "DisconnectedInputError",
    "DisconnectedType",
    "GradNotImplementedError",
    "GradientError",
    "Lop",
    "NullType",
    "NullTypeGradError",
    "Rop",
    "disconnected_grad",
    "disconnected_type",
    "grad",
    "grad_not_implemented",
    "grad_undefined",
    "hessian",
    "hessian_vector_product",
    "jacobian",
    "register_vectorize",
    "undefined_grad",
    "vectorize_graph",
    "verify_grad",
    "zero_grad",
]
