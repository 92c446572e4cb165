"""Old module paths (Theano's, Aesara's, PyTensor's) as data: one table, one import finder.

A program written for Theano, Aesara or PyTensor imports modules theon spells the same
way (``pytensor.tensor.basic`` is ``theon.tensor.basic``) or differently
(``theano.gof.graph`` holds what ``theon.graph.basic`` and ``theon.graph.traversal``
hold). :data:`theon.compat.table.ALIASES` lists only the differences; every other old
path is the theon module of the same path.

* ``import theon.scan_module`` (Theano's path under theon's name) works in every
  process: ``import theon`` appends a finder that answers the table's paths under
  ``theon.``, and nothing else (a real module always wins).
* :func:`alias` makes the old package names themselves resolve to theon for the whole
  process, so an installed, unmodified program (PyMC) runs on theon::

      import theon.compat
      theon.compat.alias("pytensor")
      import pymc  # its ``import pytensor.tensor as pt`` is theon.tensor

An old path maps either to one theon module (the same module object, so ``isinstance``
and monkeypatching see theon's objects) or to a *namespace*: a module object that looks
names up in several theon modules, in order, with renames. A name theon lacks raises
``AttributeError`` (``ImportError`` for ``from ... import``) naming it; the message of
a missing module points to ``docs/migration.md``.

>>> import theon.scan_module, theon.scan
>>> theon.scan_module is theon.scan
True
>>> from theon.gof.graph import inputs
>>> import theon.compat.theano_graph
>>> inputs is theon.compat.theano_graph.inputs  # Theano's order (a node's first input first)
True
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import threading
import types
from collections.abc import Sequence
from typing import Any

from theon.compat.table import ALIASES, Namespace

__all__ = ["ALIASES", "OLD_ROOTS", "Namespace", "alias", "aliased", "resolve"]

#: The package names :func:`alias` accepts.
OLD_ROOTS = ("theano", "aesara", "pytensor")
_MIGRATION = "see docs/migration.md"
_lock = threading.Lock()


def resolve(path: str) -> str | Namespace:
    """The theon target of an old module path without its root (``"gof.graph"``).

    >>> resolve("scan_module")
    'theon.scan'
    >>> resolve("tensor.basic")
    'theon.tensor.basic'
    """
    target = ALIASES.get(path)
    if target is not None:
        return target
    return f"theon.{path}" if path else "theon"


class _NamespaceModule(types.ModuleType):
    """A module whose names are looked up in a :class:`Namespace`'s theon modules."""

    _theon_namespace: Namespace

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name != "__all__":
            raise AttributeError(name)
        ns = self._theon_namespace
        sub = f"{self.__name__}.{name}"
        if sub.partition(".")[2] in ALIASES:  # a submodule of the old path
            return importlib.import_module(sub)
        if name == "__all__":
            names: list[str] = list(ns.renames)
            for m in ns.modules:
                names += getattr(importlib.import_module(m), "__all__", [])
            return sorted(set(names))
        if name in ns.renames:
            where, _, attr = ns.renames[name].partition(":")
            return getattr(importlib.import_module(where), attr)
        for m in ns.modules:
            mod = importlib.import_module(m)
            if hasattr(mod, name):
                return getattr(mod, name)
        raise AttributeError(
            f"module {self.__name__!r} (theon's {', '.join(ns.modules)}) has no "
            f"attribute {name!r}; {_MIGRATION}"
        )

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self.__getattr__("__all__")))


class _AliasLoader(importlib.abc.Loader):
    """Loads an old path: the target theon module itself, or a namespace module."""

    def __init__(self, target: str | Namespace) -> None:
        self.target = target
        self._spec: Any = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        if isinstance(self.target, str):
            mod = importlib.import_module(self.target)
        else:
            canonical = "theon." + spec.name.partition(".")[2]
            if spec.name == canonical:
                return self._namespace(spec.name)
            mod = importlib.import_module(canonical)  # one namespace object for every root
        # the import system sets ``__spec__`` to the old path's; exec_module puts it back
        self._spec = mod.__spec__
        return mod

    def _namespace(self, name: str) -> types.ModuleType:
        assert isinstance(self.target, Namespace)
        mod = _NamespaceModule(name, self.target.doc)
        mod._theon_namespace = self.target
        mod.__path__ = []  # a package: its old submodules are table entries
        return mod

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run: the module is theon's (its own ``__spec__`` restored), or a
        namespace that resolves its names on first use."""
        if self._spec is not None:
            module.__spec__ = self._spec


class _AliasFinder(importlib.abc.MetaPathFinder):
    """Finds the old paths: under ``theon.`` only the table's, under an aliased root all."""

    def __init__(self) -> None:
        self.roots: set[str] = set()

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        root, _, rest = fullname.partition(".")
        if root == "theon":
            if rest not in ALIASES:
                return None
        elif root not in self.roots:
            return None
        dest = resolve(rest)
        if isinstance(dest, str) and dest != fullname and not _exists(dest):
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: theon has no counterpart of it "
                f"(looked for {dest!r}); {_MIGRATION}",
                name=fullname,
            )
        if root != "theon":
            _share_loaded(root, fullname)
        is_pkg = not isinstance(dest, str) or _is_package(dest)
        return importlib.util.spec_from_loader(fullname, _AliasLoader(dest), is_package=is_pkg)


def _share_loaded(root: str, finding: str) -> None:
    """Enter every theon module already imported into ``sys.modules`` under ``root``'s
    path too (``pytensor.tensor.shape`` for ``theon.tensor.shape``), where the table
    does not map that path elsewhere.

    A later ``import pytensor.tensor.shape`` then finds it there. Loading it anew would
    make the import system bind the module as an attribute of its package, over the
    package's function of the same name (``pytensor.tensor.shape``, ``.sort``, ...),
    as it does for any newly loaded submodule.

    ``finding``, the path being found now, is left to its spec: an entry for it in
    ``sys.modules`` at this point would make the import system run the module's
    own spec again (it prefers that entry's ``__spec__``), loading a second copy
    of the theon module with classes distinct from the first's.
    """
    for name, mod in list(sys.modules.items()):
        if mod is None or not name.startswith("theon."):
            continue
        rest = name[len("theon."):]
        old = f"{root}.{rest}"
        if old != finding and old not in sys.modules and resolve(rest) == name:
            sys.modules[old] = mod


def _exists(module: str) -> bool:
    if module in sys.modules:
        return True
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def _is_package(module: str) -> bool:
    spec = importlib.util.find_spec(module)
    return spec is not None and spec.submodule_search_locations is not None


_FINDER = _AliasFinder()


def _install_theon_paths() -> None:
    """Append the finder for the table's paths under ``theon.`` (``import theon`` calls it)."""
    with _lock:
        if _FINDER not in sys.meta_path:
            sys.meta_path.append(_FINDER)


def alias(*names: str) -> None:
    """Make ``import NAME...`` resolve to theon for the whole process.

    Parameters
    ----------
    *names
        Any of ``"pytensor"``, ``"aesara"``, ``"theano"``. Call it before anything
        imports the real package; after that it raises ``RuntimeError``.

    Afterwards ``import aesara.tensor as at`` gives ``theon.tensor`` itself (see
    ``tests/compat/test_alias.py``, which runs it in a child process, since an alias
    lasts as long as the process):

    >>> "aesara" in OLD_ROOTS
    True
    """
    for name in names:
        if name not in OLD_ROOTS:
            raise ValueError(f"alias({name!r}): theon aliases only {', '.join(OLD_ROOTS)}")
    with _lock:
        for name in names:
            loaded = sys.modules.get(name)
            if loaded is not None and getattr(loaded, "__name__", None) != "theon":
                raise RuntimeError(
                    f"alias({name!r}) must run before anything imports {name}: the real "
                    f"{name} ({getattr(loaded, '__file__', '?')}) is already imported in "
                    f"this process, and its objects cannot be mixed with theon's"
                )
            _FINDER.roots.add(name)
        if _FINDER in sys.meta_path:
            sys.meta_path.remove(_FINDER)
        sys.meta_path.insert(0, _FINDER)  # before the real package on sys.path


def aliased() -> tuple[str, ...]:
    """The old package names :func:`alias` has installed, sorted."""
    return tuple(sorted(_FINDER.roots))
