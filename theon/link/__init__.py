"""Linkers: turn a rewritten FunctionGraph into a callable.

:class:`Linker` is the protocol; :mod:`theon.link.registry` names the linkers
(``"vm"``, ``"py"``) and loads the emitter modules that the Op layers register
for them.
"""

from theon.link.basic import Linker
from theon.link.registry import (
    linker_names,
    load_linker_backends,
    make_linker,
    register_linker,
    register_linker_backend,
    unregister_linker,
)
from theon.link.vm import VMLinker

__all__ = [
    "Linker",
    "VMLinker",
    "linker_names",
    "load_linker_backends",
    "make_linker",
    "register_linker",
    "register_linker_backend",
    "unregister_linker",
]
