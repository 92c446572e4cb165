"""Tier-1 loops compiled by numba: a scan's loop on Python numbers, as machine code.

The scan's fast loop (:mod:`theon.scan.fastloop`) is Python code on Python
numbers; the same lines, with arrays for the histories and sequences, compile
with numba to a loop without any interpreter overhead.  The source is written
to a file in the disk cache (:mod:`.diskcache`) named by its hash and
decorated with ``numba.njit(cache=True)``, so numba keeps the machine code
next to it and a later process loads it instead of compiling.  The text theon
made is what runs (never the file, nor a ``.pyc`` of it), and numba's cache files
(pickles) are loaded only from a private directory and only when they pass the
disk cache's entry check (:mod:`theon.link.diskcache`).

numba is imported by :func:`make_compiler`, which only the background thread calls.
"""

from __future__ import annotations

import math
import os
import pickle
import stat
import subprocess
import sys
import threading
import types
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from theon.link.tier1.diskcache import DiskCache, default_cache, structural_hash
from theon.link.tier1.worker import bump

__all__ = ["NumbaLoopCompiler", "loop_globals", "make_compiler"]


def loop_globals(namespace: dict[str, Any], names: Sequence[str]) -> list[str] | None:
    """Source lines defining ``names`` (globals of generated loop code) for a module
    numba compiles, or None if one is something numba cannot take (a Python helper).

    >>> loop_globals({"_sin": math.sin, "_c": 0.5, "inf": math.inf}, ["_sin", "_c", "inf"])
    ['from math import sin as _sin', '_c = 0.5', "inf = float('inf')"]
    >>> loop_globals({"_h": print}, ["_h"]) is None
    True
    """
    lines: list[str] = []
    for name in names:
        v = namespace[name]
        if v is math:
            lines.append(f"import math as {name}")
        elif v is np:
            lines.append(f"import numpy as {name}")
        elif type(v) in (float, np.float64):
            f = float(v)
            lines.append(f"{name} = float({str(f)!r})" if not math.isfinite(f)
                         else f"{name} = {f!r}")
        elif type(v) in (int, bool):
            lines.append(f"{name} = {v!r}")
        elif callable(v) and getattr(math, str(getattr(v, "__name__", "")), None) is v:
            lines.append(f"from math import {getattr(v, '__name__', '')} as {name}")
        else:
            return None
    return lines


class NumbaLoopCompiler:
    """Compiles loop source with numba into the disk cache (see the module docstring)."""

    name = "numba"

    def __init__(self, cache: DiskCache | None = None) -> None:
        import numba

        self.numba = numba
        self.version = f"numba {numba.__version__}"
        self._cache = cache
        self._lock = threading.Lock()
        self._loaded: dict[str, Callable[..., Any]] = {}

    @property
    def cache(self) -> DiskCache:
        return self._cache if self._cache is not None else default_cache()

    def compile_loop(self, header: Sequence[str], source: str, fname: str,
                     sample: Sequence[Any], options: str = "cache=True, nogil=True",
                     elsewhere: bool = False) -> Callable[..., Any]:
        """``fname`` of ``header`` + ``source``, compiled by numba (``numba.njit(options)``,
        which must include ``cache=True``) for the types of ``sample`` (arguments of a
        run of no steps, made now so the first real call does not compile).

        ``elsewhere``: numba compiles in a child process, which writes the machine code
        to the disk cache, and this process loads it.  numba's compiler is Python that
        holds the interpreter lock; a large function's compile on the background thread
        would slow the calls that tier 0 serves meanwhile.  (Where the cache cannot be
        used, or the child fails, the compile happens here.)"""
        key = "nbloop_" + structural_hash(tuple(header), source, self.version, options)
        with self._lock:
            fn = self._loaded.get(key)
        if fn is None:
            text = "\n".join(["import numba", *header, "",
                              f"@numba.njit({options})", source, ""])
            try:
                fn = self._load(key, text, fname, sample, elsewhere)
            except Exception:
                bump("disk_corrupt")
                self._clear(key)
                fn = self._load(key, text, fname, sample, False)
            with self._lock:
                self._loaded[key] = fn
        return fn

    def _path(self, key: str) -> Any:
        return self.cache.root / "numba" / f"{key}.py"

    def _clear(self, key: str) -> None:
        sys.modules.pop(f"theon_tier1_{key}", None)
        p = self._path(key)
        if self.cache.usable(p.parent) is not True:
            return  # (nothing is removed from a directory theon does not use)
        try:
            p.unlink()
        except OSError:
            pass
        pyc = p.parent / "__pycache__"
        if pyc.is_dir():
            for f in pyc.glob(f"{key}.*"):
                try:
                    f.unlink()
                except OSError:
                    pass

    def _load(self, key: str, text: str, fname: str, sample: Sequence[Any],
              elsewhere: bool = False) -> Any:
        cache = self.cache
        p = self._path(key)
        encoded = text.encode()
        # (rewriting an unchanged file would make numba's cache stale)
        cached = cache.read_file(p) == encoded or cache.write_file(p, encoded)
        if not (cached and self._numba_files_ok(cache, p, key)):
            # an unwritable or refused cache directory: compile in memory
            ns: dict[str, Any] = {}
            exec(compile(text.replace("cache=True", "cache=False"), str(p), "exec"), ns)
            fn = ns[fname]
            _first_run(fn, sample)
            bump("disk_misses")
            return fn
        modname = f"theon_tier1_{key}"
        if elsewhere and not self._numba_files(p, key):
            self._compile_elsewhere(text, str(p), modname, fname, sample)
        mod = types.ModuleType(modname)
        mod.__file__ = str(p)
        sys.modules[modname] = mod  # (numba's cached code finds its module by name)
        # the text itself runs, not the file (nor a .pyc of it); numba finds its cache
        # next to the file named by the code
        exec(compile(text, str(p), "exec"), mod.__dict__)
        fn = getattr(mod, fname)
        _first_run(fn, sample)  # compiles, or loads numba's cached machine code
        hits = sum(fn.stats.cache_hits.values())
        bump("disk_hits" if hits else "disk_misses")
        self._private(p, key)
        cache.evict()
        return fn

    def _compile_elsewhere(self, text: str, path: str, modname: str, fname: str,
                           sample: Sequence[Any]) -> None:
        """Compile ``fname`` of ``text`` for ``sample``'s numba types in a child process,
        which leaves the machine code in numba's cache next to ``path`` (a child that
        fails leaves nothing: then this process compiles)."""
        sig = tuple(self.numba.typeof(a) for a in sample)
        payload = pickle.dumps((text, path, modname, fname, sig))
        try:
            subprocess.run([sys.executable, "-c", _CHILD], input=payload,
                           capture_output=True, timeout=CHILD_TIMEOUT_S, check=False)
        except (OSError, subprocess.SubprocessError):
            pass

    @staticmethod
    def _numba_files(p: Any, key: str) -> list[Any]:
        """numba's cache files of the module at ``p`` (index and machine code)."""
        return [f for f in (p.parent / "__pycache__").glob(f"{key}.*")
                if f.suffix in (".nbi", ".nbc")]

    def _numba_files_ok(self, cache: DiskCache, p: Any, key: str) -> bool:
        """Whether numba may keep and load its cache for ``p``: its ``__pycache__`` is a
        usable cache directory (made ``0700`` here, before numba would make it), and
        the files there that numba would load (pickles: they run code) pass the entry
        check; files that fail it are removed, so numba writes them again."""
        if not cache.make_dirs(p.parent / "__pycache__"):
            return False
        for f in self._numba_files(p, key):
            if not cache.check_file(f):
                try:
                    f.unlink()
                except OSError:
                    return False
        return True

    def _private(self, p: Any, key: str) -> None:
        """Take group and others' write permission off numba's new cache files (numba
        writes them with the process's umask), so that the next process loads them."""
        for f in self._numba_files(p, key):
            try:
                st = os.lstat(f)
                if stat.S_ISREG(st.st_mode) and st.st_mode & 0o022:
                    os.chmod(f, stat.S_IMODE(st.st_mode) & ~0o022)
            except OSError:
                continue


#: seconds a child process may take to compile (then this process compiles)
CHILD_TIMEOUT_S = 600.0

#: the child process of ``compile_loop(elsewhere=True)``, at a lower priority: the text
#: theon made (read from stdin with the signature, never from the file), compiled for
#: that signature with numba's cache next to the file it names
_CHILD = """
import os, pickle, sys, types
if hasattr(os, "nice"):
    os.nice(10)  # (the background: the process it compiles for keeps its CPU)
text, path, modname, fname, sig = pickle.loads(sys.stdin.buffer.read())
mod = types.ModuleType(modname)
mod.__file__ = path
sys.modules[modname] = mod
exec(compile(text, path, "exec"), mod.__dict__)
getattr(mod, fname).compile(sig)
"""


def _first_run(fn: Any, sample: Sequence[Any]) -> None:
    """``fn(*sample)``, which compiles ``fn`` for the sample's types; an error the compiled
    code raises on these values (a graph function refusing a call, which tier 0 then
    serves) leaves it compiled, and is not a failed compile."""
    try:
        fn(*sample)
    except Exception:
        if not getattr(fn, "signatures", None):
            raise


def make_compiler() -> NumbaLoopCompiler:
    """The default loop compiler (imports numba)."""
    return NumbaLoopCompiler()

