"""The suite gives the same verdict on every machine and in every process.

- Doctests print no last digits of libm results: they pass again with NumPy's
  SIMD kernels (AVX2, AVX-512, ...) switched off, whose results differ in the
  last bits (see ``NPY_DISABLE_CPU_FEATURES``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


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
