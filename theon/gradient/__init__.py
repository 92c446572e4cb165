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
:func:`Rop` pushes tangents forwards through each Op's ``R_op`` when every Op
on the path defines one.  The tensor Ops that do (listed in ``EXACT_R_OP``) are
``Elemwise`` (every scalar op with a gradient), ``DimShuffle``, the reductions
``Sum``, ``Prod``, ``Max``, ``Min``, ``All``, ``Any`` and ``Argmax``, ``Alloc``,
``SumToShape``, ``Join``, ``Split``, ``MakeVector``, ``Shape``, ``Shape_i``,
``SpecifyShape``, ``Reshape``, ``Subtensor``, ``IncSubtensor``,
``AdvancedSubtensor``, ``AdvancedIncSubtensor``, ``TensorFromScalar``,
``ScalarFromTensor``, ``Dot``, ``MatMul`` (so also ``tensordot``/``outer``),
``CumOp``, ``Sort``, ``TakeAlongAxis``, ``Softmax``, ``LogSoftmax`` and the
gradient modifiers of this package.  Any other Op on the path (e.g.
``Einsum``, ``Repeat``, ``PutAlongAxis``, a user Op without ``R_op``) makes
``Rop`` build the product with the transpose trick on the whole graph,
``Rop(f, x, v) = d(Lop(f, x, u) . v)/du``: the same values, from a
second-order graph.  ``Lop`` is reverse mode and always exact.

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
from theon.gradient.forward import Lop, Rop, pullback, pushforward
from theon.gradient.jacobian import hessian, hessian_vector_product, jacobian
from theon.gradient.ops import disconnected_grad, grad_clip, undefined_grad, zero_grad
from theon.gradient.vectorize import register_vectorize, vectorize_graph
from theon.gradient.verify import GradientError, verify_grad
from theon.graph.null_type import (
    DisconnectedType,
    NullType,
    disconnected_type,
    grad_not_implemented,
    grad_undefined,
)
from theon.graph.vectorize import register_vectorize_module as _register_vectorize_module
from theon.link.registry import register_linker_backend as _register_linker_backend
from theon.tensor import provide as _tensor_provide

# the batching rules of this layer's own Ops, imported on the first vectorization
_register_vectorize_module("theon.gradient._vectorize_rules")
_register_linker_backend("jax", "theon.backends.jax.gradient")  # rules for the grad markers

# Theano's ``theano.tensor.grad`` (and its neighbours) as ``theon.tensor.grad``
for _name, _fn in (("grad", grad), ("Lop", Lop), ("Rop", Rop), ("jacobian", jacobian),
                   ("hessian", hessian), ("verify_grad", verify_grad)):
    _tensor_provide(_name, _fn)

#: Names of the tensor Op classes with an ``R_op`` (exact forward mode), see above.
EXACT_R_OP = (
    "Elemwise", "DimShuffle", "Sum", "Prod", "Max", "Min", "All", "Any", "Argmax", "Alloc",
    "SumToShape", "Join", "Split", "MakeVector", "Shape", "Shape_i", "SpecifyShape", "Reshape",
    "Subtensor", "IncSubtensor", "AdvancedSubtensor", "AdvancedIncSubtensor",
    "TensorFromScalar", "ScalarFromTensor", "Dot", "MatMul", "CumOp", "Sort", "TakeAlongAxis",
    "Softmax", "LogSoftmax",
)

__all__ = [
    "EXACT_R_OP",
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
    "grad_clip",
    "grad_not_implemented",
    "grad_undefined",
    "hessian",
    "hessian_vector_product",
    "jacobian",
    "pullback",
    "pushforward",
    "register_vectorize",
    "undefined_grad",
    "vectorize_graph",
    "verify_grad",
    "zero_grad",
]
