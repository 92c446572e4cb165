"""The linker registry: linkers by name, and the emitter modules loaded before linking."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from theon.compile.mode import Mode
from theon.link.registry import (
    linker_names,
    load_linker_backends,
    make_linker,
    register_linker,
    register_linker_backend,
    unregister_linker,
)
from theon.link.vm import VMLinker


def test_builtin_linkers() -> None:
    assert {"py", "vm"} <= set(linker_names())
    assert make_linker("vm").name == "vm"
    assert make_linker("py").name == "py"


def test_unknown_linker_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown linker 'nope'; known linkers: .*py.*vm"):
        Mode(linker="nope")


def test_registered_linker_is_used_by_mode() -> None:
    register_linker("test_vm", lambda: VMLinker(allow_gc=False))
    try:
        assert Mode(linker="test_vm", optimizer=None).linker.name == "vm"
    finally:
        unregister_linker("test_vm")
    assert "test_vm" not in linker_names()


def test_backend_modules_are_imported_by_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "theon_backend_test_mod.py").write_text("LOADED = True\n")
    register_linker_backend("test_linker", "theon_backend_test_mod")
    try:
        assert "theon_backend_test_mod" not in sys.modules
        load_linker_backends("py")  # another linker's backends: not this one
        assert "theon_backend_test_mod" not in sys.modules
        load_linker_backends("test_linker")
        assert sys.modules["theon_backend_test_mod"].LOADED
    finally:
        sys.modules.pop("theon_backend_test_mod", None)
