"""The Op classes of some theon packages, for the JAX rule-coverage tests."""

from __future__ import annotations

import importlib
import pkgutil

from theon.graph.op import Op
from theon.link.registry import load_linker_backends


def op_classes(packages: tuple[str, ...], abstract: set[str]) -> list[type]:
    """Every Op subclass defined in ``packages`` (imported in full first, with the JAX
    rule modules), except the ``abstract`` ones (by ``module.Name``), sorted by name."""
    for name in packages:
        mod = importlib.import_module(name)
        for info in pkgutil.walk_packages(getattr(mod, "__path__", []), name + "."):
            importlib.import_module(info.name)
    load_linker_backends("jax")
    seen: set[type] = set()
    stack: list[type] = [Op]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in seen:
                seen.add(sub)
                stack.append(sub)
    return sorted((c for c in seen if c.__module__.startswith(packages)
                   and f"{c.__module__}.{c.__name__}" not in abstract),
                  key=lambda c: (c.__module__, c.__name__))
