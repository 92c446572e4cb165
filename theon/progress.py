"""Progress on long work: a line on stderr saying what theon is doing.

Compiling (``theon.function``: the rewrite phases and linking), ``theon.grad`` and
the first call of a ``mode="JAX"`` function (its ``jax.jit`` trace and compile) open
a :func:`task`; the code doing the work names its *phases* and counts the nodes it
has done (:func:`phase`, :meth:`Task.advance`).  Once a task has run for
``config.progress_delay`` seconds (2 by default), a display on stderr shows the
task, its phase, the nodes done of the phase's total and the elapsed time, updated
a few times a second until the task ends; work that ends sooner prints nothing.

It is shown when ``config.progress`` is ``True`` (``THEON_FLAGS=progress=True``),
or when it is ``'auto'`` (the default) and stderr is a terminal; never when it is
``False``.  The display is drawn by `tqdm <https://tqdm.github.io>`_
(``pip install 'theon[progress]'``); without tqdm, plain lines are printed instead
(one per phase and a few per second, no terminal control codes), the first of them
saying how to get the live display.

When no display is enabled, :func:`task` costs one flag check and the phases a
thread-local read: a small compile is not slowed down.  A task inside another one
(an inner graph compiled while its outer function links) reports its phases under
the outer task's display, prefixed with its own name.

>>> from theon.config import change_flags
>>> with change_flags(progress=False):
...     with task("demo") as t:
...         phase("work", total=3) is None and t is None
True
"""

from __future__ import annotations

import importlib
import importlib.util
import io
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from theon.config import config

__all__ = ["Task", "current", "enabled", "phase", "task"]

#: seconds between two refreshes of a shown display (and between two plain lines: 4x)
REFRESH_S = 0.25



class _Local(threading.local):
    task: Task | None = None  # the task this thread is running


_local = _Local()
_lock = threading.RLock()
#: the outermost tasks of every thread that are being watched
_active: list[Task] = []
_wake = threading.Event()
_monitor: threading.Thread | None = None
_said_install = False


def enabled() -> bool:
    """Whether a display may be shown: ``config.progress`` is ``True``, or ``'auto'``
    and stderr is a terminal."""
    p = config.progress
    if p == "auto":
        isatty = getattr(sys.stderr, "isatty", None)
        try:
            return bool(isatty is not None and isatty())
        except ValueError:  # a closed stream
            return False
    return p is True


def current() -> Task | None:
    """The task this thread is running, or ``None`` (no task, or no display enabled)."""
    return _local.task


def phase(name: str, total: int | None = None) -> Task | None:
    """Start phase ``name`` of this thread's task (``total`` nodes to do, if known);
    returns the task (to :meth:`Task.advance` it), or ``None`` when there is none."""
    t = _local.task
    if t is not None:
        t.phase(name, total)
    return t


@contextmanager
def task(name: str, delay: float | None = None) -> Iterator[Task | None]:
    """Watch the work of a ``with`` block; show its progress after ``delay`` seconds
    (``None``: ``config.progress_delay``).  Yields the :class:`Task`, or ``None``
    when no display is enabled."""
    outer = _local.task
    if outer is not None:  # nested: report under the outer task's display
        saved = outer.enter(name)
        try:
            yield outer
        finally:
            outer.leave(saved)
        return
    if not enabled():
        yield None
        return
    if delay is None:
        delay = float(config.progress_delay)
    t = Task(name, delay)
    _local.task = t
    with _lock:
        _active.append(t)
    if delay <= 0:
        t.show()
    _start_monitor()
    try:
        yield t
    finally:
        _local.task = None
        with _lock:
            _active.remove(t)
        t.close()


class Task:
    """One watched piece of work: its name, current phase and counts.

    The thread doing the work writes ``done`` (:meth:`advance`); the monitor thread
    only reads, and draws.
    """

    def __init__(self, name: str, delay: float) -> None:
        self.name = name
        self.delay = delay
        self.t0 = time.perf_counter()
        self.phase_name = ""
        self.prefix = ""
        self.done = 0
        self.total: int | None = None
        self._display: _Display | None = None

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.t0

    def phase(self, name: str, total: int | None = None) -> None:
        """Start phase ``name`` with ``total`` nodes to do (``None``: not counted)."""
        self.end_phase()
        self.phase_name = self.prefix + name
        self.done = 0
        self.total = total
        if self._display is not None:
            self.refresh(new_phase=True)
        elif self.elapsed >= self.delay:
            self.show()

    def end_phase(self) -> None:
        """The current phase is over: all its nodes are done."""
        if self.total is not None:
            self.done = max(self.done, self.total)
        if self._display is not None and self.phase_name:
            self.refresh(end_of_phase=True)

    def advance(self, n: int = 1, total: int | None = None) -> None:
        """``n`` more nodes done (and the phase's total, where it grew)."""
        self.done += n
        if total is not None:
            self.total = total

    def enter(self, name: str) -> tuple[str, str, int, int | None]:
        """A nested task begins: its phases are shown as ``name: phase``."""
        saved = (self.prefix, self.phase_name, self.done, self.total)
        self.prefix = f"{self.prefix}{name}: "
        self.phase_name, self.done, self.total = "", 0, None
        return saved

    def leave(self, saved: tuple[str, str, int, int | None]) -> None:
        """The nested task ends: back to the phase it interrupted."""
        self.end_phase()
        self.prefix, self.phase_name, self.done, self.total = saved

    # drawing (under _lock) ---------------------------------------------------------
    def show(self) -> None:
        with _lock:
            if self._display is None:
                self._display = _Display(self, sys.stderr)
                self._display.update(self, new_phase=True)

    def refresh(self, new_phase: bool = False, end_of_phase: bool = False) -> None:
        with _lock:
            if self._display is not None:
                self._display.update(self, new_phase, end_of_phase)

    def close(self) -> None:
        self.end_phase()
        with _lock:
            if self._display is not None:
                self._display.close()
                self._display = None

    def text(self) -> str:
        """``'task: phase 120/400 nodes'`` (what the display shows, without the time)."""
        where = f"{self.name}: {self.phase_name}" if self.phase_name else self.name
        if self.total is not None:
            return f"{where} {min(self.done, self.total)}/{self.total} nodes"
        if self.done:
            return f"{where} {self.done} nodes"
        return where


class _Display:
    """A tqdm bar on ``file``, or plain lines where tqdm is not installed."""

    def __init__(self, t: Task, file: TextIO) -> None:
        global _said_install
        self.file = file
        self.bar: Any = None
        self.last_line = 0.0
        tqdm = _load_tqdm()
        if tqdm is not None:
            # the line follows the terminal's width; one that reports none (a file, a
            # pipe, a terminal of 0 columns) gets the whole line
            width = {"dynamic_ncols": True} if _columns(file) else {"ncols": 1000}
            self.bar = tqdm(total=None, file=file, leave=True, mininterval=0,
                            desc=t.text(), bar_format="theon: {desc} [{elapsed}]", **width)
            # the time counts from the start of the work, not from when it was shown
            self.bar.start_t = self.bar._time() - t.elapsed
        elif not _said_install:
            _said_install = True
            file.write("theon: (pip install tqdm for a live progress display)\n")

    def update(self, t: Task, new_phase: bool, end_of_phase: bool = False) -> None:
        """Draw ``t``: a new phase, the end of one (a plain line says how far it got),
        or a refresh while it runs."""
        if self.bar is not None:
            if not end_of_phase or t.done:  # (a phase without counts shows as it was)
                self.bar.set_description_str(t.text(), refresh=False)
                self.bar.refresh()
            return
        now = t.elapsed
        if end_of_phase or (not new_phase and now - self.last_line >= 4 * REFRESH_S):
            self.last_line = now
            self.file.write(f"theon: {t.text()}, {now:.1f} s\n")
            self.file.flush()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _columns(file: TextIO) -> int:
    """The width of the terminal ``file`` writes to (0: unknown, or not a terminal)."""
    try:
        return os.get_terminal_size(file.fileno()).columns
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return 0


def _load_tqdm() -> Any:
    """``tqdm.tqdm``, or ``None`` where tqdm is not installed."""
    if importlib.util.find_spec("tqdm") is None:
        return None
    return importlib.import_module("tqdm").tqdm


def _start_monitor() -> None:
    """Start the thread that shows tasks once they pass their delay, and refreshes
    them (one daemon thread per process, started on the first watched task)."""
    global _monitor
    _wake.set()
    if _monitor is not None and _monitor.is_alive():
        return
    with _lock:  # (a forked child has the parent's object, but not its thread)
        if _monitor is None or not _monitor.is_alive():
            _monitor = threading.Thread(target=_watch, name="theon-progress", daemon=True)
            _monitor.start()


def _watch() -> None:
    while True:
        _wake.wait()
        time.sleep(REFRESH_S)
        with _lock:
            tasks = list(_active)
            if not tasks:
                _wake.clear()
        for t in tasks:
            try:
                if t._display is not None:
                    t.refresh()
                elif t.elapsed >= t.delay:
                    t.show()
            except (OSError, ValueError):  # stderr closed or gone: nothing to show on
                pass
