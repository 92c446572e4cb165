"""ModuleLoader: registered modules are imported once, on load, and a broken one is loud."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from theon.plugins import ModuleLoader


@pytest.fixture
def modules_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in [m for m in sys.modules if m.startswith("theon_plugin_test_")]:
        del sys.modules[name]


def test_registered_modules_are_imported_on_load_only(modules_dir: Path) -> None:
    (modules_dir / "theon_plugin_test_a.py").write_text("RUNS = []\nRUNS.append(1)\n")
    loader = ModuleLoader("test registry")
    loader.register("theon_plugin_test_a")
    loader.register("theon_plugin_test_a")  # counted once
    assert "theon_plugin_test_a" not in sys.modules
    assert loader.pending == ("theon_plugin_test_a",)
    loader.load()
    loader.load()
    assert sys.modules["theon_plugin_test_a"].RUNS == [1]
    assert loader.pending == () and loader.loaded == ("theon_plugin_test_a",)


def test_a_module_that_fails_to_import_raises_and_stays_pending(modules_dir: Path) -> None:
    (modules_dir / "theon_plugin_test_broken.py").write_text("import theon_no_such_module\n")
    loader = ModuleLoader("test registry")
    loader.register("theon_plugin_test_broken")
    for _ in range(2):  # not skipped the second time either
        with pytest.raises(ImportError, match="theon_plugin_test_broken.*test registry"):
            loader.load()
    assert loader.pending == ("theon_plugin_test_broken",)


def test_concurrent_loads_import_each_module_once(modules_dir: Path) -> None:
    names = [f"theon_plugin_test_t{i}" for i in range(5)]
    for n in names:
        (modules_dir / f"{n}.py").write_text("import time\ntime.sleep(0.01)\nDONE = True\n")
    loader = ModuleLoader("test registry")
    for n in names:
        loader.register(n)
    seen: list[bool] = []

    def work() -> None:
        loader.load()  # returns only once every module is imported
        seen.append(all(getattr(sys.modules.get(n), "DONE", False) for n in names))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == [True] * 8
    assert loader.loaded == tuple(names)
