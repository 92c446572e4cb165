"""Holding back Python's cyclic garbage collector while a graph is built or compiled.

Building a gradient or compiling a function allocates many short-lived, cyclic
graph objects.  With the collector at its usual pace, its passes over the
whole process heap grow with the heap, so a large graph would take more than
linear time; :func:`gc_paused` raises the first-generation threshold instead.

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
from typing import Any

__all__ = ["PAUSED_GEN0", "gc_paused"]

_lock = threading.Lock()
_state: dict[str, Any] = {"depth": 0, "threshold": None}
#: While paused, the collector runs only after this many new container objects:
#: never for ordinary graphs, and every so often for huge ones (bounded memory).
PAUSED_GEN0 = 1_000_000


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Hold back the cyclic garbage collector for the block, then restore it.

    The first-generation threshold is raised (to :data:`PAUSED_GEN0`) rather
    than the collector disabled, so a huge graph still collects now and then.
    The garbage is collected as usual afterwards.  Nested and concurrent blocks
    restore the thresholds once the last one ends.
    """
    with _lock:
        if _state["depth"] == 0:
            saved = gc.get_threshold()
            _state["threshold"] = saved
            if saved[0] != 0:  # 0: collection is off; leave it off
                gc.set_threshold(max(saved[0], PAUSED_GEN0), *saved[1:])
        _state["depth"] += 1
    try:
        yield
    finally:
        with _lock:
            _state["depth"] -= 1
            if _state["depth"] == 0:
                gc.set_threshold(*_state["threshold"])
