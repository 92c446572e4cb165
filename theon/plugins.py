"""Modules that a higher layer asks a lower one to import later, on first use.

A lower layer cannot import the layers above it, yet some of its registries are
filled by them: the rewrite database by ``theon.tensor.rewriting``, the ``py``
linker's emitter tables by ``theon.backends.py.tensor``.  The higher layer
registers the *name* of such a module when it is itself imported; the lower
layer imports every registered module once, when it first needs its registry
(the first compile), not as a side effect of ``import theon.tensor``.

A module that fails to import raises: nothing is skipped silently.

>>> loader = ModuleLoader("example")
>>> loader.register("json")
>>> loader.pending
('json',)
>>> loader.load()
>>> loader.pending, loader.loaded
((), ('json',))
"""

from __future__ import annotations

import importlib
import threading

__all__ = ["ModuleLoader"]


class ModuleLoader:
    """Names of modules to import once, on the first :meth:`load` after their registration.

    Parameters
    ----------
    what
        What the modules fill, for error messages (``"rewrites"``).
    """

    def __init__(self, what: str) -> None:
        self.what = what
        self._pending: list[str] = []
        self._loaded: list[str] = []
        self._lock = threading.RLock()

    def register(self, module: str) -> None:
        """Import ``module`` (a dotted name) at the next :meth:`load`; repeated names count once."""
        with self._lock:
            if module not in self._pending and module not in self._loaded:
                self._pending.append(module)

    @property
    def pending(self) -> tuple[str, ...]:
        """The registered modules not imported yet, in registration order."""
        return tuple(self._pending)

    @property
    def loaded(self) -> tuple[str, ...]:
        """The registered modules already imported."""
        return tuple(self._loaded)

    def load(self) -> None:
        """Import every pending module, each exactly once, even from several threads.

        The lock is re-entrant: a module may register (and load) more modules
        while it is being imported.
        """
        if not self._pending:
            return
        with self._lock:
            while self._pending:
                name = self._pending[0]
                try:
                    importlib.import_module(name)
                except ImportError as e:
                    raise ImportError(
                        f"cannot import {name!r}, registered to provide {self.what}: {e}"
                    ) from e
                if name in self._pending:  # (a re-entrant load may have done it)
                    self._pending.remove(name)
                    self._loaded.append(name)

    def __repr__(self) -> str:
        return f"ModuleLoader({self.what!r}, pending={self.pending}, loaded={self.loaded})"
