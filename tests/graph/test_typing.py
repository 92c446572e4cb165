"""DESIGN §4.8: all of theon type-checks under ``mypy --strict``, with or without the
optional packages installed (pyproject.toml reads jax and numba as untyped either way).

The check shares mypy's cache (``.mypy_cache``) with ``.ci/run``'s own mypy step, so in
CI it re-reads what that step has just checked.
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_whole_package_is_mypy_strict_clean() -> None:
    cmd = [sys.executable, "-m", "mypy", "--strict", "theon"]
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout + res.stderr


def test_type_ignores_are_few_and_name_their_error() -> None:
    """Issue 30: at most 100 ``type: ignore`` in theon/, each with its error code."""
    found = [
        (p, n, line)
        for p in sorted((ROOT / "theon").rglob("*.py"))
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if "type: ignore" in line
    ]
    assert len(found) <= 100, f"{len(found)} type: ignore in theon/"
    bare = [f"{p.relative_to(ROOT)}:{n}" for p, n, line in found if "type: ignore[" not in line]
    assert not bare, "type: ignore without an error code: " + ", ".join(bare)
