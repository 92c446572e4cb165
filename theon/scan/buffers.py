"""Reusing a Scan's large output buffers from one run to the next, once nothing holds them.

A Scan allocates its state histories and stacked outputs with ``numpy.empty`` on
every run.  Arrays of a megabyte or more come from the C library's ``mmap`` and
go back to the system when freed, so every run pays a page fault for each page
of each buffer, first touched by the loop (on a 2-core AVX2 machine, about
0.3 ms for the 1.6 MB history of a 200-step RNN: as much as its 200 products).

:class:`BufferCache` keeps the last array it handed out per key.  The next run
reuses it only when nothing else refers to it any more: no caller kept the
output, and no view of it is alive (a NumPy view holds a reference to the array
owning the data).  This is checked with the reference count, after the array
has been taken out of the cache (an atomic ``dict.pop``, so two threads never
get the same array).  A reused array holds the previous run's values; a Scan
writes every row before reading it, as with ``numpy.empty``.

>>> cache = BufferCache()
>>> a = cache.empty("h", (512, 1024), np.float64)
>>> addr = a.ctypes.data
>>> del a  # nothing refers to it any more: the next run gets it again
>>> cache.empty("h", (512, 1024), np.float64).ctypes.data == addr
True
>>> kept = cache.empty("h", (512, 1024), np.float64)
>>> cache.empty("h", (512, 1024), np.float64) is kept  # still in use: a new array
False
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Hashable
from typing import Any

import numpy as np

__all__ = ["MAX_BYTES", "MAX_ENTRIES", "MIN_BYTES", "BufferCache"]

#: Arrays smaller than this are allocated fresh (NumPy and malloc reuse small blocks).
MIN_BYTES = 1 << 18
#: Arrays larger than this are not kept between runs (the memory is given back; the
#: page faults of a larger buffer cost little next to the loop that fills it).
MAX_BYTES = 1 << 22
#: Arrays kept per cache (one per key: a Scan node's output, shape and dtype), so a
#: Scan keeps at most ``MAX_ENTRIES * MAX_BYTES`` between runs.
MAX_ENTRIES = 4

# references to a free array while ``empty`` checks it: the local name and the argument
# of ``sys.getrefcount``
_FREE_REFS = 2
# reference counts are a sound test only with the GIL (a free-threaded build may defer them)
_COUNTS_RELIABLE = bool(getattr(sys, "_is_gil_enabled", lambda: True)())


class BufferCache:
    """Hands out uninitialized arrays, reusing the previous one of the same key when
    nothing refers to it any more (see the module docstring)."""

    __slots__ = ("_free", "_lock")

    def __init__(self) -> None:
        self._free: dict[Hashable, Any] = {}
        self._lock = threading.Lock()

    def empty(self, key: Hashable, shape: tuple[int, ...], dtype: Any) -> Any:
        """An uninitialized array of ``shape`` and ``dtype`` (like ``numpy.empty``)."""
        dt = np.dtype(dtype)
        nbytes = dt.itemsize
        for s in shape:
            nbytes *= s
        if not _COUNTS_RELIABLE or not MIN_BYTES <= nbytes <= MAX_BYTES:
            return np.empty(shape, dtype=dt)
        k = (key, tuple(shape), dt)
        a = self._free.pop(k, None)
        if a is None or sys.getrefcount(a) != _FREE_REFS:
            a = np.empty(shape, dtype=dt)
        with self._lock:
            self._free[k] = a
            while len(self._free) > MAX_ENTRIES:
                self._free.pop(next(iter(self._free)))
        return a

    def clear(self) -> None:
        """Forget every kept array."""
        with self._lock:
            self._free.clear()
