"""DESIGN §4.8: graph/, rewriting/, compile/ and link/ type-check under ``mypy --strict``."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# the packages judged strictly; ``--follow-imports=silent`` reads the layers they
# import (tensor, scalar) for their types without judging them
STRICT_PACKAGES = ["theon/graph", "theon/rewriting", "theon/compile", "theon/link"]


def test_core_layers_are_mypy_strict_clean(tmp_path):
    cmd = [
        sys.executable,
        "-m",
        "mypy",
        "--strict",
        "--follow-imports=silent",
        f"--cache-dir={tmp_path}",
        *STRICT_PACKAGES,
    ]
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
