"""Compiling graphs into callables: function, Mode, In/Out, shared variables, profiling."""

from theon.compile.io import In, Out
from theon.compile.mode import Mode, get_mode
from theon.compile.pipeline import Function, function
from theon.compile.profiling import ProfileStats
from theon.compile.sharedvalue import SharedVariable, shared, shared_constructor

__all__ = [
    "Function",
    "In",
    "Mode",
    "Out",
    "ProfileStats",
    "SharedVariable",
    "function",
    "get_mode",
    "shared",
    "shared_constructor",
]
