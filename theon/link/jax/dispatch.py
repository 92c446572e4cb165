"""The JAX backend's rule registries.

Rules live outside Ops.  Two ``functools.singledispatch`` functions, keyed on
the Op's class, say how a node becomes a JAX-traceable Python function:

- :func:`jax_funcify` ``(op, node, **kw)`` returns ``fn(*input_values)`` for an
  Apply node.  ``fn`` receives the node's inputs as JAX values (arrays, or
  whatever the input's type maps to: a PRNG key for a random generator, ...)
  and returns the output value when the node has one output, else a tuple of
  the outputs in order.  ``fn`` runs under ``jax.jit`` tracing, so it must not
  look at concrete values; the node's static types (``node.outputs[0].type``:
  dtype, ndim, static shape) are known when the rule runs.  Keyword arguments
  the linker passes: ``linker`` (the linker, for rules that compile inner
  graphs with :meth:`~theon.link.jax.linker.JAXLinker.funcify_fgraph`).
- :func:`jax_scalar_funcify` ``(scalar_op)`` returns a function of JAX arrays
  for a scalar Op, so ``Elemwise`` and ``Composite`` are spelled once from it.

Two more, keyed on the class of a variable's *Type*, convert values at the
boundary of a jitted function:

- :func:`jax_typify` ``(type, value)``: an argument (or a constant) as the JAX
  function takes it.  Default: unchanged (jax converts NumPy arrays itself).
- :func:`jax_untypify` ``(type, value)``: a JAX result as theon's type holds
  it.  Default: ``np.asarray`` of a JAX array (a NumPy array of the same dtype;
  on the CPU it shares the buffer), anything else unchanged.

An Op without a rule raises :class:`MissingJAXRule`; the linker collects every
such node of a graph and reports them all in one error.

>>> from theon.graph.op import Op
>>> class Nop(Op):
...     __props__ = ()
>>> try:
...     jax_funcify(Nop(), None)
... except MissingJAXRule as e:
...     print(e.op)
Nop
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from theon.graph.op import Op

__all__ = [
    "DynamicShapeError",
    "MissingJAXRule",
    "jax_funcify",
    "jax_scalar_funcify",
    "jax_typify",
    "jax_untypify",
    "set_jax_inputs",
    "typify_is_default",
    "untypify_is_default",
]


class DynamicShapeError(ValueError):
    """An Op's output shape depends on a value known only when the function runs."""


class MissingJAXRule(NotImplementedError):
    """No JAX rule is registered for an Op's class."""

    def __init__(self, op: Any) -> None:
        self.op = op
        super().__init__(f"no JAX rule for {type(op).__name__} ({op})")


@functools.singledispatch
def jax_funcify(op: Op, node: Any, **kw: Any) -> Callable[..., Any]:
    """The JAX function computing ``node`` (whose Op is ``op``); see the module docstring."""
    raise MissingJAXRule(op)


@functools.singledispatch
def jax_scalar_funcify(op: Any) -> Callable[..., Any]:
    """The function of JAX arrays computing the scalar Op ``op`` elementwise."""
    raise MissingJAXRule(op)


@functools.singledispatch
def jax_typify(type: Any, value: Any) -> Any:
    """``value`` (of theon type ``type``) as the jitted function takes it; see the module
    docstring.  Registered per Type class: ``@jax_typify.register(MyType)``."""
    return value


@functools.singledispatch
def jax_untypify(type: Any, value: Any) -> Any:
    """The JAX result ``value`` as theon's ``type`` holds it (a NumPy array for a tensor).

    >>> jax_untypify(None, 3)
    3
    """
    if hasattr(value, "__array__") and not isinstance(value, np.ndarray):
        return np.asarray(value)
    return value


def set_jax_inputs(fn: Callable[..., Any], variables: Sequence[Any]) -> None:
    """Declare that the rule's function ``fn`` takes the values of ``variables`` instead of
    its node's inputs (the source of a transposed operand, say, to contract it without a
    copy); the linker passes those (``fn.jax_inputs``)."""
    fn.__dict__["jax_inputs"] = list(variables)


def typify_is_default(t: Any) -> bool:
    """Whether arguments of type ``t`` go to the jitted function unchanged."""
    return jax_typify.dispatch(type(t)) is _TYPIFY_DEFAULT


def untypify_is_default(t: Any) -> bool:
    """Whether results of type ``t`` are only made NumPy arrays."""
    return jax_untypify.dispatch(type(t)) is _UNTYPIFY_DEFAULT


_TYPIFY_DEFAULT = jax_typify.dispatch(object)
_UNTYPIFY_DEFAULT = jax_untypify.dispatch(object)
