"""The background compiler: one daemon thread, started on the first job.

A :class:`Slot` holds the tier-1 state of one kernel (a fused node, a scan
loop).  Tier 0 serves every call until the job submitted for the slot has
finished; the caller never waits.  The job's result becomes ``slot.impl`` by
one assignment, and ``slot.ready`` is set.  The first call that finds
``impl`` checks its results against tier 0 (:func:`close_enough`); a kernel
that disagrees is dropped for good, with a warning naming the node.

>>> s = Slot("demo")
>>> s.submit(lambda: (lambda x: x + 1))
True
>>> wait(10.0)
True
>>> s.state, s.impl(41)
('verify', 42)
"""

from __future__ import annotations

import atexit
import os
import queue
import threading
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["STATS", "Slot", "close_enough", "reset_stats", "submit", "wait", "worker_started"]

#: Counters of what tier 1 did in this process (read with :func:`theon.link.tier1.stats`).
STATS: dict[str, int] = {}
_STAT_NAMES = (
    "submitted", "compiled", "failed", "verified", "dropped", "slower", "disk_hits",
    "disk_misses", "disk_corrupt", "disk_evicted", "tier1_calls",
)


def reset_stats() -> None:
    """Set every counter of :data:`STATS` to 0."""
    for k in _STAT_NAMES:
        STATS[k] = 0


reset_stats()
_stats_lock = threading.Lock()


def bump(name: str, by: int = 1) -> None:
    """Add ``by`` to counter ``name``."""
    with _stats_lock:
        STATS[name] = STATS.get(name, 0) + by


_jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
_thread: threading.Thread | None = None
_lock = threading.Lock()
_idle = threading.Condition(_lock)
_pending = 0


def worker_started() -> bool:
    """Whether the background thread has been started in this process."""
    return _thread is not None and _thread.is_alive()


_exiting = False
#: seconds the interpreter's exit waits for a compile in progress
EXIT_WAIT_S = 120.0


def _at_exit() -> None:
    """At interpreter exit, start no more jobs and let the one in progress finish.

    A daemon thread still inside a compiler's C++ code when the interpreter
    finalizes is unwound by force, which aborts the process ("FATAL: exception
    not rethrown"); so exit waits (at most :data:`EXIT_WAIT_S`) for that job,
    and the jobs still queued are skipped.
    """
    global _exiting
    _exiting = True
    wait(EXIT_WAIT_S)


def _run() -> None:
    global _pending
    while True:
        job = _jobs.get()
        from theon.config import config

        # the call that asked for the job is still finishing (the rest of its graph, its
        # outputs): a compile holds the interpreter lock much of the time, so let that
        # call (the first result) finish first
        if not _exiting:
            time.sleep(max(0.0, float(config.tier1_delay_ms)) / 1000.0)
        if _exiting:
            job = _skip
        try:
            job()
        except BaseException:
            pass
        finally:
            with _lock:
                _pending -= 1
                if _pending == 0:
                    _idle.notify_all()


def _skip() -> None:
    """A job not run (the interpreter is exiting)."""


def submit(job: Callable[[], None]) -> None:
    """Run ``job()`` on the background thread (started now if it is not running)."""
    global _thread, _pending
    with _lock:
        _pending += 1
        if _thread is None or not _thread.is_alive():
            if _thread is None:
                atexit.register(_at_exit)
            _thread = threading.Thread(target=_run, name="theon-tier1", daemon=True)
            _thread.start()
    _jobs.put(job)


def wait(timeout: float | None = None) -> bool:
    """Wait until every submitted tier-1 job has finished; False on timeout.

    Calls never need this (tier 0 serves them meanwhile); a benchmark or a
    test uses it to measure or check the tier-1 kernels.

    >>> wait(1.0)  # (nothing submitted, or all done)
    True
    """
    with _lock:
        return _idle.wait_for(lambda: _pending == 0, timeout)


def _forget_after_fork() -> None:
    global _thread, _pending, _jobs, _lock, _idle
    _thread, _pending = None, 0
    _jobs = queue.SimpleQueue()
    _lock = threading.Lock()
    _idle = threading.Condition(_lock)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)


# tolerances when checking a tier-1 result against tier 0, by dtype kind and size
_TOL = {2: (1e-2, 1e-3), 4: (1e-4, 1e-6), 8: (1e-9, 1e-12)}


def close_enough(a: Any, b: Any) -> bool:
    """Whether tier-1 result ``a`` matches tier-0 result ``b`` (tolerance by dtype).

    Floats: ``allclose`` with rtol/atol 1e-9/1e-12 (float64), 1e-4/1e-6
    (float32), 1e-2/1e-3 (float16), NaNs equal; anything else: exactly equal.

    >>> close_enough(np.array([1.0, np.nan]), np.array([1.0 + 1e-13, np.nan]))
    True
    >>> close_enough(np.array([1, 2]), np.array([1, 3]))
    False
    """
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind in "fc":
        rtol, atol = _TOL.get(a.real.dtype.itemsize, _TOL[8])
        return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))
    return bool(np.array_equal(a, b))


IDLE, PENDING, VERIFY, READY, DROPPED, FAILED = (
    "idle", "pending", "verify", "ready", "dropped", "failed")


class Slot:
    """The tier-1 state of one kernel.

    Attributes
    ----------
    state
        ``"idle"`` (nothing asked yet), ``"pending"`` (compiling), ``"verify"``
        (compiled, first call to check), ``"ready"`` (in use), ``"dropped"``
        (disagreed with tier 0, or slower), ``"failed"`` (could not compile).
    impl
        The tier-1 kernel once compiled, else ``None``.  Replaced by one
        assignment, so a call sees either the old or the new kernel.
    ready
        Set when the job has finished (whatever its outcome).
    error
        Why the compile failed, for ``"failed"``.
    """

    def __init__(self, what: str, node: Any = None) -> None:
        self.what = what
        self.node = node
        self.state = IDLE
        self.impl: Any = None
        self.ready = threading.Event()
        self.error: str | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Slot({self.what!r}, state={self.state!r})"

    def submit(self, build: Callable[[], Any]) -> bool:
        """Compile ``build()`` in the background, once; False if already asked."""
        with self._lock:
            if self.state != IDLE:
                return False
            self.state = PENDING
        bump("submitted")

        def job() -> None:
            try:
                impl = build()
            except BaseException as e:
                self.error = f"{type(e).__name__}: {e}"
                self.state = FAILED
                bump("failed")
            else:
                if impl is None:
                    self.state = FAILED
                    bump("failed")
                else:
                    bump("compiled")
                    self.state = VERIFY if self.needs_check() else READY
                    self.impl = impl  # the swap: one assignment
            finally:
                self.ready.set()

        submit(job)
        return True

    def needs_check(self) -> bool:
        """Whether the first call must check the kernel against tier 0 (always)."""
        return True

    def verified(self) -> None:
        """The first call's results matched tier 0."""
        self.state = READY
        bump("verified")

    def drop(self, reason: str, warn: bool = True) -> None:
        """Give tier 1 up for good for this kernel (tier 0 stays)."""
        self.impl = None
        self.state = DROPPED
        if warn:
            bump("dropped")
            where = ""
            if self.node is not None:
                from theon.link.basic import node_context

                where = "\n" + node_context(self.node)
            warnings.warn(
                f"theon tier 1: the compiled kernel of {self.what} {reason}; it is dropped "
                f"and the tier-0 kernel stays{where}",
                RuntimeWarning,
                stacklevel=3,
            )
        else:
            bump("slower")
