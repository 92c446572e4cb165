"""The linker protocol: a :class:`Linker` turns a rewritten FunctionGraph into a
:class:`Runner`, and :func:`node_context` names a failing node and the user's lines.

Every linker implements it: the reference ``VMLinker`` (:mod:`theon.link.vm`), the
generated-Python ``PyLinker`` (:mod:`theon.link.pyfunc`), the ``JAXLinker``
(:mod:`theon.link.jax`) and the checking linkers of ``DebugMode`` and
``NanGuardMode``. PyTensor's path for ``Linker`` is ``pytensor.link.basic`` too.

>>> class Echo(Linker):
...     name = "echo"
...     def make_function(self, fgraph, profile=None):
...         return Runner(lambda *xs: list(xs), [])
>>> Echo().make_function(None)(1, 2)
[1, 2]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from theon.graph.basic import Apply
from theon.graph.fg import FunctionGraph
from theon.rewriting.provenance import error_context

__all__ = ["Linker", "Runner", "add_node_context", "node_context"]


@dataclass(eq=False)
class Runner:
    """What a linker makes of a graph: ``runner(*input_values)`` is the list of outputs.

    Attributes
    ----------
    fn
        The function doing the work (calling the runner calls it).
    order
        The graph's nodes in the order they run.
    source
        The generated Python source of ``fn``, when the linker generates code.
    float_inputs
        Positions of 0-d float64 inputs that ``fn`` reads only through
        ``float()``: a caller may pass a Python float there unfiltered.
    reentrant
        Whether several threads may run ``fn`` at once (it keeps no state
        between its steps outside its locals).
    reuses_output_storage
        Whether (per output, or for all) the values returned may be overwritten
        by the next call, so that callers must copy them.

    >>> r = Runner(lambda x: [x + 1], [])
    >>> r(1), r.source is None, r.reentrant
    ([2], True, False)
    """

    fn: Callable[..., list[Any]]
    order: list[Apply]
    source: str | None = None
    float_inputs: frozenset[int] = frozenset()
    reentrant: bool = False
    reuses_output_storage: bool | list[bool] = False

    def __call__(self, *args: Any) -> list[Any]:
        return self.fn(*args)


class Linker:
    """Turns a FunctionGraph into a callable ``run(*input_values) -> list of outputs``."""

    name = "linker"
    #: whether :meth:`with_input_sharding` gives a linker (``theon.function(sharding=...)``)
    accepts_sharding = False

    def make_function(self, fgraph: FunctionGraph, profile: Any = None) -> Runner:
        """Build the runner for ``fgraph``."""
        raise NotImplementedError(f"{type(self).__name__} does not define make_function")

    def with_input_sharding(self, specs: dict[int, Any], mesh: Any = None) -> Linker:
        """This linker, placing the inputs ``specs`` names over the devices of ``mesh``
        (only a linker that ``accepts_sharding``: the JAX linker's)."""
        raise NotImplementedError(f"the {self.name!r} linker runs on one device")

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def node_context(node: Apply) -> str:
    """Text naming a node and where the user built it, for error notes.

    A node a rewrite made (a fused node, say) names the lines of all the user's
    nodes it comes from (see :func:`theon.rewriting.provenance.error_context`).
    """
    ins = ", ".join(f"{v} ({v.type})" for v in node.inputs)
    text = f"while computing {node.op} on inputs [{ins}]"
    where = error_context(node)
    if where:
        text += "\n" + where
    return text


def add_node_context(exc: BaseException, node: Apply) -> None:
    """Attach :func:`node_context` to ``exc`` as a note, once."""
    notes = getattr(exc, "__notes__", [])
    if not any(n.startswith("while computing") for n in notes):
        exc.add_note(node_context(node))
