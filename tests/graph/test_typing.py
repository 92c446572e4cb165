"""DESIGN §4.8: the graph core type-checks under ``mypy --strict``."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STRICT_MODULES = [
    "theon/graph/__init__.py",
    "theon/graph/basic.py",
    "theon/graph/null_type.py",
    "theon/graph/op.py",
    "theon/graph/replace.py",
    "theon/graph/traversal.py",
    "theon/graph/type.py",
]


def test_graph_core_is_mypy_strict_clean(tmp_path):
    cmd = [
        sys.executable,
        "-m",
        "mypy",
        "--strict",
        "--follow-imports=silent",  # judge these modules, not the layers they import lazily
        f"--cache-dir={tmp_path}",
        *STRICT_MODULES,
    ]
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
