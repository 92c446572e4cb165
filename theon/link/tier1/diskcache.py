"""The tier-1 disk cache: compiled kernels by structural hash, under
``config.cache_dir``/tier1, bounded by ``config.tier1_cache_mb`` MiB
(:class:`theon.link.diskcache.DiskCache`; its hits and misses count in
:data:`theon.link.tier1.worker.STATS`).  Kernels run in this process, so the cache
is used only where no other user could have written it (see
:mod:`theon.link.diskcache`).

>>> default_cache().root.name
'tier1'
"""

from __future__ import annotations

from pathlib import Path

from theon.link.diskcache import DiskCache, structural_hash
from theon.link.tier1.worker import bump

__all__ = ["DiskCache", "default_cache", "structural_hash"]


def default_cache() -> DiskCache:
    """The cache under ``config.cache_dir``/tier1, bounded by ``config.tier1_cache_mb``."""
    from theon.config import config

    base = Path(str(config.cache_dir)).expanduser()
    return DiskCache(base / "tier1", int(float(config.tier1_cache_mb) * (1 << 20)), count=bump,
                     base=base)
