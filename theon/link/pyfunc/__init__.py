"""The tier-0 linker: one generated Python function per compiled graph.

It is registered as the ``"py"`` linker in :mod:`theon.link.registry` (the
default of the named modes); the emitters for theon's scalar and tensor Ops
(:mod:`theon.backends.py`) are imported before its first link.

>>> from theon.compile.mode import Mode
>>> Mode(linker="py", optimizer=None).linker.name
'py'
"""

from theon.link.pyfunc.dispatch import ValueInfo, py_emit, py_scalar_expr, value_info
from theon.link.pyfunc.linker import PyLinker

__all__ = ["PyLinker", "ValueInfo", "py_emit", "py_scalar_expr", "value_info"]
