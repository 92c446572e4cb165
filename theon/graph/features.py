"""FunctionGraph features: objects that follow a graph's changes through callbacks.

A feature may define any of ``on_attach(fgraph)``, ``on_detach(fgraph)``,
``on_import(fgraph, node, reason)``, ``on_prune(fgraph, node, reason)``,
``on_change_input(fgraph, node, i, old, new, reason)``, ``validate(fgraph)`` and
``orderings(fgraph)``.  :class:`History` records changes so they can be
reverted; :class:`ReplaceValidate` replaces and rolls back if a validator objects.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from theon.graph.basic import Apply, Variable

if TYPE_CHECKING:
    from theon.graph.fg import FunctionGraph

__all__ = [
    "AlreadyThere",
    "Feature",
    "History",
    "InconsistencyError",
    "NodeFinder",
    "ReplaceValidate",
    "Validator",
]


class AlreadyThere(Exception):
    """Raised by ``on_attach`` when an equivalent feature is already attached."""


class InconsistencyError(Exception):
    """A change would make the graph invalid (e.g. an illegal destruction)."""


class Feature:
    """Base class of features; every callback is optional."""

    def on_attach(self, fgraph: FunctionGraph) -> None:
        """Called when attached; may raise :class:`AlreadyThere`."""

    def on_detach(self, fgraph: FunctionGraph) -> None:
        """Called when removed."""

    def on_import(self, fgraph: FunctionGraph, node: Apply, reason: str | None) -> None:
        """Called when ``node`` enters the graph."""

    def on_prune(self, fgraph: FunctionGraph, node: Apply, reason: str | None) -> None:
        """Called when ``node`` leaves the graph."""

    def on_change_input(
        self,
        fgraph: FunctionGraph,
        node: Apply,
        i: int,
        old: Variable,
        new: Variable,
        reason: str | None,
    ) -> None:
        """Called when input ``i`` of ``node`` changes (``node`` is an
        :class:`~theon.graph.fg.Output` node when a graph output changes)."""

    def orderings(self, fgraph: FunctionGraph) -> dict[Apply, list[Apply]]:
        """Extra ordering constraints: node -> nodes that must run before it."""
        return {}

    def clone(self) -> Feature:
        """A fresh feature of the same kind, for a cloned graph."""
        return type(self)()


# Callbacks a base Feature defines as no-ops; FunctionGraph skips them.
NOOP_CALLBACKS = {
    name: getattr(Feature, name)
    for name in ("on_import", "on_prune", "on_change_input", "orderings")
}


class History(Feature):
    """Records input changes so that ``fgraph.revert(checkpoint)`` can undo them.

    Adds ``fgraph.checkpoint()`` and ``fgraph.revert(chk)``.
    """

    def __init__(self) -> None:
        self.history: dict[FunctionGraph, list[tuple[Apply, int, Variable, Variable]]] = {}
        self.paused = False

    def on_attach(self, fgraph: FunctionGraph) -> None:
        if hasattr(fgraph, "checkpoint"):
            raise AlreadyThere("a History is already attached")
        self.history[fgraph] = []
        fgraph.checkpoint = lambda: len(self.history[fgraph])
        fgraph.revert = lambda chk: self.revert(fgraph, chk)

    def on_detach(self, fgraph: FunctionGraph) -> None:
        del fgraph.checkpoint
        del fgraph.revert
        del self.history[fgraph]

    def on_change_input(
        self,
        fgraph: FunctionGraph,
        node: Apply,
        i: int,
        old: Variable,
        new: Variable,
        reason: str | None,
    ) -> None:
        if not self.paused:
            self.history[fgraph].append((node, i, old, new))

    def revert(self, fgraph: FunctionGraph, checkpoint: int) -> None:
        """Undo every change recorded after ``checkpoint``, newest first."""
        log = self.history[fgraph]
        self.paused = True
        try:
            while len(log) > checkpoint:
                node, i, old, new = log.pop()
                fgraph.change_node_input(node, i, old, reason="revert", check=False)
        finally:
            self.paused = False

    def clone(self) -> History:
        return History()


class Validator(Feature):
    """Adds ``fgraph.validate()``, which runs every feature's ``validate`` callback."""

    def on_attach(self, fgraph: FunctionGraph) -> None:
        if hasattr(fgraph, "validate"):
            raise AlreadyThere("a Validator is already attached")
        fgraph.validate = lambda: fgraph.execute_callbacks("validate")
        fgraph.consistent = lambda: _consistent(fgraph)

    def on_detach(self, fgraph: FunctionGraph) -> None:
        del fgraph.validate
        del fgraph.consistent


def _consistent(fgraph: FunctionGraph) -> bool:
    try:
        fgraph.validate()
    except InconsistencyError:
        return False
    return True


class ReplaceValidate(History, Validator):
    """Replacement that is undone when validation fails.

    Adds ``fgraph.replace_validate(var, new, reason)`` and
    ``fgraph.replace_all_validate(pairs, reason)``; both raise
    :class:`InconsistencyError` after reverting when a validator objects.
    """

    def on_attach(self, fgraph: FunctionGraph) -> None:
        if hasattr(fgraph, "replace_validate"):
            raise AlreadyThere("a ReplaceValidate is already attached")
        History.on_attach(self, fgraph)
        if not hasattr(fgraph, "validate"):
            Validator.on_attach(self, fgraph)
            self._own_validator = True
        else:
            self._own_validator = False
        fgraph.replace_validate = functools.partial(self.replace_validate, fgraph)
        fgraph.replace_all_validate = functools.partial(self.replace_all_validate, fgraph)

    def on_detach(self, fgraph: FunctionGraph) -> None:
        History.on_detach(self, fgraph)
        if self._own_validator:
            Validator.on_detach(self, fgraph)
        del fgraph.replace_validate
        del fgraph.replace_all_validate

    def replace_validate(
        self, fgraph: FunctionGraph, var: Variable, new: Variable, reason: str | None = None
    ) -> None:
        """Replace ``var`` by ``new``, then validate; on failure revert and re-raise."""
        self.replace_all_validate(fgraph, [(var, new)], reason)

    def replace_all_validate(
        self,
        fgraph: FunctionGraph,
        pairs: Sequence[tuple[Variable, Variable]],
        reason: str | None = None,
    ) -> None:
        """Apply every replacement, then validate; on failure revert and re-raise."""
        chk = fgraph.checkpoint()
        try:
            for var, new in pairs:
                fgraph.replace(var, new, reason=reason)
            fgraph.validate()
        except Exception:
            fgraph.revert(chk)
            raise

    def clone(self) -> ReplaceValidate:
        return ReplaceValidate()


class NodeFinder(Feature):
    """Keeps, per op, the nodes that apply it: ``fgraph.get_nodes(op)``."""

    def __init__(self) -> None:
        self.by_op: dict[Any, dict[Apply, None]] = {}

    def on_attach(self, fgraph: FunctionGraph) -> None:
        if hasattr(fgraph, "get_nodes"):
            raise AlreadyThere("a NodeFinder is already attached")
        fgraph.get_nodes = lambda op: list(self.by_op.get(op, ()))
        for node in fgraph.toposort():
            self.on_import(fgraph, node, "on_attach")

    def on_detach(self, fgraph: FunctionGraph) -> None:
        del fgraph.get_nodes

    def on_import(self, fgraph: FunctionGraph, node: Apply, reason: str | None) -> None:
        self.by_op.setdefault(node.op, {})[node] = None

    def on_prune(self, fgraph: FunctionGraph, node: Apply, reason: str | None) -> None:
        self.by_op.get(node.op, {}).pop(node, None)
