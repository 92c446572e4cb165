"""Tensor rewrites; importing this package registers them in ``theon.rewriting.db``."""

import importlib as _importlib

for _name in ("useless", "canonicalize", "stabilize", "specialize", "shape", "fusion", "inplace"):
    try:
        _importlib.import_module(f"theon.tensor.rewriting.{_name}")
    except ModuleNotFoundError as _e:
        if _e.name != f"theon.tensor.rewriting.{_name}":
            raise
