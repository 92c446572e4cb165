"""Modes: which rewrites run and which linker makes the callable.

>>> m = Mode(linker="vm", optimizer=None)
>>> m.linker.name, m.optimizer is None
('vm', True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from theon.link.vm import Linker, VMLinker

__all__ = ["Mode", "get_mode", "preload", "register_linker", "register_mode"]

_LINKERS: dict[str, Callable[[], Linker]] = {"vm": VMLinker}
_MODES: dict[str, Callable[[], Mode]] = {}


def register_linker(name: str, factory: Callable[[], Linker]) -> None:
    """Make ``Mode(linker=name)`` build a linker with ``factory``."""
    _LINKERS[name] = factory


def _make_linker(linker: str | Linker | None) -> Linker:
    if isinstance(linker, Linker):
        return linker
    if linker is None or linker == "auto":
        from theon.config import config

        linker = str(config.linker)
        if linker == "auto":
            linker = "py" if "py" in _LINKERS or _load_fast_linker() else "vm"
    if linker not in _LINKERS and linker == "py":
        _load_fast_linker()
    try:
        return _LINKERS[linker]()
    except KeyError:
        raise ValueError(
            f"unknown linker {linker!r}; known linkers: {', '.join(sorted(_LINKERS))}"
        ) from None


def _load_fast_linker() -> bool:
    try:
        import theon.link.pyfunc  # noqa: F401  (registers the 'py' linker)
    except ImportError:
        return False
    return "py" in _LINKERS


# The fast linker's emitters for theon's scalar and tensor ops (registries it fills
# on its first link when not imported before).
_LINKER_BACKENDS = ("theon.link.pyfunc.scalar", "theon.link.pyfunc.tensor")


def preload() -> None:
    """Import the tensor rewrites and the fast linker now rather than in the first compile.

    These imports only fill theon's registries; ``import theon.tensor`` calls this so
    that the first ``theon.function`` does not pay for them.

    >>> preload()
    >>> "py" in _LINKERS
    True
    """
    import importlib

    from theon.rewriting.db import load_tensor_rewrites, rewrite_db

    load_tensor_rewrites()
    rewrite_db.query("fast_run")  # the default mode's rewriter, built once and cached
    if _load_fast_linker():
        for name in _LINKER_BACKENDS:
            try:
                importlib.import_module(name)
            except ImportError:
                continue


class Mode:
    """A compilation mode: a rewriter and a linker.

    Parameters
    ----------
    linker
        A :class:`~theon.link.vm.Linker` or its registered name (``"vm"``, ``"py"``).
    optimizer
        ``None`` for no rewrites, a rewrite-database query, or a name of one
        (``"fast_run"``, ``"fast_compile"``).
    """

    def __init__(
        self,
        linker: str | Linker | None = None,
        optimizer: Any = "fast_run",
        name: str | None = None,
    ) -> None:
        self.linker = _make_linker(linker)
        if optimizer == "None":
            optimizer = None
        self.optimizer = optimizer
        self.name = name

    def __repr__(self) -> str:
        return f"Mode(linker={self.linker.name!r}, optimizer={self.optimizer!r})"

    def get_rewriter(self) -> Callable[[Any], Any] | None:
        """The callable that rewrites a FunctionGraph in place, or ``None``."""
        if self.optimizer is None:
            return None
        from theon.rewriting.db import resolve_rewriter

        return resolve_rewriter(self.optimizer)

    def _with_query(self, how: str, tags: tuple[str, ...]) -> Mode:
        from theon.rewriting.db import RewriteQuery

        query = self.optimizer
        if query is None:
            raise ValueError(f"mode {self} has no rewrites to refine with {how}{tags}")
        if not isinstance(query, RewriteQuery):
            query = RewriteQuery.named(query)
        new = Mode(self.linker, getattr(query, how)(*tags), name=None)
        return new

    def including(self, *tags: str) -> Mode:
        """This mode with the rewrites tagged ``tags`` added."""
        return self._with_query("including", tags)

    def excluding(self, *tags: str) -> Mode:
        """This mode without the rewrites tagged ``tags``."""
        return self._with_query("excluding", tags)

    def requiring(self, *tags: str) -> Mode:
        """This mode restricted to rewrites that carry all of ``tags``."""
        return self._with_query("requiring", tags)

    def clone(self, link_kwargs: dict[str, Any] | None = None, **kw: Any) -> Mode:
        """A copy, optionally with another linker or optimizer."""
        return Mode(kw.get("linker", self.linker), kw.get("optimizer", self.optimizer), self.name)


def register_mode(name: str, factory: Callable[[], Mode]) -> None:
    """Make ``get_mode(name)`` (and ``function(..., mode=name)``) build ``factory()``."""
    _MODES[name] = factory


register_mode("FAST_RUN", lambda: Mode(linker=None, optimizer="fast_run", name="FAST_RUN"))
register_mode(
    "FAST_COMPILE", lambda: Mode(linker=None, optimizer="fast_compile", name="FAST_COMPILE")
)
register_mode("NO_REWRITES", lambda: Mode(linker=None, optimizer=None, name="NO_REWRITES"))
register_mode("REFERENCE", lambda: Mode(linker="vm", optimizer=None, name="REFERENCE"))


def get_mode(mode: str | Mode | None) -> Mode:
    """The Mode for ``mode``: a Mode, a registered name, or ``None`` for ``config.mode``."""
    if isinstance(mode, Mode):
        return mode
    if mode is None:
        from theon.config import config

        mode = config.mode
    if mode not in _MODES:
        raise ValueError(f"unknown mode {mode!r}; known modes: {', '.join(sorted(_MODES))}")
    return _MODES[mode]()
