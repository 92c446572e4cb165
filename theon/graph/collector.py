"""Holding back Python's cyclic garbage collector while a graph is built or compiled.

Building a gradient or compiling a function allocates many short-lived, cyclic
graph objects, and the graph being built survives every collection: at the
collector's usual pace its passes over the growing graph cost more than the
work itself (on a 4000-term gradient, compiling took 40% longer and ``grad``
60% longer without this).  :func:`gc_paused` raises the first-generation
threshold for the duration of the block instead.

Python's collector settings belong to the whole process, so the change is
scoped as tightly as the settings allow: it lasts exactly as long as some
paused block runs (in any thread), it is undone when the last such block ends,
normally or by an exception, and a setting made meanwhile by someone else
(``gc.set_threshold``, ``gc.disable``) is kept rather than overwritten.
Whether the collector is enabled is never changed.

>>> import gc
>>> before = gc.get_threshold()
>>> with gc_paused():
...     gc.get_threshold()[0] >= before[0]
True
>>> gc.get_threshold() == before
True
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

__all__ = ["PAUSED_GEN0", "gc_paused"]

#: While paused, the collector runs only after this many new container objects:
#: never for ordinary graphs, and every so often for huge ones (bounded memory).
PAUSED_GEN0 = 1_000_000


class _Pause:
    """The process-wide pause: how many blocks hold it, and what to restore."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.depth = 0
        self.saved: tuple[int, ...] | None = None  # the thresholds before the pause
        self.applied: tuple[int, ...] | None = None  # the thresholds the pause set

    def enter(self) -> None:
        with self.lock:
            if self.depth == 0:
                saved = gc.get_threshold()
                self.saved, self.applied = saved, None
                if saved[0] != 0:  # 0: automatic collection is off; leave it off
                    gc.set_threshold(max(saved[0], PAUSED_GEN0), *saved[1:])
                    self.applied = gc.get_threshold()
            self.depth += 1

    def exit(self) -> None:
        with self.lock:
            self.depth -= 1
            if self.depth == 0:
                saved, applied = self.saved, self.applied
                self.saved = self.applied = None
                # restore only what the pause set: a threshold someone chose meanwhile stays
                if saved is not None and applied is not None and gc.get_threshold() == applied:
                    gc.set_threshold(*saved)


_pause = _Pause()


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Hold back the cyclic garbage collector for the block, then restore it.

    The first-generation threshold is raised (to :data:`PAUSED_GEN0`) rather
    than the collector disabled, so a huge graph still collects now and then.
    The thresholds are restored when the block ends, also when it raises;
    nested and concurrent blocks (other threads) restore them once the last one
    ends.  Thresholds set by someone else during the block are left as they are.
    """
    _pause.enter()
    try:
        yield
    finally:
        _pause.exit()
