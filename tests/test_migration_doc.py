"""docs/migration.md stays true: every theon module path it names imports, and the
spellings its fixes suggest exist."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import numpy as np
import pytest

import theon
import theon.tensor as T

DOC = (Path(__file__).resolve().parents[1] / "docs" / "migration.md").read_text()
MODULES = sorted(set(re.findall(r"`(theon(?:\.[a-z_]+)+)`", DOC)))


def test_the_page_names_modules() -> None:
    assert "theon.tensor.nnet" in MODULES and "theon.graph.rewriting.basic" in MODULES


@pytest.mark.parametrize("path", MODULES)
def test_named_path_exists(path: str) -> None:
    try:
        importlib.import_module(path)
    except ModuleNotFoundError:  # an attribute path, e.g. theon.compile.mode.Mode
        module, _, attr = path.rpartition(".")
        assert hasattr(importlib.import_module(module), attr), path


def test_the_suggested_fixes_exist() -> None:
    x = T.dvector("x")
    assert T.specify_broadcastable(x[:1], 0).type.shape == (1,)
    assert theon.shared(np.zeros((1, 3)), shape=(1, None)).type.shape == (1, None)
    assert T.addbroadcast(T.dmatrix("m"), 0).type.shape == (1, None)
    assert T.TensorType("float64", (False, True)).shape == (None, 1)
    from theon.tensor.nnet import hard_sigmoid  # noqa: F401
    from theon.tensor.signal.pool import pool_2d  # noqa: F401
