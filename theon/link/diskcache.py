"""theon's disk caches: entries by hash, checksummed, size-bounded.

Two caches live under ``config.cache_dir`` (``$THEON_CACHE_DIR``, else
``$XDG_CACHE_HOME/theon``, else ``~/.cache/theon``): ``tier1/``, the compiled
tier-1 kernels (:mod:`theon.link.tier1`), and ``code/``, the code objects of the
Python theon generates (:mod:`theon.link.source`).  Entries are files named by
the hash of what they hold (a kernel's structure, dtypes, compiler and its
version; a source text and the interpreter's bytecode version).  Each read
touches the file's modification time; after writes the least recently used
files are removed until the directory fits its bound.

An entry is written atomically (a temporary file, then ``os.replace``) and
carries a checksum; an entry that cannot be read back is removed and rebuilt,
never an error.

>>> import tempfile
>>> d = DiskCache(tempfile.mkdtemp(), max_bytes=1 << 20)
>>> d.put("k", b"payload")
>>> d.get("k")
b'payload'
>>> d.get("missing") is None
True
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

__all__ = ["DiskCache", "structural_hash"]

_MAGIC = b"THEON-T1\x01"


def structural_hash(*parts: object) -> str:
    """A hex digest of the ``repr`` of ``parts`` (each part must have a stable repr).

    >>> structural_hash("exp", ("float64",)) == structural_hash("exp", ("float64",))
    True
    """
    h = hashlib.sha256()
    for p in parts:
        h.update(repr(p).encode())
        h.update(b"\x00")
    return h.hexdigest()[:40]


class DiskCache:
    """A directory of checksummed entries with least-recently-used eviction.

    Parameters
    ----------
    root
        The directory (created on the first write).
    max_bytes
        The size bound of everything under ``root`` (other files there, such as
        numba's own cache files, count too).
    count
        Called with ``"disk_hits"``, ``"disk_misses"``, ``"disk_corrupt"`` or
        ``"disk_evicted"`` as those happen (statistics), if given.
    evict_every
        Check the bound after every this many writes (a check lists the directory).
    """

    def __init__(self, root: str | os.PathLike[str], max_bytes: int,
                 count: Callable[[str], None] | None = None, evict_every: int = 1) -> None:
        self.root = Path(root)
        self.max_bytes = max_bytes
        self._count = count
        self.evict_every = max(1, evict_every)
        self._writes = 0

    def bump(self, what: str) -> None:
        """Count event ``what`` (see ``count``)."""
        if self._count is not None:
            self._count(what)

    def path(self, key: str, suffix: str = ".bin") -> Path:
        """The file of entry ``key``."""
        return self.root / f"{key}{suffix}"

    def get(self, key: str) -> bytes | None:
        """The bytes stored for ``key``, or None (missing or corrupt: then removed)."""
        p = self.path(key)
        try:
            data = p.read_bytes()
        except OSError:
            self.bump("disk_misses")
            return None
        body = self._unwrap(data)
        if body is None:
            self.discard(key)
            self.bump("disk_corrupt")
            return None
        self.touch(p)
        self.bump("disk_hits")
        return body

    @staticmethod
    def _unwrap(data: bytes) -> bytes | None:
        n = len(_MAGIC)
        if len(data) < n + 32 or data[:n] != _MAGIC:
            return None
        digest, body = data[n:n + 32], data[n + 32:]
        return body if hashlib.sha256(body).digest() == digest else None

    def put(self, key: str, body: bytes) -> None:
        """Store ``body`` for ``key`` (atomically), then evict to the size bound."""
        data = _MAGIC + hashlib.sha256(body).digest() + body
        self.write_file(self.path(key), data)

    def write_file(self, p: Path, data: bytes) -> None:
        """Write ``data`` to ``p`` atomically, then evict to the size bound.  Errors
        (a read-only disk, say) are ignored: the cache is an optimization."""
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, p)
        except OSError:
            return
        self._writes += 1
        if self._writes % self.evict_every == 0:
            self.evict()

    def discard(self, key: str, suffix: str = ".bin") -> None:
        """Remove entry ``key`` if present."""
        try:
            self.path(key, suffix).unlink()
        except OSError:
            pass

    @staticmethod
    def touch(p: Path) -> None:
        """Mark ``p`` as just used (its modification time), for the LRU order."""
        try:
            os.utime(p)
        except OSError:
            pass

    def evict(self) -> None:
        """Remove the least recently used files until the directory fits the bound."""
        files: list[tuple[float, int, str]] = []
        total = 0
        stack = [str(self.root)]
        while stack:  # (an iterative walk)
            d = stack.pop()
            try:
                entries = list(os.scandir(d))
            except OSError:
                continue
            for e in entries:
                try:
                    if e.is_dir(follow_symlinks=False):
                        stack.append(e.path)
                    elif e.is_file(follow_symlinks=False):
                        st = e.stat(follow_symlinks=False)
                        files.append((st.st_mtime, st.st_size, e.path))
                        total += st.st_size
                except OSError:
                    continue
        if total <= self.max_bytes:
            return
        files.sort()
        for _mtime, size, path in files:
            if total <= self.max_bytes:
                break
            try:
                os.unlink(path)
            except OSError:
                continue
            total -= size
            self.bump("disk_evicted")
