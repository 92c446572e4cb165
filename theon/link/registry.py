"""The linker registry: linkers by name, and the modules that hold a linker's emitters.

``Mode(linker="py")`` looks the name up here.  The built-in linkers are
``"vm"`` (the reference :class:`~theon.link.vm.VMLinker`), ``"py"`` (the
generated-Python :class:`~theon.link.pyfunc.linker.PyLinker`, imported when
the first one is made) and ``"jax"`` (:class:`~theon.link.jax.linker.JAXLinker`,
``mode="JAX"``; jax is imported when it first links a graph).

A linker translates each Op with an emitter that the layer defining the Op
provides; those emitter modules sit above the linker.  So the Op's layer
registers the module's name with :func:`register_linker_backend` when it is
imported, and the linker calls :func:`load_linker_backends` before its first
link.

>>> make_linker("vm").name
'vm'
>>> {'jax', 'py', 'vm'} <= set(linker_names())
True
"""

from __future__ import annotations

from collections.abc import Callable

from theon.link.basic import Linker
from theon.link.vm import VMLinker
from theon.plugins import ModuleLoader

__all__ = [
    "linker_names",
    "load_linker_backends",
    "make_linker",
    "register_linker",
    "register_linker_backend",
    "unregister_linker",
]

_LINKERS: dict[str, Callable[[], Linker]] = {}
_BACKENDS: dict[str, ModuleLoader] = {}


def register_linker(name: str, factory: Callable[[], Linker]) -> None:
    """Make ``make_linker(name)`` (and ``Mode(linker=name)``) build a linker with ``factory``.

    >>> register_linker("my_vm", VMLinker)
    >>> make_linker("my_vm").name
    'vm'
    >>> unregister_linker("my_vm")
    """
    _LINKERS[name] = factory


def unregister_linker(name: str) -> None:
    """Forget the linker registered as ``name``."""
    del _LINKERS[name]


def linker_names() -> list[str]:
    """The registered linker names."""
    return list(_LINKERS)


def make_linker(name: str) -> Linker:
    """A new linker of the kind registered as ``name``.

    Raises
    ------
    ValueError
        When no linker is registered under ``name``.
    """
    factory = _LINKERS.get(name)
    if factory is None:
        raise ValueError(f"unknown linker {name!r}; known linkers: {', '.join(sorted(_LINKERS))}")
    return factory()


def register_linker_backend(linker: str, module: str) -> None:
    """Have the ``linker`` linker import ``module`` (which registers emitters) before linking.

    >>> register_linker_backend("py", "theon.backends.py.scalar")  # done by theon.scalar
    """
    loader = _BACKENDS.get(linker)
    if loader is None:
        loader = _BACKENDS[linker] = ModuleLoader(f"emitters for the {linker!r} linker")
    loader.register(module)


def load_linker_backends(linker: str | None = None) -> None:
    """Import the emitter modules registered for ``linker`` (all linkers if ``None``), once each.

    Thread-safe; a module that fails to import raises instead of being skipped,
    since without its emitters the linker could not translate the Ops it owns.
    """
    loaders = list(_BACKENDS.values()) if linker is None else [_BACKENDS.get(linker)]
    for loader in loaders:
        if loader is not None:
            loader.load()


def _py_linker() -> Linker:
    from theon.link.pyfunc.linker import PyLinker  # the same layer, imported on first use

    return PyLinker()


def _jax_linker() -> Linker:
    from theon.link.jax.linker import JAXLinker  # the same layer; jax itself loads on link

    return JAXLinker()


def _numba_linker() -> Linker:
    from theon.link.numba import NumbaLinker  # the same layer, imported on first use

    return NumbaLinker()


register_linker("vm", VMLinker)
register_linker("py", _py_linker)
register_linker("jax", _jax_linker)
register_linker("numba", _numba_linker)
