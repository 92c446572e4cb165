"""Linkers: turn a rewritten FunctionGraph into a callable."""

from theon.link.vm import Linker, VMLinker

__all__ = ["Linker", "VMLinker"]
