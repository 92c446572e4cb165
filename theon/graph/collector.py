"""Holding back Python's cyclic garbage collector while graphs are built or compiled.

Building a gradient or compiling a function allocates many short-lived, cyclic
graph objects, and the graph being built survives every collection: at the
collector's usual pace its passes over the growing graph cost more than the
work itself (on a 4000-term gradient, compiling took 40% longer and ``grad``
60% longer without this).  :func:`gc_paused` raises the first-generation
threshold for the duration of the block instead.

A program that builds a model calls theon many times in a row (PyMC builds the
log-density of each of a model's variables with a few calls of its own between
theon's), and every collection of the oldest generation walks the whole heap,
most of it graph objects.  So when the last paused block ends, the threshold
only comes down to :data:`LINGER_GEN0`, and stays there while theon keeps being
called: the collector's first run with no paused block begun since its previous
run (at most twice that many new container objects after theon's last call)
puts the thresholds back as they were.  :func:`gc_resume` puts them back at
once.  (Compiling the logp and gradient of a 1000-variable PyMC model ran about
14 full collections without this, 2 with it.)

Python's collector settings belong to the whole process, so the change is
scoped as tightly as the settings allow: only the first-generation threshold
is raised, a setting made meanwhile by someone else (``gc.set_threshold``,
``gc.disable``) is kept rather than overwritten, and whether the collector is
enabled is never changed.

>>> import gc
>>> gc_resume()  # (a pause that earlier work left lingering)
>>> before = gc.get_threshold()
>>> with gc_paused():
...     gc.get_threshold()[0] >= before[0]
True
>>> gc_resume()
>>> gc.get_threshold() == before
True
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["LINGER_GEN0", "PAUSED_GEN0", "gc_paused", "gc_resume"]

#: While paused, the collector runs only after this many new container objects:
#: never for ordinary graphs, and every so often for huge ones (bounded memory).
PAUSED_GEN0 = 1_000_000

#: After the last paused block, while theon keeps being called (see the module's
#: docstring): the first-generation threshold that lets the next call share the pause.
LINGER_GEN0 = 20_000


class _Pause:
    """The process-wide pause: how many blocks hold it, and what to restore."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.depth = 0
        self.saved: tuple[int, ...] | None = None  # the thresholds before the pause
        self.applied: tuple[int, ...] | None = None  # the thresholds the pause set
        self.hooked = False  # whether _on_collect is in gc.callbacks
        self.used = False  # whether a block began since the collector last ran

    def enter(self) -> None:
        with self.lock:
            if self.depth == 0:
                now = gc.get_threshold()
                if self.saved is None or now != self.applied:
                    # a fresh pause (or someone set the thresholds since the last one)
                    self.saved, self.applied = now, None
                if self.saved[0] != 0:  # 0: automatic collection is off; leave it off
                    gc.set_threshold(max(self.saved[0], PAUSED_GEN0), *self.saved[1:])
                    self.applied = gc.get_threshold()
            self.depth += 1
            self.used = True

    def exit(self) -> None:
        with self.lock:
            self.depth -= 1
            if self.depth == 0:
                saved, applied = self.saved, self.applied
                if saved is None or applied is None or gc.get_threshold() != applied:
                    # nothing set, or someone set the thresholds meanwhile: theirs stay
                    self.saved = self.applied = None
                    return
                # linger while theon keeps being called (see the module's docstring)
                gc.set_threshold(max(saved[0], LINGER_GEN0), *saved[1:])
                self.applied = gc.get_threshold()
                if not self.hooked:
                    gc.callbacks.append(_on_collect)
                    self.hooked = True

    def resume(self, blocking: bool = True) -> None:
        """End a lingering pause (not a running one): put the thresholds back."""
        if not self.lock.acquire(blocking):
            return  # a collection inside enter/exit: the next one restores
        try:
            if self.depth == 0 and self.saved is not None:
                saved, applied = self.saved, self.applied
                self.saved = self.applied = None
                if applied is not None and gc.get_threshold() == applied:
                    gc.set_threshold(*saved)
        finally:
            self.lock.release()


_pause = _Pause()


def _on_collect(phase: str, info: dict[str, Any]) -> None:
    """``gc.callbacks`` hook: the collector's run ends a lingering pause, unless a
    paused block began since its previous run."""
    if phase == "start" and _pause.saved is not None and _pause.depth == 0:
        if _pause.used:  # theon still at work between the collector's runs: keep lingering
            _pause.used = False
        else:
            _pause.resume(blocking=False)


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Hold back the cyclic garbage collector for the block.

    The first-generation threshold is raised (to :data:`PAUSED_GEN0`) rather
    than the collector disabled, so a huge graph still collects now and then.
    When the block ends (also when it raises) and no other block (nested, or in
    another thread) runs, the threshold comes down to :data:`LINGER_GEN0` until
    the collector runs twice with no block begun in between, which restores the
    thresholds as they were (see the module's docstring; :func:`gc_resume`
    restores them at once).
    Thresholds set by someone else during the block are left as they are.
    """
    _pause.enter()
    try:
        yield
    finally:
        _pause.exit()


def gc_resume() -> None:
    """Restore the collector's thresholds now, if a pause is lingering (see
    :func:`gc_paused`); a paused block still running keeps its pause."""
    _pause.resume()
