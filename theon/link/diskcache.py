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

What a cache holds runs in this process (code objects, pickled executables), and
anyone who can write a file can compute its checksum, so a cache is used only
where no one else could have written it (on POSIX systems; see docs/caches.md):

- the directories theon creates are made ``0700``, each level;
- a cache directory (``config.cache_dir`` itself, followed if a symbolic link,
  and each level below it down to the cache's own, which must be real
  directories) owned by another user, or writable by group or others, switches
  that cache off, with one :class:`UnsafeCacheWarning` naming the directory.  The
  directories are checked once per process;
- an entry file is opened without following a symbolic link and checked on the
  open file (one ``fstat``): one owned by another user, writable by group or
  others, or not a regular file is not loaded (a warning names it; the next write
  replaces it).

>>> import tempfile
>>> d = DiskCache(tempfile.mkdtemp(), max_bytes=1 << 20)
>>> d.put("k", b"payload")
>>> d.get("k")
b'payload'
>>> d.get("missing") is None
True
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import tempfile
import threading
import warnings
from collections.abc import Callable
from pathlib import Path

__all__ = ["DiskCache", "UnsafeCacheWarning", "structural_hash", "unsafe_reason"]

_MAGIC = b"THEON-T1\x01"

#: whether owners and mode bits are checked (POSIX systems, where they mean that)
_CHECKED = hasattr(os, "geteuid")
#: flags of an entry's open: no symbolic link followed, no blocking on a FIFO
_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
               | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
#: ``open`` errors that mean "a symbolic link, refused by O_NOFOLLOW" (EMLINK: FreeBSD)
_LINK_ERRORS = (errno.ELOOP, errno.EMLINK) if hasattr(os, "O_NOFOLLOW") else ()
_TOUCH_FD = os.utime in os.supports_fd
_TOUCH_LINK = os.utime in os.supports_follow_symlinks

#: each directory checked in this process: whether it may be used
_verdicts: dict[str, bool] = {}
#: the directories and entries already warned about (one warning each per process)
_warned: set[str] = set()
_guard = threading.Lock()


class UnsafeCacheWarning(UserWarning):
    """A cache directory or entry that another user could have written: not used."""


def _uid() -> int:
    """The user who must own the caches: this process's effective user."""
    return os.geteuid()


def unsafe_reason(st: os.stat_result, uid: int) -> str | None:
    """Why a file or directory of status ``st`` may hold what someone other than user
    ``uid`` wrote (its owner, its mode bits), or None when only ``uid`` can write it.

    >>> unsafe_reason(os.stat_result((0o40777, 0, 0, 1, 0, 0, 0, 0, 0, 0)), 0)
    'is writable by group and others (mode 0777)'
    >>> unsafe_reason(os.stat_result((0o100644, 0, 0, 1, 7, 0, 0, 0, 0, 0)), 0)
    'is owned by uid 7, not by this process (uid 0)'
    >>> unsafe_reason(os.stat_result((0o40700, 0, 0, 1, 0, 0, 0, 0, 0, 0)), 0) is None
    True
    """
    if st.st_uid != uid:
        return f"is owned by uid {st.st_uid}, not by this process (uid {uid})"
    w = st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    if w:
        who = {stat.S_IWGRP: "group", stat.S_IWOTH: "others"}.get(w, "group and others")
        return f"is writable by {who} (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def _warn_once(path: str, message: str) -> None:
    with _guard:
        if path in _warned:
            return
        _warned.add(path)
    warnings.warn(message, UnsafeCacheWarning, stacklevel=3)


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
        Called with ``"disk_hits"``, ``"disk_misses"``, ``"disk_corrupt"``,
        ``"disk_refused"`` (an entry not loaded: see the module docstring) or
        ``"disk_evicted"`` as those happen (statistics), if given.
    evict_every
        Check the bound after every this many writes (a check lists the directory).
    base
        The top directory of the caches (``config.cache_dir``; ``root`` by default):
        it and each directory below it down to ``root`` are checked (see the module
        docstring) and created ``0700`` where missing.
    """

    def __init__(self, root: str | os.PathLike[str], max_bytes: int,
                 count: Callable[[str], None] | None = None, evict_every: int = 1,
                 base: str | os.PathLike[str] | None = None) -> None:
        self.root = Path(root)
        self.base = self.root if base is None else Path(base)
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

    def usable(self, d: Path | None = None) -> bool | None:
        """Whether directory ``d`` (``root`` by default) may hold cache entries: True;
        False when it, or a directory between ``base`` and it, could hold what another
        user wrote (then one warning names that directory, and the answer stays False
        in this process); None when it does not exist (yet).  Each directory is
        checked once per process."""
        d = self.root if d is None else d
        verdict = _verdicts.get(str(d))
        if verdict is not None:
            return verdict
        if not _CHECKED:
            return True if os.path.isdir(d) else None
        uid = _uid()
        for i, level in enumerate(self._levels(d)):
            known = _verdicts.get(str(level))
            if known is False:
                verdict = False
                break
            if known:
                continue
            try:  # (the top directory may be a link the user chose: its target counts)
                st = os.stat(level) if i == 0 else os.lstat(level)
            except OSError:
                return None
            if stat.S_ISLNK(st.st_mode):
                reason: str | None = "is a symbolic link (theon makes real directories there)"
            elif not stat.S_ISDIR(st.st_mode):
                return None  # (a file in the way: writes fail, nothing to load)
            else:
                reason = unsafe_reason(st, uid)
            _verdicts[str(level)] = reason is None
            if reason is not None:
                verdict = False
                _warn_once(str(level), (
                    f"theon: not using its disk cache in {d}: the directory {level} {reason}, "
                    "so another user could have put code there that would run in this "
                    "process. Make it private (owned by you, chmod 700) or point "
                    "config.cache_dir ($THEON_CACHE_DIR) at a private directory."))
                break
        else:
            verdict = True
        _verdicts[str(d)] = verdict
        return verdict

    def _levels(self, d: Path) -> list[Path]:
        """``base`` and each directory below it down to ``d`` (just ``d`` if outside)."""
        try:
            parts = d.relative_to(self.base).parts
        except ValueError:
            return [d]
        levels = [self.base]
        for part in parts:
            levels.append(levels[-1] / part)
        return levels

    def make_dirs(self, d: Path | None = None) -> bool:
        """Create directory ``d`` (``root`` by default) and each missing directory above
        it, ``0700`` each; whether it may then be used (:meth:`usable`)."""
        d = self.root if d is None else d
        ok = self.usable(d)
        if ok is not None:
            return ok
        missing: list[Path] = []
        level = d
        while not os.path.lexists(level) and level.parent != level:
            missing.append(level)
            level = level.parent
        for level in reversed(missing):
            try:
                os.mkdir(level, 0o700)
            except FileExistsError:
                pass
            except OSError:
                return False
        return self.usable(d) is True

    def read_file(self, p: Path) -> bytes | None:
        """The bytes of file ``p`` in the cache, or None: missing, unreadable, in a
        directory that is not :meth:`usable`, or refused (a symbolic link, not a regular
        file, owned by another user or writable by group or others; checked on the open
        file, and warned about once).  A file read is touched (:meth:`touch`)."""
        if self.usable(p.parent) is not True:
            return None
        try:
            fd = os.open(p, _OPEN_FLAGS)
        except OSError as e:
            if e.errno in _LINK_ERRORS:
                self._refuse(p, "is a symbolic link")
            return None
        with os.fdopen(fd, "rb") as f:
            if _CHECKED:
                st = os.fstat(fd)
                reason = (unsafe_reason(st, _uid()) if stat.S_ISREG(st.st_mode)
                          else "is not a regular file")
                if reason is not None:
                    self._refuse(p, reason)
                    return None
            try:
                data = f.read()
            except OSError:
                return None
            if _TOUCH_FD:
                try:
                    os.utime(fd)
                except OSError:
                    pass
        if not _TOUCH_FD:
            self.touch(p)
        return data

    def check_file(self, p: Path) -> bool:
        """Whether file ``p``, which something else will open (numba's cache files),
        passes the entry check of :meth:`read_file` (by ``lstat``); if not, it is
        warned about once.  A missing file passes."""
        if not _CHECKED:
            return True
        try:
            st = os.lstat(p)
        except OSError:
            return True
        reason = (unsafe_reason(st, _uid()) if stat.S_ISREG(st.st_mode)
                  else "is not a regular file")
        if reason is not None:
            self._refuse(p, reason)
        return reason is None

    def _refuse(self, p: Path, reason: str) -> None:
        self.bump("disk_refused")
        _warn_once(str(p), (
            f"theon: not loading the disk cache entry {p}: it {reason}, so someone else "
            "could have written it; the next write of this entry replaces it."))

    def get(self, key: str) -> bytes | None:
        """The bytes stored for ``key``, or None (missing, refused, or corrupt: then
        removed)."""
        data = self.read_file(self.path(key))
        if data is None:
            self.bump("disk_misses")
            return None
        body = self._unwrap(data)
        if body is None:
            self.discard(key)
            self.bump("disk_corrupt")
            return None
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

    def write_file(self, p: Path, data: bytes) -> bool:
        """Write ``data`` to ``p`` atomically (a new file, ``0600``), then evict to the
        size bound; whether it was written.  Errors (a read-only disk, say) and a
        directory that may not be used (:meth:`usable`) only mean no write: the cache
        is an optimization."""
        if not self.make_dirs(p.parent):
            return False
        try:
            fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, p)
        except OSError:
            return False
        self._writes += 1
        if self._writes % self.evict_every == 0:
            self.evict()
        return True

    def discard(self, key: str, suffix: str = ".bin") -> None:
        """Remove entry ``key`` if present."""
        if self.usable() is not True:
            return
        try:
            self.path(key, suffix).unlink()
        except OSError:
            pass

    def touch(self, p: Path) -> None:
        """Mark ``p`` as just used (its modification time), for the LRU order."""
        if self.usable(p.parent) is not True:
            return
        try:
            if _TOUCH_LINK:
                os.utime(p, follow_symlinks=False)  # (a link is never followed)
            elif not p.is_symlink():
                os.utime(p)
        except OSError:
            pass

    def evict(self) -> None:
        """Remove the least recently used files until the directory fits the bound."""
        if self.usable() is not True:
            return
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
