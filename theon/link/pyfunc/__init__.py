"""The tier-0 linker: one generated Python function per compiled graph.

Importing this package registers it as the ``"py"`` linker of
:mod:`theon.compile.mode` (the default of the named modes).

>>> from theon.compile.mode import Mode
>>> Mode(linker="py", optimizer=None).linker.name
'py'
"""

from theon.compile.mode import register_linker
from theon.link.pyfunc.dispatch import ValueInfo, py_emit, py_scalar_expr, value_info
from theon.link.pyfunc.linker import PyLinker

__all__ = ["PyLinker", "ValueInfo", "py_emit", "py_scalar_expr", "value_info"]

register_linker("py", PyLinker)
