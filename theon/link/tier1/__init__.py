"""Tier 1: faster kernels, compiled in the background while tier 0 serves calls.

Tier 0 is what the py linker generates: fused elementwise nodes run as blocked
NumPy kernels over a thread pool (:mod:`theon.link.pyfunc.kernel`), a scan
whose body is all numbers runs as one Python loop (:mod:`theon.scan.fastloop`).
With tier 1 on, the first call of such a kernel with enough work (elements,
steps) hands a compile job to one background thread (:mod:`.worker`), and
returns tier 0's result: no call ever waits on a compile.  When the job is
done the kernel is swapped in by one assignment; its first call is checked
against tier 0 on the same inputs, and a kernel that disagrees is dropped for
good with a warning naming the node.  Compiled kernels are kept on disk
(:mod:`.diskcache`), so the next process starts warm.

The compilers, chosen by measurement (docs/tier1.md):

- fused elementwise nodes: XLA through jax (:mod:`.xla`), fixed-size chunks
  run on the elementwise thread pool;
- smaller fused float64 nodes with ``tanh``: one numba loop (:mod:`.nbelem`), with
  a ``tanh`` that vectorizes (:mod:`.nbmath`);
- scan loops on Python numbers: numba (:mod:`.loops`).

Both are optional (``theon[jax]``, ``theon[numba]``): without them tier 0 stays,
and the profiler's summary says so once.

``config.tier`` (``0``, ``1``, ``"auto"``) and ``Mode(tier=...)`` switch it.

>>> from theon.link.tier1 import resolve_tier
>>> resolve_tier(0)
0
"""

from __future__ import annotations

import contextlib
import contextvars
import importlib.util
from collections.abc import Iterator
from typing import Any

from theon.link.tier1.worker import STATS, Slot, close_enough, reset_stats, wait, worker_started

__all__ = [
    "Slot",
    "accepts",
    "allowed",
    "available",
    "close_enough",
    "compiler",
    "describe",
    "link_compilers",
    "link_tier",
    "resolve_tier",
    "stats",
    "use_compiler",
    "wait",
    "worker_started",
]

#: Kinds of tier-1 kernels and the module of their default compiler (and what it needs).
_DEFAULTS = {
    "elemwise": ("theon.link.tier1.xla", "jax"),
    "elemwise_small": ("theon.link.tier1.nbelem", "numba"),
    "loop": ("theon.link.tier1.loops", "numba"),
    "graph": ("theon.link.tier1.nbgraph", "numba"),
}
_overrides: dict[str, Any] = {}
_installed: dict[str, bool] = {}
_defaults: dict[str, Any] = {}


def available(kind: str) -> bool:
    """Whether a compiler for ``kind`` (``"elemwise"``, ``"elemwise_small"``, ``"loop"``)
    can be used.

    >>> with use_compiler("loop", None):
    ...     available("loop")
    False
    """
    if kind in _overrides:
        return _overrides[kind] is not None
    have = _installed.get(kind)
    if have is None:  # (looked up once: a search of sys.path)
        try:
            have = importlib.util.find_spec(_DEFAULTS[kind][1]) is not None
        except (ImportError, ValueError):  # (a module blocked by sys.modules[name] = None)
            have = False
        _installed[kind] = have
    return have


def accepts(kind: str, what: Any) -> bool:
    """Whether the compiler for ``kind`` may take ``what`` (a fused node's
    ``KernelSpec``), asked at link time without importing the compiler; an
    injected compiler (:func:`use_compiler`) takes everything."""
    if kind in _overrides:
        return _overrides[kind] is not None
    if kind == "elemwise":
        from theon.link.tier1.xla import supports

        return supports(what)
    if kind == "elemwise_small":
        from theon.link.tier1.nbelem import supports as small_supports

        return small_supports(what)
    return True


def compiler(kind: str) -> Any:
    """The compiler object for ``kind``, or None when none is installed.

    Only the background thread calls this for the default compilers: jax and
    numba are imported there, never by a call.
    """
    if kind in _overrides:
        return _overrides[kind]
    if not available(kind):
        return None
    if kind not in _defaults:
        mod = importlib.import_module(_DEFAULTS[kind][0])
        _defaults[kind] = mod.make_compiler()
    return _defaults[kind]


@contextlib.contextmanager
def use_compiler(kind: str, comp: Any) -> Iterator[None]:
    """Use ``comp`` (``None``: no compiler) for kernels of ``kind`` inside the block;
    for tests, which inject slow or wrong compilers.

    >>> with use_compiler("elemwise", None):
    ...     compiler("elemwise") is None
    True
    """
    old = _overrides.get(kind, _overrides)
    _overrides[kind] = comp
    try:
        yield
    finally:
        if old is _overrides:
            _overrides.pop(kind, None)
        else:
            _overrides[kind] = old


def resolve_tier(tier: int | str | None) -> int:
    """0 or 1 for a mode's ``tier`` (``None``: ``config.tier``; ``"auto"``: 1 when a
    kernel compiler is installed)."""
    if tier is None:
        from theon.config import config

        tier = config.tier
    if tier == "auto":
        return 1 if any(available(k) for k in _DEFAULTS) else 0
    if tier in (0, 1):
        return int(tier)
    raise ValueError(f"tier must be 0, 1 or 'auto', got {tier!r}")


_link_tier: contextvars.ContextVar[int] = contextvars.ContextVar("theon_tier", default=0)


@contextlib.contextmanager
def link_tier(tier: int) -> Iterator[None]:
    """Emitters inside this block link with tier ``tier`` (set by the py linker)."""
    tok = _link_tier.set(tier)
    try:
        yield
    finally:
        _link_tier.reset(tok)


_link_kinds: contextvars.ContextVar[frozenset[str] | None] = contextvars.ContextVar(
    "theon_tier1_kinds", default=None)


@contextlib.contextmanager
def link_compilers(kinds: frozenset[str] | None) -> Iterator[None]:
    """Emitters inside this block make tier-1 kernels of ``kinds`` only (``None``:
    every kind), and of those an enclosing block allows; ``mode="NUMBA"`` links with
    ``{"elemwise_small", "loop", "graph"}``, an inner graph (a scan's body) without
    ``"graph"`` (it is part of its outer function's graph).

    >>> with link_compilers(frozenset({"loop", "graph"})):
    ...     with link_compilers(frozenset({"loop"})):
    ...         allowed("loop"), allowed("graph")
    (True, False)
    """
    outer = _link_kinds.get()
    if outer is not None:
        kinds = outer if kinds is None else kinds & outer
    tok = _link_kinds.set(kinds)
    try:
        yield
    finally:
        _link_kinds.reset(tok)


def allowed(kind: str) -> bool:
    """Whether the link in progress may make tier-1 kernels of ``kind``.

    >>> with link_compilers(frozenset({"loop"})):
    ...     allowed("loop"), allowed("elemwise")
    (True, False)
    """
    kinds = _link_kinds.get()
    return kinds is None or kind in kinds


def current_tier() -> int:
    """The tier of the link in progress (0 outside one).

    >>> with link_tier(1):
    ...     current_tier()
    1
    """
    return _link_tier.get()


def describe(tier: int | str | None) -> str:
    """One line for the profiler: whether tier 1 is on, and with which compilers
    (``tier`` as a mode gives it: ``None`` is ``config.tier``)."""
    if tier is None:
        from theon.config import config

        tier = config.tier
    if tier == 0:
        return "tier 1: off (tier=0); fused nodes and scan loops run their tier-0 kernels"
    have = [f"{k}: {_DEFAULTS[k][1]}" for k in _DEFAULTS if available(k)]
    missing = list(dict.fromkeys(_DEFAULTS[k][1] for k in _DEFAULTS if not available(k)))
    if not have:
        return ("tier 1: no kernel compiler installed (pip install theon[jax] or theon[numba]);"
                " staying on tier 0")
    text = "tier 1: on (" + ", ".join(have) + ")"
    if missing:
        text += f"; without {', '.join(missing)} the rest stays on tier 0"
    return text


def stats() -> dict[str, int]:
    """A copy of this process's tier-1 counters (jobs, swaps, disk-cache hits, ...).

    >>> sorted(stats())[:3]
    ['compiled', 'disk_corrupt', 'disk_evicted']
    """
    return dict(STATS)


def inner_kinds() -> frozenset[str]:
    """The kinds of tier-1 kernels an inner graph (a scan's body, an OpFromGraph's graph)
    may have: all but the whole graph's, which only a function's own graph gets.

    >>> sorted(inner_kinds())
    ['elemwise', 'elemwise_small', 'loop']
    """
    return frozenset(_DEFAULTS) - {"graph"}


__all__ += ["current_tier", "inner_kinds", "reset_stats"]
