"""Theano's ``theano.misc.pkl_utils``: :func:`dump` and :func:`load` of any picklable
object (shared variables, compiled functions, graphs, models holding them) to a file
object, and :class:`StripPickler`, a pickler that leaves the tags' traces out.

:func:`dump` writes a zip archive, as Theano's did: the pickle as the entry ``pkl`` and
each NumPy array as an ``.npy`` entry beside it, named after the shared variable that
holds it (``W``, ``W_2`` for a second ``W``) or ``array_0``, ``array_1``, ... (so the
values can be read without unpickling: ``numpy.load(zipfile.ZipFile(f).open("W"))``).

Unpickling runs code named by the pickle: load only files you made or trust.

>>> import io, numpy as np, theon
>>> W = theon.shared(np.arange(3.0), name="W")
>>> f = io.BytesIO()
>>> dump(W, f)
>>> _ = f.seek(0)
>>> load(f).get_value().tolist()
[0.0, 1.0, 2.0]
"""

from __future__ import annotations

import io
import pickle
import zipfile
from collections.abc import Callable, Iterable
from typing import IO, Any

import numpy as np

from theon.compile.pickling import stripping_tags
from theon.compile.sharedvalue import SharedVariable
from theon.graph.basic import Scratchpad

__all__ = ["PersistentNdarrayID", "PersistentNdarrayLoad", "PersistentSharedVariableID",
           "StripPickler", "dump", "load"]

#: the pickle protocol of :func:`dump` (Theano's default was the highest as well)
DEFAULT_PROTOCOL = pickle.HIGHEST_PROTOCOL


class PersistentNdarrayID:
    """The ``persistent_id`` of :func:`dump`: each distinct NumPy array is written once to
    the zip as ``array_<k>`` (``.npy`` format); the pickle holds ``"ndarray.<name>"``."""

    def __init__(self, zip_file: zipfile.ZipFile) -> None:
        self.zip_file = zip_file
        self.count = 0
        self.seen: dict[int, tuple[Any, str]] = {}  # id -> (the array, kept alive; its key)

    def _resolve_name(self, obj: np.ndarray[Any, Any]) -> str:
        name = f"array_{self.count}"
        self.count += 1
        return name

    def __call__(self, obj: Any) -> str | None:
        if type(obj) is not np.ndarray or obj.dtype.hasobject:
            return None
        known = self.seen.get(id(obj))
        if known is None:
            name = self._resolve_name(obj)
            with self.zip_file.open(name, "w", force_zip64=True) as f:
                np.lib.format.write_array(f, obj, allow_pickle=False)
            known = self.seen[id(obj)] = (obj, f"ndarray.{name}")
        return known[1]


class PersistentSharedVariableID(PersistentNdarrayID):
    """As :class:`PersistentNdarrayID`, an array held by a named shared variable written
    under that name (``W``; a second ``W`` is ``W_2`` unless ``allow_duplicates`` is
    false, which makes it an error; an unnamed one is an error unless
    ``allow_unnamed``)."""

    def __init__(self, zip_file: zipfile.ZipFile, allow_unnamed: bool = True,
                 allow_duplicates: bool = True) -> None:
        super().__init__(zip_file)
        self.allow_unnamed = allow_unnamed
        self.allow_duplicates = allow_duplicates
        self.names: dict[int, str] = {}
        self.used: dict[str, int] = {}

    def _resolve_name(self, obj: np.ndarray[Any, Any]) -> str:
        name = self.names.get(id(obj))
        if name is None:
            return super()._resolve_name(obj)
        k = self.used.get(name, 0) + 1
        self.used[name] = k
        if k > 1:
            if not self.allow_duplicates:
                raise ValueError(f"dump: two shared variables are named {name!r} "
                                 "(allow_duplicates=False)")
            name = f"{name}_{k}"
        return name

    def __call__(self, obj: Any) -> str | None:
        if isinstance(obj, SharedVariable):
            value = obj.container.storage[0]
            if obj.name:
                if type(value) is np.ndarray:
                    self.names.setdefault(id(value), obj.name)
            elif not self.allow_unnamed:
                raise ValueError(f"dump: a shared variable has no name ({obj.type}); name "
                                 "it, or pass allow_unnamed=True")
        return super().__call__(obj)


class PersistentNdarrayLoad:
    """The ``persistent_load`` of :func:`load`: ``"ndarray.<name>"`` read from the zip."""

    def __init__(self, zip_file: zipfile.ZipFile) -> None:
        self.zip_file = zip_file
        self.cache: dict[str, np.ndarray[Any, Any]] = {}

    def __call__(self, persid: str) -> np.ndarray[Any, Any]:
        kind, _, name = persid.partition(".")
        if kind != "ndarray":
            raise pickle.UnpicklingError(f"load: unknown persistent id {persid!r}")
        if name not in self.cache:
            with self.zip_file.open(name) as f:
                self.cache[name] = np.lib.format.read_array(f, allow_pickle=False)
        return self.cache[name]


def dump(obj: Any, file_handler: IO[bytes], protocol: int = DEFAULT_PROTOCOL,
         persistent_id: Callable[[zipfile.ZipFile], Any] = PersistentSharedVariableID
         ) -> None:
    """Pickle ``obj`` to the binary file object ``file_handler`` as a zip archive: the
    pickle as ``pkl``, its NumPy arrays as ``.npy`` entries (see the module).

    >>> import io, zipfile, numpy as np, theon
    >>> f = io.BytesIO()
    >>> dump([theon.shared(np.ones(2), name="b")], f)
    >>> sorted(zipfile.ZipFile(f).namelist())
    ['b', 'pkl']
    """
    with zipfile.ZipFile(file_handler, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as zf:
        buf = io.BytesIO()
        p = pickle.Pickler(buf, protocol=protocol)
        p.persistent_id = persistent_id(zf)  # type: ignore[method-assign]
        p.dump(obj)
        zf.writestr("pkl", buf.getvalue())


def load(f: IO[bytes], persistent_load: Callable[[zipfile.ZipFile], Any] = PersistentNdarrayLoad
         ) -> Any:
    """The object :func:`dump` wrote to the file object ``f``."""
    with zipfile.ZipFile(f, "r") as zf:
        p = pickle.Unpickler(io.BytesIO(zf.read("pkl")))
        p.persistent_load = persistent_load(zf)  # type: ignore[method-assign]
        return p.load()


def _scratchpad(entries: dict[str, Any]) -> Scratchpad:
    """A tag with ``entries`` (how :class:`StripPickler` pickles one)."""
    tag = Scratchpad()
    tag.__dict__.update(entries)
    return tag


class StripPickler(pickle.Pickler):
    """A pickler that leaves the tag entries ``trace`` and ``test_value`` (and
    ``extra_tag_to_remove``) out of every variable and node it writes, so the pickle
    does not carry where the graph was built (Theano's).  The objects pickled are not
    changed.

    >>> import io, pickle, theon.tensor as T
    >>> y = T.dvector("x") * 2
    >>> buf = io.BytesIO()
    >>> StripPickler(buf, protocol=2).dump(y)
    >>> hasattr(pickle.loads(buf.getvalue()).tag, "trace"), hasattr(y.tag, "trace")
    (False, True)
    """

    def __init__(self, file: IO[bytes], protocol: int = 0,
                 extra_tag_to_remove: Iterable[str] | None = None) -> None:
        super().__init__(file, protocol)
        self.tag_to_remove = ["trace", "test_value", *(extra_tag_to_remove or ())]

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is Scratchpad:
            kept = {k: v for k, v in obj.__dict__.items() if k not in self.tag_to_remove}
            return _scratchpad, (kept,)
        return NotImplemented

    def dump(self, obj: Any) -> None:
        with stripping_tags(self.tag_to_remove):
            super().dump(obj)
