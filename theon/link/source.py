"""Building generated Python functions: lines, the globals they use, one compile.

theon generates Python source in three places: the py linker's runner
(:mod:`theon.link.pyfunc.linker`), the blocked elementwise kernels
(:mod:`theon.link.pyfunc.kernel`) and the specialized ``Function.__call__``
(:mod:`theon.compile.compiled`).  They share this builder: objects the code
uses become globals of the generated code (:meth:`Source.bind`), never
literals, so structurally equal functions have equal text, and the text is
compiled once per distinct source (an LRU cache of code objects).  The text
stays in :mod:`linecache` while its code is cached, so tracebacks through
generated code show the generated lines.

Compiled code objects are also kept on disk (``marshal``, under
``config.cache_dir``/code, at most ``config.code_cache_mb`` MiB, keyed by the
text and the interpreter's bytecode version), so a later process loads the
code of a source it has seen instead of compiling it again, as Python does
with ``.pyc`` files.  Loaded code runs, so the cache is used only where no other
user could have written it (:mod:`theon.link.diskcache`).  A generated file's
name carries the hash of its text, so it is the same in every process.

>>> src = Source()
>>> one = src.bind(1.5, "k")
>>> src.add("def f(x):", f"    return x + {one}")
>>> f = src.function("f", "example")
>>> f(1.0), src.text()
(2.5, 'def f(x):\\n    return x + _k0\\n')
"""

from __future__ import annotations

import hashlib
import importlib.util
import linecache
import marshal
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from types import CodeType
from typing import Any

from theon.link.diskcache import DiskCache

__all__ = ["CODE_CACHE_SIZE", "Source", "clear_code_cache", "compile_cached"]

#: Most code objects kept by :func:`compile_cached` (least recently used dropped first).
CODE_CACHE_SIZE = 512

_code_cache: OrderedDict[str, CodeType] = OrderedDict()
_lock = threading.Lock()
#: checks of the disk cache's size bound: after every this many writes
_EVICT_EVERY = 64
_disk: DiskCache | None = None
_disk_key: tuple[str, float] | None = None


def _disk_cache() -> DiskCache | None:
    """The disk cache of code objects for the current flags (None: switched off)."""
    global _disk, _disk_key
    from theon.config import config

    key = (str(config.cache_dir), float(config.code_cache_mb))
    if key != _disk_key:
        _disk_key = key
        _disk = None
        if key[1] > 0 and key[0]:
            base = Path(key[0]).expanduser()
            _disk = DiskCache(base / "code", int(key[1] * (1 << 20)),
                              evict_every=_EVICT_EVERY, base=base)
    return _disk


def _load(disk: DiskCache | None, key: str) -> CodeType | None:
    """The code object stored under ``key``, or None (the cache refuses an entry or a
    directory that another user could have written: see :mod:`theon.link.diskcache`)."""
    if disk is None:
        return None
    body = disk.get(key)
    if body is None:
        return None
    try:
        code = marshal.loads(body)
    except (EOFError, ValueError, TypeError):
        disk.discard(key)
        return None
    return code if isinstance(code, CodeType) else None


def compile_cached(text: str, kind: str = "generated") -> CodeType:
    """The code object of module source ``text``, compiled once per distinct text.

    ``kind`` names the generated file (``<theon-KIND-HASH>``) in tracebacks.

    >>> compile_cached("x = 1\\n") is compile_cached("x = 1\\n")
    True
    """
    with _lock:
        code = _code_cache.get(text)
        if code is not None:
            _code_cache.move_to_end(text)
            return code
    digest = hashlib.sha256(importlib.util.MAGIC_NUMBER + kind.encode() + b"\0"
                            + text.encode()).hexdigest()
    filename = f"<theon-{kind}-{digest[:12]}>"
    disk = _disk_cache()
    code = _load(disk, digest[:40])
    if code is None or code.co_filename != filename:
        code = compile(text, filename, "exec")
        if disk is not None:
            disk.put(digest[:40], marshal.dumps(code))
    with _lock:
        _code_cache[text] = code
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        while len(_code_cache) > CODE_CACHE_SIZE:
            _, old = _code_cache.popitem(last=False)
            linecache.cache.pop(old.co_filename, None)
    return code


def clear_code_cache() -> None:
    """Forget every cached code object (the next compile of each source is a real one)."""
    with _lock:
        for code in _code_cache.values():
            linecache.cache.pop(code.co_filename, None)
        _code_cache.clear()


class Source:
    """Python source under construction and the namespace it runs in.

    Parameters
    ----------
    namespace
        Initial globals of the generated code (copied).
    """

    def __init__(self, namespace: dict[str, Any] | None = None) -> None:
        self.lines: list[str] = []
        self.namespace: dict[str, Any] = dict(namespace or {})
        self._bound: dict[int, str] = {}
        self._keep: list[Any] = []  # ids in _bound stay unique while the objects live

    def bind(self, obj: Any, hint: str = "g") -> str:
        """A global name for ``obj`` in the generated code (one per object).

        Names are ``_{hint}{n}``, numbered in binding order, so equal code gets
        equal text.
        """
        name = self._bound.get(id(obj))
        if name is None:
            name = f"_{hint}{len(self._bound)}"
            while name in self.namespace:
                name += "_"
            self._bound[id(obj)] = name
            self._keep.append(obj)
            self.namespace[name] = obj
        return name

    def define(self, name: str, obj: Any) -> str:
        """Make ``obj`` the global ``name`` (a fixed name the code spells directly)."""
        self.namespace[name] = obj
        return name

    def add(self, *lines: str) -> None:
        """Append source lines (each with its own indentation)."""
        self.lines.extend(lines)

    def text(self) -> str:
        """The source so far."""
        return "\n".join(self.lines) + "\n"

    def function(self, name: str, kind: str = "generated") -> Callable[..., Any]:
        """Compile the source (see :func:`compile_cached`), run it, return its ``name``."""
        exec(compile_cached(self.text(), kind), self.namespace)
        fn: Callable[..., Any] = self.namespace[name]
        return fn
