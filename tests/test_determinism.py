"""The suite gives the same verdict on every machine and in every process.

- Doctests print no last digits of libm results: they pass again with NumPy's
  SIMD kernels (AVX2, AVX-512, ...) switched off, whose results differ in the
  last bits (see ``NPY_DISABLE_CPU_FEATURES``).
- Random tests use fixed seeds: none is seeded from ``hash()`` (which changes
  with ``PYTHONHASHSEED``) or left unseeded, and hypothesis is derandomized.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent
# callables whose first argument is a seed
_SEEDED = {"default_rng", "RandomState", "Random", "seed", "SeedSequence", "Generator"}


def _dispatched_cpu_features() -> list[str]:
    """NumPy's optional SIMD targets that this CPU has (beyond the build's baseline)."""
    try:
        from numpy._core import _multiarray_umath as umath
    except ImportError:  # NumPy < 2
        from numpy.core import _multiarray_umath as umath  # type: ignore[no-redef]
    found = getattr(umath, "__cpu_features__", {})
    return [f for f in getattr(umath, "__cpu_dispatch__", []) if found.get(f)]


@pytest.mark.skipif(not _dispatched_cpu_features(), reason="NumPy runs its baseline kernels here")
def test_doctests_pass_without_simd_kernels():
    env = dict(os.environ, NPY_DISABLE_CPU_FEATURES=" ".join(_dispatched_cpu_features()))
    res = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "theon"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert res.returncode == 0, res.stdout[-4000:] + res.stderr[-2000:]


def _seed_problems(path: Path, root: Path = ROOT) -> list[str]:
    """Calls in ``path`` that seed a random generator from ``hash()`` or not at all."""
    problems = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
        if name not in _SEEDED:
            continue
        where = f"{path.relative_to(root)}:{node.lineno}"
        if not node.args and not node.keywords:
            problems.append(f"{where}: {name}() without a seed")
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            if any(isinstance(c, ast.Call) and getattr(c.func, "id", "") == "hash"
                   for c in ast.walk(arg)):
                problems.append(f"{where}: {name} seeded from hash()")
    return problems


def test_random_tests_have_fixed_seeds():
    problems = [p for f in sorted((ROOT / "tests").rglob("*.py")) for p in _seed_problems(f)]
    assert not problems, "\n".join(problems)


def test_seed_checker_sees_hash_and_missing_seeds(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import numpy as np\nnp.random.default_rng(abs(hash('x')) % 7)\n"
                   "np.random.default_rng()\nnp.random.default_rng(3)\n")
    problems = [p.split(": ", 1)[1] for p in _seed_problems(bad, tmp_path)]
    assert problems == ["default_rng seeded from hash()", "default_rng() without a seed"]


def test_hypothesis_is_derandomized():
    assert settings.default.derandomize
    assert settings.default.database is None
