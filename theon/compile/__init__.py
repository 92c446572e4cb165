"""Compiling graphs into callables: function, Mode, In/Out."""

from theon.compile.function import Function, function
from theon.compile.io import In, Out
from theon.compile.mode import Mode, get_mode

__all__ = ["Function", "In", "Mode", "Out", "function", "get_mode"]
