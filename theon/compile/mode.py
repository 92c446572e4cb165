"""Modes: which rewrites run and which linker makes the callable.

>>> m = Mode(linker="vm", optimizer=None)
>>> m.linker.name, m.optimizer is None
('vm', True)
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from typing import Any

from theon.link.basic import Linker
from theon.link.registry import (
    linker_names,
    load_linker_backends,
    make_linker,
    register_linker,
)
from theon.rewriting.db import RewriteQuery, load_rewrite_modules, resolve_rewriter, rewrite_db
from theon.rewriting.optdb import optdb

__all__ = [
    "Mode", "get_default_mode", "get_mode", "optdb", "preload", "register_linker",
    "register_mode",
]

_MODES: dict[str, Callable[[], Mode]] = {}

#: the rewrites of ``mode="JAX"``: ``fast_run`` without fusion (XLA fuses elementwise
#: work itself), without the inplace phase (jax arrays are immutable) and without
#: ``native_blas`` (Ops that call NumPy's own BLAS, like ``TriMatMul``), plus
#: ``shared_lu`` (solves with one matrix share its LU factors)
JAX_REWRITES = RewriteQuery(include=("fast_run", "shared_lu"),
                            exclude=("fusion", "inplace", "native_blas"))
rewrite_db.declare_tags("shared_lu", "native_blas")


def _make_linker(linker: str | Linker | None) -> Linker:
    if isinstance(linker, Linker):
        return linker
    name = "auto" if linker is None else linker
    if name == "auto":
        from theon.config import config

        name = str(config.linker)
        if name == "auto":
            name = "py" if "py" in linker_names() else "vm"
    return make_linker(name)


def _with_tier(linker: Linker, tier: int | str | None) -> Linker:
    """``linker``, or a copy of it linking with ``tier`` if it has tiers."""
    if tier is None or not hasattr(linker, "tier") or linker.tier == tier:
        return linker
    new = copy.copy(linker)
    new.tier = tier
    return new


def preload() -> None:
    """Import every registered rewrite and linker-emitter module now, each exactly once.

    ``import theon.tensor`` only *registers* these modules (``theon.tensor.rewriting``,
    the ``py`` linker's emitters); the first compile imports them.  Call this to
    pay for them up front instead (a server before its first request, a
    benchmark before timing a compile).  Thread-safe, and cheap once done.

    >>> preload()
    >>> from theon.rewriting import rewrite_db
    >>> "local_mul_canonizer" in rewrite_db
    True
    """
    load_rewrite_modules()
    load_linker_backends()
    rewrite_db.query("fast_run")  # the default mode's rewriter, built once and cached


class Mode:
    """A compilation mode: a rewriter and a linker.

    Parameters
    ----------
    linker
        A :class:`~theon.link.basic.Linker` or its registered name (``"vm"``, ``"py"``).
    optimizer
        ``None`` for no rewrites, a rewrite-database query, or a name of one
        (``"fast_run"``, ``"fast_compile"``).
    tier
        Tier-1 kernels compiled in the background (docs/tier1.md): ``0`` (off),
        ``1`` (on), ``"auto"`` (on where jax or numba is installed), or ``None``
        for ``config.tier``.  Linkers without tiers (``"vm"``) ignore it.

    >>> Mode(tier=0).tier, Mode(tier=0).clone().tier, Mode(linker="vm", tier=1).linker.name
    (0, 0, 'vm')
    """

    def __init__(
        self,
        linker: str | Linker | None = None,
        optimizer: Any = "fast_run",
        name: str | None = None,
        tier: int | str | None = None,
    ) -> None:
        if tier not in (None, 0, 1, "auto"):
            raise ValueError(f"Mode(tier=...) must be 0, 1 or 'auto', got {tier!r}")
        self.linker = _with_tier(_make_linker(linker), tier)
        if optimizer == "None":
            optimizer = None
        self.optimizer = optimizer
        self.name = name
        self.tier = tier
        #: graph rewriters added by :meth:`register`, with PyTensor positions
        self.extra_rewriters: tuple[tuple[Any, float], ...] = ()

    def __repr__(self) -> str:
        extra = "" if self.tier is None else f", tier={self.tier!r}"
        return f"Mode(linker={self.linker.name!r}, optimizer={self.optimizer!r}{extra})"

    @property
    def provided_optimizer(self) -> Any:
        """The rewrites as a :class:`~theon.rewriting.db.RewriteQuery` when they are one
        (PyTensor's attribute: ``mode.provided_optimizer.including(...)`` refines it);
        otherwise what was given (``None``, a rewriter).

        >>> get_mode("FAST_RUN").provided_optimizer.including("my_rewrite").include
        ('fast_run', 'my_rewrite')
        """
        opt = self.optimizer
        return RewriteQuery.named(opt) if isinstance(opt, str) else opt

    def get_rewriter(self) -> Callable[[Any], Any] | None:
        """The callable that rewrites a FunctionGraph in place, or ``None``."""
        base = None if self.optimizer is None else resolve_rewriter(self.optimizer)
        if not self.extra_rewriters:
            return base
        return _WithExtras(base, self.extra_rewriters)

    def register(self, *rewriters: tuple[Any, float]) -> Mode:
        """This mode with graph rewriters ``(rewriter, position)`` added (PyTensor's): those
        at PyTensor positions below 1 (before canonicalization) run before this mode's
        rewrites, the others after them.

        >>> from theon.rewriting import graph_rewriter
        >>> @graph_rewriter
        ... def nothing(fgraph):
        ...     "g -> g"
        >>> get_mode("FAST_RUN").register((nothing, -1)).extra_rewriters[0][1]
        -1
        """
        new = self.clone()
        new.extra_rewriters = (*self.extra_rewriters, *rewriters)
        return new

    def _with_query(self, how: str, tags: tuple[str, ...]) -> Mode:
        if how in ("including", "excluding"):
            tags = _known_tags(tags, how)
        query = self.optimizer
        if query is None:
            raise ValueError(f"mode {self} has no rewrites to refine with {how}{tags}")
        if not isinstance(query, RewriteQuery):
            query = RewriteQuery.named(query)
        new = Mode(self.linker, getattr(query, how)(*tags), name=None, tier=self.tier)
        new.extra_rewriters = self.extra_rewriters
        return new

    def including(self, *tags: str) -> Mode:
        """This mode with the rewrites tagged ``tags`` added.

        A tag or rewrite name that theon does not have (code written for PyTensor
        names PyTensor's rewrites) is left out, with a warning once per name.
        """
        return self._with_query("including", tags)

    def excluding(self, *tags: str) -> Mode:
        """This mode without the rewrites tagged ``tags`` (unknown names: as
        :meth:`including`)."""
        return self._with_query("excluding", tags)

    def requiring(self, *tags: str) -> Mode:
        """This mode restricted to rewrites that carry all of ``tags``."""
        return self._with_query("requiring", tags)

    def clone(self, link_kwargs: dict[str, Any] | None = None, **kw: Any) -> Mode:
        """A copy, optionally with another linker or optimizer."""
        new = Mode(kw.get("linker", self.linker), kw.get("optimizer", self.optimizer), self.name,
                   tier=kw.get("tier", self.tier))
        new.extra_rewriters = self.extra_rewriters
        return new


class _WithExtras:
    """A mode's rewriter with the graph rewriters of :meth:`Mode.register` around it."""

    def __init__(self, base: Callable[[Any], Any] | None,
                 extras: tuple[tuple[Any, float], ...]) -> None:
        self.base = base
        order = sorted(extras, key=lambda rp: rp[1])
        self.before = [r for r, p in order if p < 1]
        self.after = [r for r, p in order if p >= 1]

    def __call__(self, fgraph: Any) -> Any:
        for r in self.before:
            r.rewrite(fgraph)
        got = self.base(fgraph) if self.base is not None else None
        for r in self.after:
            r.rewrite(fgraph)
        return got


_WARNED_TAGS: set[str] = set()


def _known_tags(tags: tuple[str, ...], how: str) -> tuple[str, ...]:
    """``tags`` without the names no registered rewrite carries; each of those is
    reported once per process (a UserWarning), then left out silently."""
    known = rewrite_db.tags() if tags else set()
    if tags and not set(tags) <= known:
        load_rewrite_modules()  # the tensor rewrites register their tags on import
        known = rewrite_db.tags()
    out = []
    for t in tags:
        if t in known:
            out.append(t)
        elif t not in _WARNED_TAGS:
            _WARNED_TAGS.add(t)
            warnings.warn(
                f"Mode.{how}({t!r}): theon has no rewrite or tag named {t!r} (a name from "
                "another library?); it is ignored",
                UserWarning,
                stacklevel=4,
            )
    return tuple(out)


def get_default_mode() -> Mode:
    """The mode ``theon.function`` uses when given none (``config.mode``), PyTensor's
    ``pytensor.compile.mode.get_default_mode``.

    >>> get_default_mode().including("fast_run").linker.name in ("py", "vm")
    True
    """
    return get_mode(None)


def register_mode(name: str, factory: Callable[[], Mode]) -> None:
    """Make ``get_mode(name)`` (and ``function(..., mode=name)``) build ``factory()``."""
    _MODES[name] = factory


register_mode("FAST_RUN", lambda: Mode(linker=None, optimizer="fast_run", name="FAST_RUN"))
register_mode(
    "FAST_COMPILE", lambda: Mode(linker=None, optimizer="fast_compile", name="FAST_COMPILE")
)
register_mode("NO_REWRITES", lambda: Mode(linker=None, optimizer=None, name="NO_REWRITES"))
register_mode("JAX", lambda: Mode(linker="jax", optimizer=JAX_REWRITES, name="JAX"))
# theon's generated Python with tier-1 numba kernels (theon.link.numba)
register_mode("NUMBA", lambda: Mode(linker="numba", optimizer="fast_run", name="NUMBA"))
# PyTensor's and Theano's name of the default mode (config.mode's default there)
register_mode("Mode", lambda: Mode(linker=None, optimizer="fast_run", name="Mode"))
register_mode("REFERENCE", lambda: Mode(linker="vm", optimizer=None, name="REFERENCE"))


def _debug_mode() -> Mode:
    from theon.compile.debugmode import DebugMode  # (it subclasses Mode)

    return DebugMode()


def _nan_guard_mode() -> Mode:
    from theon.compile.nanguardmode import NanGuardMode  # (it subclasses Mode)

    return NanGuardMode()


register_mode("DebugMode", _debug_mode)
register_mode("DEBUG_MODE", _debug_mode)
register_mode("NanGuardMode", _nan_guard_mode)


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


def __getattr__(name: str) -> Mode:
    """PyTensor's module-level modes ``FAST_RUN`` and ``FAST_COMPILE`` (built on first use).

    >>> from theon.compile import mode
    >>> mode.FAST_COMPILE.optimizer
    'fast_compile'
    """
    if name in ("FAST_RUN", "FAST_COMPILE"):
        return get_mode(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
