"""Compiling graphs into callables: function, Mode, In/Out, shared variables, profiling.

``DebugMode``, ``NanGuardMode`` and ``MonitorMode`` (and their modules ``debugmode``,
``nanguardmode``, ``monitormode``) are loaded on first use.
"""

from typing import Any

from theon.compile.compiled import FunctionMaker, UnusedInputError
from theon.compile.io import In, Out
from theon.compile.mode import Mode, get_default_mode, get_mode, optdb
from theon.compile.ops import (
    DeepCopyOp,
    FromFunctionOp,
    TypeCastingOp,
    ViewOp,
    as_op,
    deep_copy_op,
    view_op,
    wrap_py,
)
from theon.compile.pipeline import Function, function
from theon.compile.profiling import ProfileStats
from theon.compile.sharedvalue import SharedVariable, shared, shared_constructor
from theon.link.registry import register_linker_backend as _register_linker_backend

# the JAX rule of theon.printing.Print (a layer below compile, which cannot name a linker)
_register_linker_backend("jax", "theon.backends.jax.printing")

__all__ = [
    "DebugMode",
    "DeepCopyOp",
    "FromFunctionOp",
    "Function",
    "FunctionMaker",
    "In",
    "Mode",
    "MonitorMode",
    "NanGuardMode",
    "Out",
    "ProfileStats",
    "SharedVariable",
    "TypeCastingOp",
    "UnusedInputError",
    "ViewOp",
    "as_op",
    "deep_copy_op",
    "function",
    "get_default_mode",
    "get_mode",
    "optdb",
    "shared",
    "shared_constructor",
    "view_op",
    "wrap_py",
]

_LAZY = {
    "DebugMode": "theon.compile.debugmode",
    "MonitorMode": "theon.compile.monitormode",
    "NanGuardMode": "theon.compile.nanguardmode",
    "debugmode": "theon.compile.debugmode",
    "monitormode": "theon.compile.monitormode",
    "nanguardmode": "theon.compile.nanguardmode",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'theon.compile' has no attribute {name!r}")
    import importlib

    mod = importlib.import_module(module)
    return mod if name == module.rsplit(".", 1)[1] else getattr(mod, name)
